import { createSecretKey } from 'node:crypto';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { type Delivery, type IntakeResult, MAX_WRITES_PER_TRANSACTION, REJECTED_EXPIRY_INTERVAL_MS } from './event-intake.js';
import type { BatchReply, IntakeOptions, Job, JobOutcome } from './intake.js';
import { EventStore } from './sqlite-store.js';
import { verifyDelivery } from './verify.js';

// Verification and the store's writes run on this thread: a commit's disk sync never stalls the
// receiver's event loop, which keeps reading deliveries while the previous transaction is synced.
const options = workerData as IntakeOptions;
const store = new EventStore(options.file);
const port = parentPort!;
const keys = options.secrets.map((secret) => createSecretKey(secret, 'utf8'));

function expireRejected(): void {
  try {
    store.transaction(() => store.trimRejected(options.rejectedLimits, Date.now()));
  } catch {
    // Another writer holds the store: the next turn, or the next rejected delivery, trims.
  }
}

// Rejected deliveries are held within their limits as the worker starts, after each one stored, and every minute.
expireRejected();
const expiry = setInterval(expireRejected, REJECTED_EXPIRY_INTERVAL_MS);

function receive(delivery: Delivery): IntakeResult {
  const verdict = verifyDelivery(delivery.headers, delivery.body, {
    secrets: keys,
    toleranceSeconds: options.toleranceSeconds,
    encodings: options.encodings,
    signedPayloads: options.signedPayloads,
    strictSchema: options.strictSchema,
  });
  if (!verdict.ok) {
    try {
      store.reject(verdict.claimed, verdict, delivery);
      store.trimRejected(options.rejectedLimits, Date.now());
    } catch {
      // Kept for inspection only; the delivery is refused all the same.
    }
    return { result: 'rejected', claimed: verdict.claimed, reason: verdict.reason, detail: verdict.detail, schemaNotes: verdict.schemaNotes };
  }
  const wanted = !options.eventTypes || options.eventTypes.includes(verdict.event.type);
  const forwardUrl = options.forwardTo !== undefined && wanted ? options.forwardTo : null;
  const stored = store.accept(verdict.event, { ...delivery, forwardUrl }, verdict.schemaNotes);
  return { result: stored.duplicate ? 'duplicate' : 'accepted', event: verdict.event, schemaNotes: verdict.schemaNotes, seq: stored.seq, forwardUrl };
}

function run(job: Job): JobOutcome {
  try {
    return { ok: true, value: job.op === 'receive' ? receive(job.delivery) : store.recordForward(job.seq, job.outcome, job.at) };
  } catch (error) {
    // A failing statement undoes only itself; the rest of the transaction still commits.
    return { ok: false, error: (error as Error).message };
  }
}

function close(): void {
  clearInterval(expiry);
  store.close();
  port.close();
}

/** The jobs that woke the worker and those waiting behind them in the inbox, up to the limit. */
function takeWaiting(first: Job[]): { jobs: Job[]; closeAfter: boolean } {
  const jobs = [...first];
  while (jobs.length < MAX_WRITES_PER_TRANSACTION) {
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
