import { parentPort, workerData } from 'node:worker_threads';
import type { BatchReply, Delivery, IntakeOptions, IntakeResult, Job, JobOutcome } from './intake.js';
import { EventStore } from './store.js';
import { verifyDelivery } from './verify.js';

// Verification and the store's writes run on this thread: a commit's disk sync never stalls the
// receiver's event loop, which keeps reading deliveries while the previous batch is synced.
const options = workerData as IntakeOptions;
const store = new EventStore(options.file);
const port = parentPort!;

function receive(delivery: Delivery): IntakeResult {
  const verdict = verifyDelivery(delivery.headers, delivery.body, { secrets: options.secrets, toleranceSeconds: options.toleranceSeconds });
  if (!verdict.ok) {
    try {
      store.reject(verdict.claimed, verdict, delivery);
    } catch {
      // Kept for inspection only; the delivery is refused all the same.
    }
    return { result: 'rejected', claimed: verdict.claimed, reason: verdict.reason, detail: verdict.detail };
  }
  const wanted = !options.eventTypes || options.eventTypes.includes(verdict.event.type);
  const forwardUrl = options.forwardTo !== undefined && wanted ? options.forwardTo : null;
  const stored = store.accept(verdict.event, { ...delivery, forwardUrl });
  return { result: stored.duplicate ? 'duplicate' : 'accepted', event: verdict.event, seq: stored.seq, forwardUrl };
}

port.on('message', (batch: Job[] | 'close') => {
  if (batch === 'close') {
    store.close();
    port.close();
    return;
  }
  const outcomes: JobOutcome[] = [];
  try {
    store.transaction(() => {
      // A failing statement undoes only itself; the rest of the batch still commits.
      for (const job of batch) {
        try {
          outcomes.push({ ok: true, value: job.op === 'receive' ? receive(job.delivery) : store.recordForward(job.seq, job.outcome, job.at) });
        } catch (error) {
          outcomes.push({ ok: false, error: (error as Error).message });
        }
      }
    });
    port.postMessage({ outcomes } satisfies BatchReply);
  } catch (error) {
    port.postMessage({ error: (error as Error).message } satisfies BatchReply);
  }
});
port.postMessage('ready');
