import { createHmac } from 'node:crypto';

/**
 * The signature of spec part 6 as openapi.yaml's x-webhook-signature records it:
 * HMAC-SHA256 with the webhook secret over `<t>.<raw body>`, hex-encoded, sent as `t=<t>,v1=<hex>`.
 */
export function computeSignature(secret: string, timestamp: number, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

export function signatureHeader(secret: string, body: Uint8Array | string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, body)}`;
}
