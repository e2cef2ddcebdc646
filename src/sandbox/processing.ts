import type { Document, Report } from '../api/types.js';
import { analyseReport } from './analysis.js';
import { analyseDocument, rejectionByStart, SIGNATURE_BYTES } from './document-check.js';
import { type DocumentCheckBudget, DocumentChecker } from './document-checker.js';
import type { EventLog } from './events.js';
import { nowIso } from '../core/ids.js';
import type { SandboxStore } from './database.js';

export interface ProcessingOptions {
  /** Time between upload or creation and the end of the analysis, so the queued state is observable. */
  delayMs: number;
  /** Called after each commit that recorded events. */
  onEvents: () => void;
  /** The sandbox's, where document checks read the documents' content. */
  dataDir: string;
  documentCheckBudget: DocumentCheckBudget;
}

function today(): string {
  return nowIso().slice(0, 10);
}

/**
 * The asynchronous half of the API (part 3): documents are checked and parsed, reports analysed,
 * each outcome committed with its events. Work pending at a restart is taken up again from the store.
 */
export class Processing {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private readonly checker: DocumentChecker;
  private stopped = false;

  constructor(
    private readonly store: SandboxStore,
    private readonly events: EventLog,
    private readonly options: ProcessingOptions,
  ) {
    this.checker = new DocumentChecker(options.dataDir, options.documentCheckBudget);
  }

  resume(): void {
    for (const { workspaceId, document } of this.store.documentsInStatus('processing')) this.scheduleDocument(workspaceId, document.id);
    for (const { workspaceId, report } of this.store.reportsInStatus('queued', 'processing')) this.scheduleReport(workspaceId, report.id);
  }

  scheduleDocument(workspaceId: string, id: string, delayMs = this.options.delayMs): void {
    this.later(delayMs, () => this.processDocument(workspaceId, id));
  }

  scheduleReport(workspaceId: string, id: string, delayMs = this.options.delayMs): void {
    this.later(delayMs, () => this.processReport(workspaceId, id));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    await this.checker.stop();
    await Promise.allSettled([...this.running]);
  }

  private later(delayMs: number, work: () => Promise<void>): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = work().finally(() => this.running.delete(run));
      this.running.add(run);
    }, delayMs);
    this.timers.add(timer);
  }

  private async processDocument(workspaceId: string, id: string): Promise<void> {
    const document = this.store.document(workspaceId, id);
    if (!document || document.status !== 'processing') return;
    // A file its first bytes condemn is rejected at once, not queued behind the checks of other uploads.
    const start = this.store.documentStart(id, SIGNATURE_BYTES);
    const check = (start && rejectionByStart(start)) ?? (await this.checker.check(id));
    if (this.stopped) return;
    let processed: Document;
    if (!check.ok) {
      processed = { ...document, status: 'rejected', rejection: check.rejection };
    } else {
      const applicant = document.applicant_id ? this.store.applicant(workspaceId, document.applicant_id) : undefined;
      const analysis = analyseDocument({ type: document.type, text: check.text, applicant, today: today() });
      processed = { ...document, status: 'analysed', content_type: check.contentType, red_flags: analysis.red_flags, extracted: analysis.extracted };
    }
    this.store.transaction(() => {
      this.store.saveDocument(processed);
      if (processed.status === 'rejected') {
        this.events.record(workspaceId, 'document.rejected', { id, type: processed.type, status: 'rejected', reason: processed.rejection });
      } else {
        const data = { id, type: processed.type, status: processed.status, red_flags: processed.red_flags };
        this.events.record(workspaceId, 'document.processed', data);
        this.events.record(workspaceId, 'document.parsed', data);
      }
    });
    this.options.onEvents();
  }

  private async processReport(workspaceId: string, id: string): Promise<void> {
    const report = this.store.report(workspaceId, id);
    if (!report || (report.status !== 'queued' && report.status !== 'processing')) return;
    const applicant = this.store.applicant(workspaceId, report.applicant_id);
    const documents = this.store.documentsOfApplicant(workspaceId, report.applicant_id);
    // A report waits for its applicant's documents however long a loaded machine takes: each check ends,
    // stopped at its budget of processor time or when it stalls, and a restart takes it up again.
    if (documents.some((document) => document.status === 'processing')) {
      return this.scheduleReport(workspaceId, id, Math.max(50, this.options.delayMs / 2));
    }
    const completedAt = nowIso();
    const outcome = applicant
      ? analyseReport({
          applicant,
          documents,
          destination: report.destination,
          visa_type: report.visa_type,
          purpose: report.purpose,
          today: completedAt.slice(0, 10),
        })
      : ({ outcome: 'failed', error: { code: 'invalid_input', message: `applicant ${report.applicant_id} no longer exists` } } as const);
    const finished: Report =
      outcome.outcome === 'completed'
        ? {
            ...report,
            status: 'completed',
            risk_score: outcome.risk_score,
            score_band: outcome.score_band,
            criteria: outcome.criteria,
            recommendations: outcome.recommendations,
            completed_at: completedAt,
          }
        : { ...report, status: 'failed', error: outcome.error, completed_at: completedAt };
    this.store.transaction(() => {
      this.store.saveReport(finished);
      if (finished.status === 'completed') {
        this.events.record(workspaceId, 'report.completed', { id, risk_score: finished.risk_score, risk_band: finished.score_band, completed_at: completedAt });
      } else {
        this.events.record(workspaceId, 'report.failed', { id, error: finished.error });
      }
    });
    this.options.onEvents();
  }
}
