import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INBOUND_SERVER_OPTIONS } from '../core/inbound-http.js';
import { CONTRACT_KEYS } from './contract-terms.js';
import { type KitContext, SUPPLY } from './context.js';
import { closeServer, type Exchange, type Role } from './http.js';
import { passportFile, reportBody } from './fixtures.js';
import { isSuccess, SetupError, shown } from './outcome.js';
import { isJsonObject } from '../core/json-object.js';

const INPUTS: Record<string, keyof typeof SUPPLY> = { '/v1/applicants': 'applicant', '/v1/reports': 'report', '/v1/documents': 'document' };

function parsed(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/** The header by which the Pact verifier, and nothing else on the machine, is let through. */
export const FORWARDER_TOKEN_HEADER = 'x-svc-forwarder-token';

/** Whether the verifier asked for `METHOD path`: the forwarder passes on nothing else. */
export type ForwardedRequests = (method: string, path: string) => boolean;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * A plain-HTTP server on 127.0.0.1 that the Pact verifier talks to instead of the implementation.
 * The verifier's HTTP client cannot take the operator's CA nor pace itself, so every request goes
 * on through the kit's own client: HTTPS with the CA, paced by X-RateLimit-Remaining, a 429 and a
 * gateway's transient 502, 503 or 504 waited out and sent again (the verifier sees only the final
 * answer; a request that never got one makes its interaction inconclusive), recorded for the checks
 * on all answers. It puts the real keys in place of the contracts' example keys, and notes the
 * reports the verifier creates and deletes, for the cleanup.
 *
 * Only the interactions' own requests reach it: the verifier's state-setup and message calls go to
 * Pact's proxy in the child process and are answered there, never forwarded. Any process on the
 * machine can connect to 127.0.0.1, so it lends the real keys to none but the verifier: a request
 * must bear the run's random token (the verifier adds it as a custom header) and be one of the
 * interactions' own method and path; anything else is answered 403 and goes nowhere.
 */
export class Forwarder {
  private server: Server | undefined;
  /** Handed to the verifier only, over IPC: never on a command line or in the environment. */
  readonly token = randomBytes(32).toString('base64url');
  private readonly tokenDigest = digest(this.token);
  /** `METHOD path` of every request forwarded, for tests. */
  readonly seen: string[] = [];
  /**
   * Requests whose body the kit could not make, which the implementation refused as an input of the
   * kit's, or which got no final answer (still transient, or none at all), by `METHOD path`: inconclusive.
   */
  readonly setupErrors = new Map<string, Error>();

  constructor(
    private readonly context: KitContext,
    private readonly isInteraction: ForwardedRequests,
  ) {}

  /** Why a request may not be forwarded, or undefined when it may. */
  private refusal(request: IncomingMessage, method: string, path: string): string | undefined {
    const token = request.headers[FORWARDER_TOKEN_HEADER];
    if (typeof token !== 'string' || !timingSafeEqual(digest(token), this.tokenDigest)) return "only the kit's Pact verifier may use this forwarder";
    if (!this.isInteraction(method, new URL(path, 'http://forwarder').pathname)) return `${method} ${path} is not a request of the interactions being verified`;
    return undefined;
  }

  private refuse(request: IncomingMessage, response: ServerResponse, reason: string): void {
    response.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(`${reason}\n`);
    request.resume();
  }

  private credentials(header: string | undefined): { authorization: string | null; role: Role } {
    if (header === undefined) return { authorization: null, role: 'none' };
    const keys = this.context.keys;
    if (header === `Bearer ${CONTRACT_KEYS.api}`) return { authorization: `Bearer ${keys.api}`, role: 'api' };
    if (header === `Bearer ${CONTRACT_KEYS.admin}` && keys.admin) return { authorization: `Bearer ${keys.admin}`, role: 'admin' };
    return { authorization: header, role: 'none' };
  }

  /**
   * The request as the implementation takes it: the bodies of the fixtures replace the contract's
   * examples of what the specification leaves open (applicant fields, the report's values, the
   * upload's shape, its query string included), each only where the user gave one.
   */
  private async request(
    method: string,
    path: string,
    headers: Record<string, string>,
    raw: Buffer,
  ): Promise<{ path: string; headers: Record<string, string>; body: Uint8Array }> {
    const { fixtures, setup } = this.context;
    const json = (value: unknown) => ({
      path,
      headers: { ...headers, 'content-type': 'application/json' },
      body: new Uint8Array(Buffer.from(JSON.stringify(value))),
    });
    if (method !== 'POST') return { path, headers, body: raw };
    if (path === '/v1/applicants' && fixtures.given.applicant && parsed(raw)?.id === undefined) return json(fixtures.applicant);
    const applicantId = parsed(raw)?.applicant_id;
    if (path === '/v1/reports' && fixtures.given.report && typeof applicantId === 'string') return json(reportBody(fixtures, applicantId));
    if (path === '/v1/documents' && fixtures.given.document) {
      const upload = await setup.documentRequest((await setup.applicant()).id, passportFile(fixtures));
      return { path: upload.path, headers: { ...headers, ...upload.headers }, body: upload.body };
    }
    return { path, headers, body: raw };
  }

  async start(): Promise<string> {
    const server = createServer(INBOUND_SERVER_OPTIONS, (request, response) => {
      const method = request.method ?? 'GET';
      const path = request.url ?? '/';
      const refusal = this.refusal(request, method, path);
      if (refusal) return this.refuse(request, response, refusal);
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.seen.push(`${method} ${path}`);
        response.on('close', () => {
          // The verifier gave up on its request while the kit was still waiting (the rate limit, a transient answer): whatever it concluded proves nothing.
          if (!response.writableFinished && !this.setupErrors.has(`${method} ${path}`))
            this.setupErrors.set(
              `${method} ${path}`,
              new Error(
                `the Pact verifier stopped waiting for ${method} ${path} while the kit waited for the implementation (its rate limit, a transient answer)`,
              ),
            );
        });
        const { authorization, role } = this.credentials(request.headers.authorization);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers)) {
          if (value === undefined || HOP_BY_HOP.has(name) || name === 'authorization' || name === FORWARDER_TOKEN_HEADER) continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        this.request(method, path, headers, Buffer.concat(chunks))
          .catch((error: Error) => {
            this.setupErrors.set(`${method} ${path}`, error);
            throw error;
          })
          .then((outgoing) =>
            this.context.client.send({
              method,
              path: outgoing.path,
              authorization,
              role,
              purpose: 'pact',
              headers: outgoing.headers,
              body: outgoing.body.length > 0 ? outgoing.body : undefined,
            }),
          )
          .then((exchange) => {
            this.note(method, path, exchange.status, exchange.json);
            this.noteRefusedInput(method, path, exchange);
            const out: Record<string, string> = {};
            // The body is the decoded one: a Content-Encoding of the implementation's would have the verifier decode it again.
            for (const [name, value] of Object.entries(exchange.headers)) if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
            response.writeHead(exchange.status, out).end(exchange.body);
          })
          .catch((error: Error) => {
            // No answer of the implementation's (none came, or only transient ones): the interaction proves nothing, whatever the verifier makes of this 502.
            if (!this.setupErrors.has(`${method} ${path}`)) this.setupErrors.set(`${method} ${path}`, error);
            response.writeHead(502, { 'content-type': 'text/plain' }).end(`svc contract verify could not reach the implementation: ${error.message}`);
          });
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /**
   * A 4xx to one of the kit's inputs (whose shapes the specification does not show) says that the
   * input does not suit the implementation, not that the implementation is at fault.
   */
  private noteRefusedInput(method: string, path: string, exchange: Exchange): void {
    const input = method === 'POST' ? INPUTS[path] : undefined;
    if (
      !input ||
      exchange.status < 400 ||
      exchange.status >= 500 ||
      (input === 'applicant' && parsed(Buffer.from(exchange.requestBody ?? '', 'latin1'))?.id !== undefined)
    )
      return;
    this.setupErrors.set(
      `${method} ${path}`,
      new SetupError(`the implementation refused the kit's ${input}: ${method} ${path} answered ${shown(exchange)}`, SUPPLY[input]),
    );
  }

  private note(method: string, path: string, status: number, json: unknown): void {
    if (!isSuccess(status)) return;
    const { setup } = this.context;
    if (method === 'POST' && path === '/v1/reports' && typeof json === 'object' && json !== null && typeof (json as { id?: unknown }).id === 'string') {
      setup.reports.add((json as { id: string }).id);
    }
    const deleted = /^\/v1\/reports\/([^/?]+)$/.exec(path);
    if (method === 'DELETE' && deleted) setup.deleted.add(decodeURIComponent(deleted[1]!));
    const revoked = /^\/v1\/keys\/([^/?]+)$/.exec(path);
    if (method === 'DELETE' && revoked) setup.revoked.add(decodeURIComponent(revoked[1]!));
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}
