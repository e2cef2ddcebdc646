import type { Worker } from 'node:worker_threads';
import { ownWorker } from '../core/package-files.js';
import { CHECK_STARTED, type DocumentCheck } from './document-check.js';

/** What one document's check may take; a document whose check needs more is rejected. */
export interface DocumentCheckBudget {
  /**
   * Processor time of the check itself (the worker's start aside): what the document costs,
   * whatever else the machine is doing.
   */
  timeMs: number;
  /** How much the process may grow while the check runs: the worker's heap and what PDF.js decodes. */
  memoryMb: number;
}

/** Enough for a few hundred pages of text; a passport scan or a bank statement needs a fraction. */
export const DEFAULT_DOCUMENT_CHECK_BUDGET: DocumentCheckBudget = { timeMs: 30_000, memoryMb: 256 };

/** How often the check's memory and processor time are compared with the budget. */
const WATCH_MS = 50;
/**
 * A check whose worker uses no processor time for this long waits on something that never comes: it
 * is stopped. On a busy machine a check runs slowly, never not at all.
 */
const STALL_MS = 10_000;
const MIB = 1024 * 1024;

/**
 * Checks documents off the event loop, one at a time, each in a worker thread of its own: a check that
 * runs past its time or memory budget is stopped and the document rejected, so no upload can stall or
 * exhaust the sandbox.
 */
export class DocumentChecker {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly running = new Set<Worker>();
  private stopped = false;

  /** `dataDir`: the sandbox's, whose store holds the documents' content. */
  constructor(
    private readonly dataDir: string,
    private readonly budget: DocumentCheckBudget,
  ) {}

  /** Checks a document still in the store with its content, reading the content in the worker. */
  check(documentId: string): Promise<DocumentCheck> {
    const check = this.queue.then(() => this.checkInWorker(documentId));
    this.queue = check.catch(() => undefined);
    return check;
  }

  /** Stops the checks under way and those waiting; their documents are left as they were. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.running].map((worker) => worker.terminate()));
  }

  private checkInWorker(documentId: string): Promise<DocumentCheck> {
    if (this.stopped) return Promise.resolve(failed('the sandbox is stopping'));
    const { timeMs, memoryMb } = this.budget;
    const baseline = process.memoryUsage.rss();
    const worker = ownWorker('sandbox/document-check-worker', {
      workerData: { dataDir: this.dataDir, documentId },
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    this.running.add(worker);
    return new Promise((resolve) => {
      let settled = false;
      /** The worker thread's processor time, in µs: when the check began, and at the last reading. */
      let startedAt: number | undefined;
      let used = 0;
      let progressedAt = Date.now();
      const settle = (check: DocumentCheck) => {
        if (settled) return;
        settled = true;
        clearInterval(watch);
        this.running.delete(worker);
        void worker.terminate();
        resolve(check);
      };
      const overMemory = () => overBudget(`needed more than the sandbox's budget of ${memoryMb} MiB of memory`);
      const overTime = () => overBudget(`needed more than the sandbox's budget of ${timeMs / 1000} s of processor time`);
      const stalled = () => overBudget(`made no progress for ${STALL_MS / 1000} s`);
      const processorTime = async () => {
        const usage = await worker.cpuUsage();
        return usage.user + usage.system;
      };
      const watch = setInterval(() => {
        if (process.memoryUsage.rss() - baseline > memoryMb * MIB) return settle(overMemory());
        processorTime().then(
          (now) => {
            if (now > used) {
              used = now;
              progressedAt = Date.now();
            } else if (Date.now() - progressedAt > STALL_MS) return settle(stalled());
            if (startedAt !== undefined && now - startedAt > timeMs * 1000) settle(overTime());
          },
          () => undefined, // the worker ended meanwhile: its own events settle the check
        );
      }, WATCH_MS);
      worker.on('message', (message: DocumentCheck | typeof CHECK_STARTED) => {
        if (message !== CHECK_STARTED) return settle(message);
        processorTime().then(
          (now) => (startedAt = now),
          () => undefined,
        );
      });
      worker.on('error', (error: Error & { code?: string }) => settle(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? overMemory() : failed(error.message)));
      worker.on('exit', (code) => settle(failed(`the check stopped with exit code ${code}`)));
    });
  }
}

function overBudget(what: string): DocumentCheck {
  return { ok: false, rejection: { code: 'check_budget_exceeded', message: `checking the document ${what}; upload a smaller or simpler file` } };
}

function failed(reason: string): DocumentCheck {
  return { ok: false, rejection: { code: 'unreadable', message: `the document could not be checked: ${reason}` } };
}
