import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Level } from './catalogue.js';
import type { Exchange, ImplementationClient, Role } from './http.js';
import { CheckSkipped, FixtureError, isSuccess, shown } from './outcome.js';
import { eventOf, mentions, type WebhookReceiver } from './receiver.js';
import { SAMPLE_APPLICANT, samplePassportPdf, sampleReportRequest } from './samples.js';

export interface KitKeys {
  api: string;
  admin?: string | undefined;
  readOnly?: string | undefined;
  ipLocked?: string | undefined;
  other?: string | undefined;
}

/** How long the kit waits for the implementation; tests shorten them. */
export interface KitTimeouts {
  /** For a report to finish. */
  completionMs: number;
  /** For a webhook event after what triggers it. */
  eventMs: number;
  /** The redelivery window around the spec's 30 s: from `redeliveryEarliestMs` to `redeliveryLatestMs` after the failed attempt. */
  redeliveryEarliestMs: number;
  redeliveryLatestMs: number;
}

export const DEFAULT_TIMEOUTS: KitTimeouts = {
  completionMs: 120_000,
  eventMs: 30_000,
  redeliveryEarliestMs: 28_000,
  redeliveryLatestMs: 45_000,
};

export interface KitContext {
  level: Level;
  client: ImplementationClient;
  keys: KitKeys;
  webhookSecret?: string | undefined;
  receiver?: WebhookReceiver | undefined;
  fixtures: Fixtures;
  timeouts: KitTimeouts;
  log: (line: string) => void;
}

const KEY_OF: Record<Exclude<Role, 'created' | 'none'>, keyof KitKeys> = { api: 'api', admin: 'admin', readOnly: 'readOnly', ipLocked: 'ipLocked', other: 'other' };

export interface CallOptions {
  role: Exclude<Role, 'created' | 'none'>;
  purpose: string;
  json?: unknown;
  body?: Uint8Array;
  headers?: Record<string, string>;
}

/** A request with one of the kit's keys. */
export function call(context: Pick<KitContext, 'client' | 'keys'>, method: string, path: string, options: CallOptions): Promise<Exchange> {
  const key = context.keys[KEY_OF[options.role]];
  if (!key) throw new CheckSkipped(`needs the ${options.role} key`);
  const headers = { ...options.headers };
  let body: string | Uint8Array | undefined = options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  return context.client.send({ method, path, authorization: `Bearer ${key}`, role: options.role, purpose: options.purpose, headers, body });
}

/** The `id` of a resource answer, if it has one. */
export function idOf(exchange: Pick<Exchange, 'json'>): string | undefined {
  const body = exchange.json;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const id = (body as Record<string, unknown>).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export function field(exchange: Pick<Exchange, 'json'>, name: string): unknown {
  const body = exchange.json;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
}

/** The reports of a list answer: a bare array, or the one array an object holds (the shape is not shown, part 4). */
export function listItems(exchange: Pick<Exchange, 'json'>): unknown[] | undefined {
  const body = exchange.json;
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const arrays = Object.values(body).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}

/** A multipart/form-data body (RFC 7578) of text fields and one file. */
export function multipartBody(fields: Record<string, string | undefined>, file: { name: string; contentType: string; bytes: Uint8Array }, boundary: string): Uint8Array {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.contentType}\r\n\r\n`), Buffer.from(file.bytes), Buffer.from(`\r\n--${boundary}--\r\n`));
  return new Uint8Array(Buffer.concat(parts));
}

export interface CreatedReport {
  id: string;
  created: Exchange;
  /** Index of the first webhook delivery that can belong to it. */
  deliveriesBefore: number;
}

export interface FinishedReport extends CreatedReport {
  /** The GET that saw it completed. */
  finished: Exchange;
}

export interface UploadedDocument {
  id: string;
  uploaded: Exchange;
  deliveriesBefore: number;
}

export interface CreatedKey {
  id: string;
  secret: string;
  created: Exchange;
}

/**
 * What the checks share, made once through the public API only: an applicant, a passport, reports
 * (one finished, one twin for determinism), a key made by the admin key. The kit deletes the
 * reports and revokes the keys it made when the run ends.
 */
export class Fixtures {
  private readonly memo = new Map<string, Promise<unknown>>();
  readonly reports = new Set<string>();
  readonly deleted = new Set<string>();
  readonly keys = new Map<string, string>();
  readonly revoked = new Set<string>();

  constructor(
    private readonly context: Omit<KitContext, 'fixtures'>,
    private readonly applicantBody: Record<string, unknown> = SAMPLE_APPLICANT,
  ) {}

  private once<T>(name: string, make: () => Promise<T>): Promise<T> {
    let promise = this.memo.get(name) as Promise<T> | undefined;
    if (!promise) {
      promise = make();
      this.memo.set(name, promise);
    }
    return promise;
  }

  private get deliveries(): number {
    return this.context.receiver?.deliveries.length ?? 0;
  }

  applicant(): Promise<{ id: string; created: Exchange }> {
    return this.once('applicant', async () => {
      const created = await call(this.context, 'POST', '/v1/applicants', { role: 'api', purpose: 'fixture', json: this.applicantBody });
      const id = idOf(created);
      if (!isSuccess(created.status) || !id) {
        throw new FixtureError(
          `the kit could not create its applicant: POST /v1/applicants answered ${shown(created)}; if the implementation takes other applicant fields (they are not shown by the specification), give a body it accepts with --applicant-file`,
        );
      }
      return { id, created };
    });
  }

  /** A passport, as a PDF with a text layer, uploaded for the applicant. */
  document(): Promise<UploadedDocument> {
    return this.once('document', async () => {
      const applicant = await this.applicant();
      return this.upload({ type: 'passport', applicant_id: applicant.id }, { name: 'passport.pdf', contentType: 'application/pdf', bytes: samplePassportPdf() }, 'fixture');
    });
  }

  async upload(fields: Record<string, string | undefined>, file: { name: string; contentType: string; bytes: Uint8Array }, purpose: string): Promise<UploadedDocument> {
    const boundary = `svc-kit-${randomBytes(12).toString('hex')}`;
    const deliveriesBefore = this.deliveries;
    const uploaded = await call(this.context, 'POST', '/v1/documents', {
      role: 'api',
      purpose,
      body: multipartBody(fields, file, boundary),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const id = idOf(uploaded);
    if (purpose === 'fixture' && (!isSuccess(uploaded.status) || !id)) {
      throw new FixtureError(`the kit could not upload its passport (a PDF, as multipart/form-data with the fields type and file): POST /v1/documents answered ${shown(uploaded)}`);
    }
    return { id: id ?? '', uploaded, deliveriesBefore };
  }

  async createReport(purpose: string): Promise<CreatedReport> {
    const applicant = await this.applicant();
    const deliveriesBefore = this.deliveries;
    const created = await call(this.context, 'POST', '/v1/reports', { role: 'api', purpose, json: sampleReportRequest(applicant.id) });
    const id = idOf(created);
    if (!isSuccess(created.status) || !id) throw new FixtureError(`the kit could not create a report: POST /v1/reports answered ${shown(created)}`);
    this.reports.add(id);
    return { id, created, deliveriesBefore };
  }

  /** The report every check of a report looks at, as created. */
  firstReport(): Promise<CreatedReport> {
    return this.once('first', async () => {
      // The passport goes first, as an applicant's documents come before their report.
      if (this.context.receiver) await this.document();
      return this.createReport('fixture');
    });
  }

  /** The same report once completed. */
  completedReport(): Promise<FinishedReport> {
    return this.once('completed', async () => {
      const report = await this.firstReport();
      return { ...report, finished: await this.waitFinished(report) };
    });
  }

  /** A second report of the same input, for determinism. */
  twinReport(): Promise<FinishedReport> {
    return this.once('twin', async () => {
      await this.completedReport();
      const report = await this.createReport('fixture');
      return { ...report, finished: await this.waitFinished(report) };
    });
  }

  /** Waits until the report is completed: on its report.completed event when webhooks arrive, polling GET in any case. */
  async waitFinished(report: CreatedReport): Promise<Exchange> {
    const deadline = Date.now() + this.context.timeouts.completionMs;
    const receiver = this.context.receiver;
    for (let interval = 250; ; interval = Math.min(interval * 2, receiver ? 4_000 : 5_000)) {
      const got = await call(this.context, 'GET', `/v1/reports/${report.id}`, { role: 'api', purpose: 'fixture' });
      const status = field(got, 'status');
      if (isSuccess(got.status) && status === 'completed') return got;
      if (!isSuccess(got.status)) throw new FixtureError(`the kit's report ${report.id} could not be read back: GET /v1/reports/${report.id} answered ${shown(got)}`);
      if (typeof status === 'string' && /fail|error|reject/i.test(status)) {
        throw new FixtureError(`the kit's report ${report.id} ended ${status} (${JSON.stringify(field(got, 'error') ?? null)}); if the sample applicant does not suit the implementation, give one with --applicant-file`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new FixtureError(`the kit's report ${report.id} was still ${JSON.stringify(status)} ${this.context.timeouts.completionMs / 1000} s after its creation`);
      if (receiver) {
        await receiver.waitFor((delivery) => eventOf(delivery).type?.startsWith('report.') === true && eventOf(delivery).type !== 'report.created' && mentions(delivery.json, report.id), Math.min(interval, left), report.deliveriesBefore);
      } else {
        await sleep(Math.min(interval, left));
      }
    }
  }

  /** A key made with the admin key through POST /v1/keys, an operation the specification does not show: skipped where it is missing. */
  createdKey(purpose: string): Promise<CreatedKey> {
    return this.once(`key ${purpose}`, async () => {
      const created = await call(this.context, 'POST', '/v1/keys', { role: 'admin', purpose: 'fixture', json: { name: `svc contract verify ${purpose}` } });
      const id = idOf(created);
      const secret = findSecret(created.json);
      if (!isSuccess(created.status) || !id || !secret) {
        throw new CheckSkipped(
          `needs a key to revoke, made through POST /v1/keys with the admin key (key creation through the API is not shown by the specification), and the implementation answered ${shown(created)}`,
        );
      }
      this.keys.set(id, secret);
      return { id, secret, created };
    });
  }

  /** Deletes the reports and revokes the keys the run made; what fails is reported, not thrown. */
  async cleanup(): Promise<string[]> {
    const problems: string[] = [];
    for (const id of this.reports) {
      if (this.deleted.has(id)) continue;
      const answer = await call(this.context, 'DELETE', `/v1/reports/${id}`, { role: 'api', purpose: 'cleanup' }).catch((error: Error) => error);
      if (answer instanceof Error) problems.push(`DELETE /v1/reports/${id}: ${answer.message}`);
      else if (isSuccess(answer.status) || answer.status === 404 || answer.status === 410) this.deleted.add(id);
      else problems.push(`DELETE /v1/reports/${id} answered ${answer.status}`);
    }
    for (const id of this.keys.keys()) {
      if (this.revoked.has(id) || !this.context.keys.admin) continue;
      const answer = await call(this.context, 'DELETE', `/v1/keys/${id}`, { role: 'admin', purpose: 'cleanup' }).catch((error: Error) => error);
      if (answer instanceof Error) problems.push(`DELETE /v1/keys/${id}: ${answer.message}`);
      else if (isSuccess(answer.status)) this.revoked.add(id);
      else problems.push(`DELETE /v1/keys/${id} answered ${answer.status}`);
    }
    return problems;
  }
}

/** The secret of a key just made: the field is not shown, so any `svc_…` string of the answer. */
function findSecret(value: unknown): string | undefined {
  if (typeof value === 'string') return /^svc_(live|test|admin)_[A-Za-z0-9_-]{8,}$/.test(value) ? value : undefined;
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) {
      const found = findSecret(item);
      if (found) return found;
    }
  }
  return undefined;
}
