import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { ApiError, ExitCode } from '../../src/core/errors.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { networkOf } from '../../src/api/network.js';

const KEY = 'svc_test_errormapping00000000000001';
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function errorFor(status: number, body: unknown, headers: Record<string, string> = {}): Promise<ApiError> {
  server = await startServer((_request, response) => json(response, status, body, headers));
  const client = createApiClient({ baseUrl: new URL(server.url), key: KEY, network: networkOf({}), retry: { retries: 0 } });
  return client.GET('/v1/reports').then(
    () => {
      throw new Error('expected a failure');
    },
    (error: ApiError) => error,
  );
}

describe('error mapping', () => {
  it.each([
    [401, 'unauthorized', 'auth'],
    [401, 'invalid_key', 'auth'],
    [403, 'forbidden', 'permission'],
    [403, 'ip_not_allowed', 'permission'],
    [404, 'not_found', 'notFound'],
    [410, 'gone', 'notFound'],
    [422, 'invalid_request', 'invalidInput'],
    [429, 'rate_limited', 'rateLimited'],
    [500, 'internal', 'server'],
  ] as const)('%i %s is a %s error with its code and exit code', async (status, code, kind) => {
    const error = await errorFor(status, { error: { code, message: 'from the server' } });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status, code, kind });
    expect(error.exitCode).toBe(ExitCode[kind]);
    expect(error.message).toContain('from the server');
    expect(error.hint).toBeTruthy();
  });

  it('gives invalid_key the hint the operator needs', async () => {
    const error = await errorFor(401, { error: { code: 'invalid_key', message: 'revoked' } });
    expect(error.hint).toBe('the key is revoked, expired or unknown — check SVC_API_KEY or `svc config`');
  });

  it.each([
    ['a flat body', { code: 'ip_not_allowed', message: 'nope' }],
    ['a string error', { error: 'ip_not_allowed' }],
  ])('finds the code in %s', async (_shape, body) => {
    const error = await errorFor(403, body);
    expect(error.code).toBe('ip_not_allowed');
  });

  it.each([
    [
      'an RFC 9457 problem with a code member',
      { type: 'https://api.example.com/problems/auth', title: 'Unauthorized', status: 401, detail: 'The key was revoked.', code: 'invalid_key' },
      'The key was revoked.',
    ],
    [
      'an RFC 9457 problem whose type names the code',
      { type: 'https://api.example.com/problems/invalid_key', title: 'Invalid key', status: 401 },
      'Invalid key',
    ],
    ['JSON:API errors', { errors: [{ status: '401', code: 'invalid_key', title: 'Invalid key', detail: 'The key was revoked.' }] }, 'The key was revoked.'],
    ['an OAuth-style error', { error: 'invalid_key', error_description: 'The key was revoked.' }, 'The key was revoked.'],
  ])('finds the code and message in %s', async (_shape, body, message) => {
    const error = await errorFor(401, body, { 'content-type': 'application/problem+json' });
    expect(error).toMatchObject({ code: 'invalid_key', kind: 'auth' });
    expect(error.message).toBe(`401 invalid_key: ${message}`);
    expect(error.hint).toContain('the key is revoked');
  });

  it('takes an error sentence for the message, not the code', async () => {
    const error = await errorFor(404, { error: 'No report with this id', status: 404 });
    expect(error).toMatchObject({ code: 'http_404', kind: 'notFound', message: '404 http_404: No report with this id' });
  });

  it('names the field of an invalid input', async () => {
    const error = await errorFor(422, { error: { code: 'invalid_request', message: 'must be two uppercase letters', param: 'destination' } });
    expect(error.message).toContain('destination');
  });

  it('copes with a body that is not JSON', async () => {
    const error = await errorFor(502, 'upstream broke');
    expect(error.kind).toBe('server');
    expect(error.code).toBe('server_error');
  });

  it('follows no redirect, and names where it led', async () => {
    server = await startServer((_request, response) => response.writeHead(302, { location: 'https://elsewhere.example/login' }).end());
    const client = createApiClient({ baseUrl: new URL(server.url), key: KEY, network: networkOf({}), retry: { retries: 0 } });
    const error = (await client.GET('/v1/reports').catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 302, code: 'http_302' });
    expect(error.hint).toContain('https://elsewhere.example/login');
    expect(server.requests).toHaveLength(1);
  });

  it('stops reading an answer past 64 MiB and says so, rather than filling memory', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // Sends until the client hangs up: an answer without end.
      const send = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', send);
      };
      send();
    });
    const client = createApiClient({ baseUrl: new URL(server.url), key: KEY, network: networkOf({}), retry: { retries: 0 } });
    const error = (await client.GET('/v1/reports').catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'server', code: 'answer_too_large' });
    expect(error.message).toContain('more than 64 MiB');
  });

  it('maps a refused connection to a network error', async () => {
    server = await startServer(() => undefined);
    const url = server.url;
    await server.close();
    server = undefined;
    const client = createApiClient({ baseUrl: new URL(url), key: KEY, network: networkOf({}), retry: { retries: 0 } });
    const error = await client.GET('/v1/reports').catch((caught: ApiError) => caught);
    expect(error).toMatchObject({ kind: 'network', code: 'connection_refused' });
  });
});
