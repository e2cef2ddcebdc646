import type { Clock } from '../core/clock.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { readsAsFailure } from '../api/report-outcome.js';
import type { SignatureEncoding } from '../webhooks/signature.js';
import type { JsonObject } from '../core/json-object.js';
import type { Level } from './catalogue.js';
import { describeEncoding, documentRequest, type KitFixtures, passportFile, reportBody, type UploadFile } from './fixtures.js';
import type { Exchange, ImplementationClient, Purpose } from './http.js';
import { CheckSkipped, isSuccess, SetupError, shown } from './outcome.js';
import { eventOf, mentions, type WebhookReceiver } from './receiver.js';
import { reportEnd } from './report-end.js';
import { sampleUnsafeFile } from './samples.js';
import type { KitKeys, KitTimeouts, RevocableKey } from './kit-keys.js';
import { sendWithKey, field, idOf } from './requests.js';
import type { GeneratedRun } from './generated/plan.js';

export interface KitContext {
  level: Level;
  client: ImplementationClient;
  keys: KitKeys;
  webhookSecret?: string | undefined;
  /** The one encoding of v1 taken at level spec, when the user knows it; both otherwise. */
  signatureEncoding?: SignatureEncoding | undefined;
  receiver?: WebhookReceiver | undefined;
  fixtures: KitFixtures;
  setup: SharedSetup;
  timeouts: KitTimeouts;
  /** `--fast`: the run leaves out what waits out the specification's own delays (a redelivery, a rate-limit window). */
  fast?: boolean | undefined;
  /** The time rate-limit waits are counted in (the client's). */
  clock?: Clock | undefined;
  log: (line: string) => void;
  /** The seed and the request budget of the generated checks, once the checks before them are done. */
  generated?: GeneratedRun | undefined;
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

/** The report the kit expects to fail (see SharedSetup.failingReport). */
export interface ProvokedFailure extends CreatedReport {
  /** Whether its input is the user's failing_report, which the implementation is said to fail. */
  given: boolean;
  /** Its input, in words. */
  input: string;
  /** Its last read: failed, completed, or unfinished when the report timeout passed. */
  read: Exchange;
}

export const DEFAULT_FAILING_INPUT = 'the report for an applicant whose only document was rejected';

export interface UploadedDocument {
  /** The id of the answer; empty when it gave none (the answer to an upload is not shown). */
  id: string;
  uploaded: Exchange;
  deliveriesBefore: number;
}

export interface KeyToRevoke extends RevocableKey {
  /** The answer that made it, for a key the run made through the API; none for a key given to the run (made in the dashboard). */
  created: Exchange | undefined;
  /** The id of the key of --revocable-key-id, when the run made its own instead and left that one untouched. */
  untouched?: string | undefined;
  /** Why the run could not make a key of its own (POST /v1/keys answered …), when it was given the admin key to make one. */
  notMade?: string | undefined;
}

/** The key the revocation checks revoke, with its first use: what it answered before any revocation. */
export interface RevocationKey extends KeyToRevoke {
  before: Exchange;
}

/** What to supply when the implementation refuses one of the kit's inputs (their shapes are not shown by the specification). */
export const SUPPLY = {
  applicant: 'give a body the implementation takes as "applicant" in --fixtures (applicant fields are not shown by the specification)',
  report:
    'give the fields the implementation takes as "report" in --fixtures (destination, visa_type, purpose; their values are not shown by the specification)',
  document: 'give the encoding the implementation takes as "document" in --fixtures (the upload encoding is not shown by the specification)',
  failingReport:
    'give as "failing_report" in --fixtures an input the implementation takes and then ends the report of in its failed outcome (the specification states no such input)',
} as const;

/** A body the kit sends to make something, and what the user can give when it is refused. */
interface Input {
  body: JsonObject;
  supply: string;
}

/** The kit's report did not finish in time: a failure of reports.completes, and for every other check a setup that could not be done. */
export class ReportUnfinished extends SetupError {}

/**
 * What the checks share, made once through the public API only, from the fixtures: an applicant,
 * a passport, reports (one finished, one twin for determinism), a key to revoke. The kit deletes
 * the reports and revokes the keys it made when the run ends.
 */
export class SharedSetup {
  private readonly memo = new Map<string, Promise<unknown>>();
  readonly reports = new Set<string>();
  readonly deleted = new Set<string>();
  readonly keys = new Map<string, string>();
  readonly revoked = new Set<string>();

  constructor(private readonly context: Omit<KitContext, 'setup'>) {}

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

  /** An applicant made from the fixtures' body (or another input's); `name` tells apart the kit's applicants. */
  applicant(name = 'main', input: Input = { body: this.context.fixtures.applicant, supply: SUPPLY.applicant }): Promise<{ id: string; created: Exchange }> {
    return this.once(`applicant ${name}`, async () => {
      const created = await sendWithKey(this.context, 'POST', '/v1/applicants', { role: 'api', purpose: 'fixture', json: input.body });
      const id = idOf(created);
      if (!isSuccess(created.status) || !id) {
        throw new SetupError(`the kit could not create an applicant: POST /v1/applicants answered ${shown(created)}`, input.supply);
      }
      return { id, created };
    });
  }

  /** The request that uploads `file` for `applicantId`, in the fixtures' shape. */
  documentRequest(applicantId: string, file: UploadFile): Promise<{ path: string; headers: Record<string, string>; body: Uint8Array }> {
    return documentRequest(this.context.fixtures.document, applicantId, file);
  }

  /** The passport of the fixtures (or the kit's sample), uploaded for the applicant. */
  document(): Promise<UploadedDocument> {
    return this.once('document', async () => {
      const applicant = await this.applicant();
      const upload = await this.upload(applicant.id, passportFile(this.context.fixtures), 'fixture');
      if (!isSuccess(upload.uploaded.status) || !upload.id) {
        throw new SetupError(
          `the kit could not upload its passport (${describeEncoding(this.context.fixtures.document)}): POST /v1/documents answered ${shown(upload.uploaded)}`,
          SUPPLY.document,
        );
      }
      return upload;
    });
  }

  async upload(applicantId: string, file: UploadFile, purpose: Purpose, role: 'api' | 'readOnly' = 'api'): Promise<UploadedDocument> {
    const request = await this.documentRequest(applicantId, file);
    const deliveriesBefore = this.deliveries;
    const uploaded = await sendWithKey(this.context, 'POST', request.path, { role, purpose, body: request.body, headers: request.headers });
    return { id: idOf(uploaded) ?? '', uploaded, deliveriesBefore };
  }

  /** A report of the fixtures (or of another input) for the kit's main applicant, or for another of its applicants. */
  async createReport(
    purpose: Purpose,
    applicantId?: string,
    input: Input = { body: this.context.fixtures.report, supply: SUPPLY.report },
  ): Promise<CreatedReport> {
    const applicant = applicantId ?? (await this.applicant()).id;
    const deliveriesBefore = this.deliveries;
    const created = await sendWithKey(this.context, 'POST', '/v1/reports', { role: 'api', purpose, json: reportBody({ report: input.body }, applicant) });
    const id = idOf(created);
    if (!isSuccess(created.status) || !id) {
      throw new SetupError(`the kit could not create a report: POST /v1/reports answered ${shown(created)}`, input.supply);
    }
    this.reports.add(id);
    return { id, created, deliveriesBefore };
  }

  /** The report every check of a report looks at, as created. */
  firstReport(): Promise<CreatedReport> {
    return this.once('first', async () => {
      // The passport goes first, as an applicant's documents come before their report, so that the
      // report and its twin are made of the same documents. The specification asks for no document
      // before a report: a refused upload leaves the report to go without it (the document checks say why).
      await this.document().catch(() => undefined);
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
    const { completionMs } = this.context.timeouts;
    const deadline = Date.now() + completionMs;
    const receiver = this.context.receiver;
    for (let interval = 250; ; interval = Math.min(interval * 2, receiver ? 4_000 : 5_000)) {
      const got = await sendWithKey(this.context, 'GET', `/v1/reports/${report.id}`, { role: 'api', purpose: 'fixture' });
      const status = field(got, 'status');
      if (isSuccess(got.status) && status === 'completed') return got;
      if (!isSuccess(got.status))
        throw new SetupError(`the kit's report ${report.id} could not be read back: GET /v1/reports/${report.id} answered ${shown(got)}`);
      if (readsAsFailure(status)) {
        throw new SetupError(
          `the kit's report ${report.id} ended ${String(status)} (${JSON.stringify(field(got, 'error') ?? null)})`,
          'if the applicant or report of the fixtures does not suit the implementation, give others in --fixtures',
        );
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new ReportUnfinished(
          `the kit's report ${report.id} was still ${JSON.stringify(status)} ${completionMs / 1000} s after its creation`,
          'for a slow implementation, give a longer --report-timeout',
        );
      if (receiver) {
        await receiver.waitFor(
          (delivery) =>
            eventOf(delivery).type?.startsWith('report.') === true && eventOf(delivery).type !== 'report.created' && mentions(delivery.json, report.id),
          Math.min(interval, left),
          report.deliveriesBefore,
        );
      } else {
        await sleep(Math.min(interval, left));
      }
    }
  }

  /**
   * A Windows executable uploaded as a passport for an applicant of its own (a rejected document
   * may fail the reports of its applicant, so it stays away from the kit's main applicant).
   */
  rejectedUpload(): Promise<UploadedDocument & { applicantId: string }> {
    return this.once('rejected upload', async () => {
      const applicant = await this.applicant('rejected');
      const upload = await this.upload(
        applicant.id,
        { name: 'passport.exe', contentType: 'application/octet-stream', bytes: sampleUnsafeFile() },
        'documents.rejected',
      );
      return { ...upload, applicantId: applicant.id };
    });
  }

  /**
   * The report the kit expects to fail, and its last read: the failing_report of the fixtures, which
   * the user says the implementation fails, when given (what keeps it from being made is then a
   * setup error); else a report for the applicant whose only document was rejected (part 3 names
   * unreadable documents as what fails a report), undefined when it could not be made.
   */
  failingReport(): Promise<ProvokedFailure | undefined> {
    return this.once('failing report', async () => {
      const given = this.context.fixtures.failingReport;
      if (!given) {
        const upload = await this.rejectedUpload();
        const refused = upload.uploaded.status >= 400 && upload.uploaded.status < 500;
        const input = refused ? `the report for an applicant whose only document was refused at upload (${upload.uploaded.status})` : DEFAULT_FAILING_INPUT;
        const report = await this.createReport('events.report-failed', upload.applicantId).catch(() => undefined);
        return report && { ...report, given: false, input, read: await this.finishOf(report.id, 'events.report-failed') };
      }
      const { fixtures } = this.context;
      const applicant = await this.applicant('failing', { body: { ...fixtures.applicant, ...given.applicant }, supply: SUPPLY.failingReport });
      if (given.file) {
        const upload = await this.upload(applicant.id, given.file, 'events.report-failed');
        if (!isSuccess(upload.uploaded.status)) {
          throw new SetupError(
            `the kit could not upload failing_report.file (${given.file.name}, ${describeEncoding(fixtures.document)}): POST /v1/documents answered ${shown(upload.uploaded)}`,
            SUPPLY.failingReport,
          );
        }
      }
      const report = await this.createReport('events.report-failed', applicant.id, {
        body: { ...fixtures.report, ...given.report },
        supply: SUPPLY.failingReport,
      });
      return { ...report, given: true, input: 'the failing_report of --fixtures', read: await this.finishOf(report.id, 'events.report-failed') };
    });
  }

  /** Polls a report until it completes or reads as failed; its last read when the report timeout passes first. */
  async finishOf(id: string, purpose: Purpose): Promise<Exchange> {
    const deadline = Date.now() + this.context.timeouts.completionMs;
    for (let interval = 250; ; interval = Math.min(interval * 2, 5_000)) {
      const read = await sendWithKey(this.context, 'GET', `/v1/reports/${id}`, { role: 'api', purpose });
      if (reportEnd(read, this.context.timeouts.completionMs).outcome !== 'unfinished' || Date.now() >= deadline) return read;
      await sleep(Math.min(interval, deadline - Date.now()));
    }
  }

  /**
   * The key the revocation checks revoke: one the run makes with the admin key through POST /v1/keys
   * (an operation the specification does not show), known to no other run, so that it is the only
   * key the run revokes; else the one of `--revocable-key-id`, made in the dashboard (part 5), which
   * a run given the admin key then revokes; skipped where there is neither.
   */
  keyToRevoke(purpose: Purpose): Promise<KeyToRevoke> {
    return this.once(`key ${purpose}`, async () => {
      const given = this.context.keys.revocable;
      const made = this.context.keys.admin ? await this.makeKey(purpose) : undefined;
      if (made && 'secret' in made) return { ...made, untouched: given?.id };
      if (given) return { ...given, created: undefined, notMade: made?.refused };
      throw new CheckSkipped(
        `needs a key to revoke: give one made in the dashboard with --revocable-key-id and --revocable-key (key creation through the API is not shown by the specification; ${made?.refused ?? 'no admin key to make one with'})`,
      );
    });
  }

  /** A key made with the admin key, which the run revokes at its end unless a check did; why not, when the implementation made none. */
  private async makeKey(purpose: Purpose): Promise<KeyToRevoke | { refused: string }> {
    const created = await sendWithKey(this.context, 'POST', '/v1/keys', {
      role: 'admin',
      purpose: 'fixture',
      json: { name: `svc contract verify ${purpose}` },
    });
    const id = idOf(created);
    const secret = findSecret(created.json);
    if (!isSuccess(created.status) || !id || !secret) return { refused: `POST /v1/keys answered ${shown(created)}` };
    this.keys.set(id, secret);
    return { id, secret, created };
  }

  /**
   * The key the revocation checks share, and its first use (GET /v1/reports with it). A key given to
   * the run that does not work then is a precondition not met, not a verdict: a key of the dashboard
   * can be revoked only once, so an earlier run, or one beside this one given the same key, may have
   * spent it. The checks that need it are skipped, naming it and what to give instead.
   */
  revocationKey(): Promise<RevocationKey> {
    return this.once('revocation key', async () => {
      const key = await this.keyToRevoke('revocation');
      const before = await this.useKeyToRevoke(key, 'auth.revocation');
      if (!key.created && !isSuccess(before.status)) {
        const state = before.status === 401 ? ' (revoked, expired or unknown: a key of the dashboard is spent by the first run that revokes it)' : '';
        throw new CheckSkipped(
          `the key to revoke, ${key.id} of --revocable-key-id, is not in the state the check needs: GET /v1/reports with it answered ${shown(before)}${state}; ${ownKeyAdvice(key)}`,
        );
      }
      return { ...key, before };
    });
  }

  /** One request with the key to revoke: whether it works. */
  useKeyToRevoke(key: RevocableKey, purpose: Purpose): Promise<Exchange> {
    return this.context.client.send({ method: 'GET', path: '/v1/reports', authorization: `Bearer ${key.secret}`, role: 'revocable', purpose });
  }

  /** Deletes the reports and revokes the keys the run made; what fails is reported, not thrown. */
  async cleanup(): Promise<string[]> {
    const problems: string[] = [];
    for (const id of this.reports) {
      if (this.deleted.has(id)) continue;
      const answer = await sendWithKey(this.context, 'DELETE', `/v1/reports/${id}`, { role: 'api', purpose: 'cleanup' }).catch((error: Error) => error);
      if (answer instanceof Error) problems.push(`DELETE /v1/reports/${id}: ${answer.message}`);
      else if (isSuccess(answer.status) || answer.status === 404 || answer.status === 410) this.deleted.add(id);
      else problems.push(`DELETE /v1/reports/${id} answered ${answer.status}`);
    }
    for (const id of this.keys.keys()) {
      if (this.revoked.has(id) || !this.context.keys.admin) continue;
      const answer = await sendWithKey(this.context, 'DELETE', `/v1/keys/${id}`, { role: 'admin', purpose: 'cleanup' }).catch((error: Error) => error);
      if (answer instanceof Error) problems.push(`DELETE /v1/keys/${id}: ${answer.message}`);
      else if (isSuccess(answer.status)) this.revoked.add(id);
      else problems.push(`DELETE /v1/keys/${id} answered ${answer.status}`);
    }
    return problems;
  }
}

/** What to give instead of a key to revoke that is spent, or that other runs may spend. */
export function ownKeyAdvice(key: Pick<KeyToRevoke, 'notMade'>): string {
  return key.notMade
    ? `the implementation makes no key through POST /v1/keys (${key.notMade}), so give each run a key of the dashboard of its own, made for it`
    : 'give each run a key of its own: --admin-key where the implementation makes keys through POST /v1/keys (the kit then makes one each run and revokes only that one), else a key of the dashboard made for the run';
}

/** The secret of a key just made: the field is not shown, so any `svc_…` string of the answer. */
export function findSecret(value: unknown): string | undefined {
  if (typeof value === 'string') return /^svc_(live|test|admin)_[A-Za-z0-9_-]{8,}$/.test(value) ? value : undefined;
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) {
      const found = findSecret(item);
      if (found) return found;
    }
  }
  return undefined;
}
