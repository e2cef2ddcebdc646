import type { ApiClient } from '../api/client.js';
import type { DocumentAnswer, ReportAnswer } from '../api/types.js';
import type { Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import { upsertApplicant } from '../services/applicants.js';
import { getDocument, uploadDocument } from '../services/documents.js';
import { createReport, getReport, waitForReport } from '../services/reports.js';
import { type EventBody, sampleEvent } from './samples.js';

/** What the events `webhooks trigger` sends are about. */
export interface TriggerOptions {
  /** The sandbox's API, through which resources are made or read; without it, the events name the ids given or fresh ones. */
  client: ApiClient | undefined;
  /** A report (rep_…) the report events name, instead of one made for them. */
  report: string | undefined;
  /** A document (doc_…) the document events name, instead of one made for them. */
  document: string | undefined;
  /** Fields set in every event, `data.risk_score` to 90 (as `stripe trigger --override`), after the resources. */
  overrides: readonly Override[];
  clock: Clock;
  /** What trigger made, for people. */
  note: (line: string) => void;
}

export interface Override {
  path: string[];
  value: unknown;
}

/**
 * How long a resource made for an event may take to be analysed: the sandbox takes half a second, but
 * checks one document at a time, and on a loaded machine with other uploads before it took over 30 s.
 */
const ANALYSIS_TIMEOUT_MS = 120_000;

/** Segments that would reach an object's prototype rather than a field of the event. */
const UNSAFE_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/** `data.risk_score=90`: a dotted path in the event and its value, JSON where it reads as JSON (90, true, null, "90"), else the text. */
export function parseOverride(text: string): Override {
  const equals = text.indexOf('=');
  const path = equals > 0 ? text.slice(0, equals).split('.') : [];
  const problem =
    path.length === 0 || path.some((segment) => segment === '')
      ? 'is not <path>=<value>'
      : path.some((segment) => UNSAFE_SEGMENTS.has(segment))
        ? 'names no field of an event'
        : path.length === 1 && path[0] === 'type'
          ? 'would make the body name another kind than the Service-Event header: give the kind as the argument'
          : undefined;
  if (problem) {
    throw new SvcError('usage', 'invalid_override', `--override ${text} ${problem}`, 'give a field of the event and its value, such as data.risk_score=90');
  }
  const raw = text.slice(equals + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  return { path, value };
}

function applyOverride(event: EventBody, { path, value }: Override): void {
  let node = event as unknown as Record<string, unknown>;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    node[segment] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {};
    node = node[segment] as Record<string, unknown>;
  }
  node[path.at(-1)!] = value;
}

/** The report and the document the events are about, each made or read once, on first use. */
class Resources {
  private applicantId: Promise<string> | undefined;
  private report: Promise<{ created: ReportAnswer; now: ReportAnswer }> | undefined;
  private document: Promise<DocumentAnswer> | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly options: TriggerOptions,
  ) {}

  /** The report as it was created (as read, when named) and as it is now. */
  reportOf(): Promise<{ created: ReportAnswer; now: ReportAnswer }> {
    this.report ??= this.options.report ? getReport(this.client, this.options.report).then((report) => ({ created: report, now: report })) : this.newReport();
    return this.report;
  }

  documentOf(): Promise<DocumentAnswer> {
    this.document ??= this.options.document ? getDocument(this.client, this.options.document) : this.newDocument();
    return this.document;
  }

  private applicant(): Promise<string> {
    this.applicantId ??= upsertApplicant(this.client, { given_names: 'Ana', surname: 'Silva', date_of_birth: '1990-01-02', nationality: 'PT' }).then(
      (applicant) => String(applicant.id),
    );
    return this.applicantId;
  }

  /** A report made and analysed, so that a handler reading it finds it finished. */
  private async newReport(): Promise<{ created: ReportAnswer; now: ReportAnswer }> {
    const created = await createReport(this.client, {
      applicant_id: await this.applicant(),
      destination: 'DE',
      visa_type: 'tourist',
      purpose: 'Two weeks visiting family in Berlin',
    });
    this.options.note(`Made the report ${created.id} in the sandbox; waiting for its analysis`);
    return { created, now: await waitForReport(this.client, String(created.id), { timeoutMs: ANALYSIS_TIMEOUT_MS, clock: this.options.clock }) };
  }

  /** A bank statement uploaded and analysed. */
  private async newDocument(): Promise<DocumentAnswer> {
    const uploaded = await uploadDocument(this.client, {
      file: { filename: 'statement.txt', contentType: 'text/plain', bytes: Buffer.from('Balance 1200 EUR on 2026-01-02\n') },
      type: 'bank_statement',
      applicantId: await this.applicant(),
    });
    const id = String(uploaded.id);
    this.options.note(`Uploaded the document ${id} to the sandbox; waiting for its analysis`);
    const deadline = this.options.clock.now() + ANALYSIS_TIMEOUT_MS;
    for (;;) {
      const document = await getDocument(this.client, id);
      if (document.status !== 'processing') return document;
      if (this.options.clock.now() >= deadline) {
        throw new SvcError(
          'timedOut',
          'wait_timed_out',
          `document ${id} is still processing after ${ANALYSIS_TIMEOUT_MS / 1000} s`,
          'try again with --document',
        );
      }
      await this.options.clock.sleep(250);
    }
  }
}

/** The `data` of an event of `type` about the sandbox's resources; a rejected document is discarded (part 3), so its event keeps the sample's id. */
async function dataOf(type: string, resources: Resources, sample: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (type === 'document.rejected') return sample;
  if (type.startsWith('document.')) {
    const document = await resources.documentOf();
    if (type !== 'document.parsed' && type !== 'document.processed') return { ...sample, id: document.id };
    return { id: document.id, type: document.type, status: document.status, red_flags: document.red_flags };
  }
  if (!type.startsWith('report.')) return sample;
  const { created, now: report } = await resources.reportOf();
  switch (type) {
    case 'report.created':
      return { ...created };
    case 'report.completed':
      return report.status === 'completed'
        ? { id: report.id, risk_score: report.risk_score, risk_band: report.score_band, completed_at: report.completed_at }
        : { ...sample, id: report.id };
    case 'report.failed':
      return { id: report.id, error: report.status === 'failed' && report.error ? report.error : sample.error };
    default:
      return { ...sample, id: report.id };
  }
}

/** The id a resource named by flag takes in an event sent elsewhere than the sandbox, where it is not read. */
function namedId(type: string, options: TriggerOptions): string | undefined {
  if (type === 'document.rejected') return undefined;
  if (type.startsWith('report.')) return options.report;
  if (type.startsWith('document.')) return options.document;
  return undefined;
}

/**
 * The events `webhooks trigger` sends: realistic samples of each kind, fresh event ids, about real
 * resources where svc can make or read them (the sandbox: a report made and analysed, a document
 * uploaded and analysed, or those named), else about the ids named or fresh ones; then the overrides.
 */
export async function triggerEvents(types: readonly string[], options: TriggerOptions): Promise<EventBody[]> {
  const resources = options.client && new Resources(options.client, options);
  const events: EventBody[] = [];
  for (const type of types) {
    const event = sampleEvent(type, options.clock.now());
    if (resources) event.data = await dataOf(type, resources, event.data);
    else {
      const id = namedId(type, options);
      if (id !== undefined) event.data = { ...event.data, id };
    }
    for (const override of options.overrides) applyOverride(event, override);
    events.push(event);
  }
  return events;
}
