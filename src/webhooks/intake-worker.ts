import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { BatchReply, Job, JobOutcome } from './intake.js';
import { EventStore } from './store.js';

// The store's writes run on this thread: a commit's disk sync never stalls the receiver's event
// loop, which keeps reading and verifying deliveries while the previous transaction is synced.
const store = new EventStore((workerData as { file: string }).file);
const port = parentPort!;

/** A transaction takes at most this many jobs, so that a steady stream still gets its answers. */
const MAX_JOBS_PER_TRANSACTION = 1024;

function run(job: Job): JobOutcome {
  try {
    switch (job.op) {
      case 'accept':
        return { ok: true, value: store.accept(job.event, { ...job.delivery, forwardUrl: job.forwardUrl }) };
      case 'reject':
        return { ok: true, value: store.reject(job.claimed, job.rejection, job.delivery) };
      case 'forwarded':
        return { ok: true, value: store.recordForward(job.seq, job.outcome, job.at) };
    }
  } catch (error) {
    // A failing statement undoes only itself; the rest of the transaction still commits.
    return { ok: false, error: (error as Error).message };
  }
}

function close(): void {
  store.close();
  port.close();
}

/** The jobs that woke the worker and those waiting behind them in the inbox, up to the limit. */
function takeWaiting(first: Job[]): { jobs: Job[]; closeAfter: boolean } {
  const jobs = [...first];
  while (jobs.length < MAX_JOBS_PER_TRANSACTION) {
    const next = receiveMessageOnPort(port)?.message as Job[] | 'close' | undefined;
    if (next === undefined) break;
    if (next === 'close') return { jobs, closeAfter: true };
    jobs.push(...next);
  }
  return { jobs, closeAfter: false };
}

// Group commit: the jobs that arrived while the previous COMMIT was syncing share the next one.
port.on('message', (first: Job[] | 'close') => {
  if (first === 'close') return close();
  const { jobs, closeAfter } = takeWaiting(first);
  try {
    port.postMessage({ outcomes: store.transaction(() => jobs.map(run)) } satisfies BatchReply);
  } catch (error) {
    port.postMessage({ count: jobs.length, error: (error as Error).message } satisfies BatchReply);
  }
  if (closeAfter) close();
});
port.postMessage('ready');
