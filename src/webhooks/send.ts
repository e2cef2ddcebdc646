/** The headers of a delivery as part 6 describes it, with the given signature header value (or none). */
export function deliveryHeaders(type: string, signature: string | undefined): Record<string, string> {
  return {
    'content-type': 'application/json',
    'service-event': type,
    ...(signature !== undefined && { 'service-signature': signature }),
  };
}
