/**
 * The client's error middleware throws on every failure, so a call that returns has data;
 * this narrows openapi-fetch's result to it.
 */
export function dataOf<T>(result: { data?: T; response: Response }): T {
  if (result.data === undefined) {
    throw new Error(`${result.response.url} answered ${result.response.status} with no body`);
  }
  return result.data;
}
