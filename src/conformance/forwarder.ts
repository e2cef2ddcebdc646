import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTRACT_KEYS } from './contract-terms.js';
import type { KitContext } from './context.js';
import { closeServer, type Role } from './http.js';
import { isSuccess } from './outcome.js';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/**
 * A plain-HTTP server on 127.0.0.1 that the Pact verifier talks to instead of the implementation.
 * The verifier's HTTP client cannot take the operator's CA nor pace itself, so every request goes
 * on through the kit's own client: HTTPS with the CA, paced by X-RateLimit-Remaining, 429 waited
 * out, recorded for the checks on all answers. It puts the real keys in place of the contracts'
 * example keys, and notes the reports the verifier creates and deletes, for the cleanup.
 *
 * Only the interactions' own requests reach it: the verifier's state-setup and message calls go to
 * Pact's proxy in the child process and are answered there, never forwarded.
 */
export class Forwarder {
  private server: Server | undefined;
  /** Paths of every request forwarded, for tests. */
  readonly seen: string[] = [];

  constructor(
    private readonly context: KitContext,
    private readonly applicantBody?: Record<string, unknown>,
  ) {}

  private credentials(header: string | undefined): { authorization: string | null; role: Role } {
    if (header === undefined) return { authorization: null, role: 'none' };
    const keys = this.context.keys;
    if (header === `Bearer ${CONTRACT_KEYS.api}`) return { authorization: `Bearer ${keys.api}`, role: 'api' };
    if (header === `Bearer ${CONTRACT_KEYS.admin}` && keys.admin) return { authorization: `Bearer ${keys.admin}`, role: 'admin' };
    return { authorization: header, role: 'none' };
  }

  private body(method: string, path: string, raw: Buffer): Buffer {
    // The applicant of --applicant-file replaces the contract's example applicant: its fields are not shown by the specification.
    if (!this.applicantBody || method !== 'POST' || path !== '/v1/applicants') return raw;
    try {
      const sent = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      if (sent.id === undefined) return Buffer.from(JSON.stringify(this.applicantBody));
    } catch {
      // not JSON: forwarded as it is
    }
    return raw;
  }

  async start(): Promise<string> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const method = request.method ?? 'GET';
        const path = request.url ?? '/';
        this.seen.push(`${method} ${path}`);
        const { authorization, role } = this.credentials(request.headers.authorization);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers)) {
          if (value === undefined || HOP_BY_HOP.has(name) || name === 'authorization') continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const raw = Buffer.concat(chunks);
        const body = this.body(method, path, raw);
        this.context.client
          .send({ method, path, authorization, role, purpose: 'pact', headers, body: body.length > 0 ? new Uint8Array(body) : undefined })
          .then((exchange) => {
            this.note(method, path, exchange.status, exchange.json);
            const out: Record<string, string> = {};
            for (const [name, value] of Object.entries(exchange.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
            response.writeHead(exchange.status, out).end(exchange.body);
          })
          .catch((error: Error) => {
            response.writeHead(502, { 'content-type': 'text/plain' }).end(`svc contract verify could not reach the implementation: ${error.message}`);
          });
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  private note(method: string, path: string, status: number, json: unknown): void {
    if (!isSuccess(status)) return;
    const fixtures = this.context.fixtures;
    if (method === 'POST' && path === '/v1/reports' && typeof json === 'object' && json !== null && typeof (json as { id?: unknown }).id === 'string') {
      fixtures.reports.add((json as { id: string }).id);
    }
    const deleted = /^\/v1\/reports\/([^/?]+)$/.exec(path);
    if (method === 'DELETE' && deleted) fixtures.deleted.add(decodeURIComponent(deleted[1]!));
    const revoked = /^\/v1\/keys\/([^/?]+)$/.exec(path);
    if (method === 'DELETE' && revoked) fixtures.revoked.add(decodeURIComponent(revoked[1]!));
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}
