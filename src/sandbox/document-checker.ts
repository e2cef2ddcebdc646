import type { Worker } from 'node:worker_threads';
import { ownWorker } from '../package-files.js';
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
 * A check that uses no processor time (waiting on something that never comes) is stopped after this
 * many times its time budget of wall-clock time; a busy machine slows a check far less than that.
 */
const STALLED_FACTOR = 10;
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
      /** The worker thread's processor time when the check began, in µs. */
      let startedAt: number | undefined;
      const settle = (check: DocumentCheck) => {
        if (settled) return;
        settled = true;
        clearTimeout(stalled);
        clearInterval(watch);
        this.running.delete(worker);
        void worker.terminate();
        resolve(check);
      };
      const overMemory = () => overBudget(`needed more than the sandbox's budget of ${memoryMb} MiB of memory`);
      const overTime = () => overBudget(`needed more than the sandbox's budget of ${timeMs / 1000} s of processor time`);
      const processorTime = async () => {
        const usage = await worker.cpuUsage();
        return usage.user + usage.system;
      };
      const stalled = setTimeout(() => settle(overBudget(`took longer than ${(timeMs * STALLED_FACTOR) / 1000} s`)), timeMs * STALLED_FACTOR);
      const watch = setInterval(() => {
        if (process.memoryUsage.rss() - baseline > memoryMb * MIB) return settle(overMemory());
        if (startedAt === undefined) return;
        const began = startedAt;
        processorTime().then(
          (now) => now - began > timeMs * 1000 && settle(overTime()),
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
