import type { Network } from '../api/network.js';
import type { Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import { ANSWER_TIMEOUT_MS, isDelivered, sendEvent } from '../webhooks/send.js';
import type { SignatureEncoding } from '../webhooks/signature.js';
import type { Delivery, SandboxStore } from './database.js';

/** Part 6: the delays before attempts 2 to 7, then dead-letter. */
const RETRY_DELAYS_SECONDS = [30, 120, 600, 3600, 21_600, 43_200] as const;
const CONCURRENCY = 8;

/** A delivery's state after an attempt that ended at `endedAt`: delivered, dead, or due again after part 6's delay. */
export function afterAttempt(
  attempt: number,
  delivered: boolean,
  endedAt: number,
  timeScale: number,
): { status: 'delivered' | 'dead'; nextAttemptAt: null } | { status: 'pending'; nextAttemptAt: number } {
  if (delivered) return { status: 'delivered', nextAttemptAt: null };
  const delay = RETRY_DELAYS_SECONDS[attempt - 1];
  if (delay === undefined) return { status: 'dead', nextAttemptAt: null };
  return { status: 'pending', nextAttemptAt: endedAt + (delay * 1000) / timeScale };
}

export interface DispatcherOptions {
  secret: string;
  signatureEncoding: SignatureEncoding;
  /** Divides every retry delay, so a test can run the 24 h schedule in seconds. */
  timeScale: number;
  /** The proxies and trust its deliveries go through. */
  network: Network;
  log?: ((line: string) => void) | undefined;
  /** The time the schedule is read and waited on. */
  clock: Clock;
}

/**
 * Delivers due webhook deliveries from the store: at least once, with part 6's retry schedule
 * and dead-letter. The store is the queue, so deliveries due across a restart are not lost.
 */
export class WebhookDispatcher {
  /** Ends the wait on the clock for a delivery's next attempt, when something is due sooner or the dispatcher stops. */
  private pause: AbortController | undefined;
  /** The next look at the store when nothing is due on the schedule. */
  private idle: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<number>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly store: SandboxStore,
    private readonly options: DispatcherOptions,
  ) {}

  start(): void {
    this.wake();
  }

  /** Looks for due deliveries now and sets the timer for the next one. */
  wake(): void {
    if (this.stopped) return;
    this.pause?.abort();
    clearTimeout(this.idle);
    const { clock } = this.options;
    const due = this.store.dueDeliveries(clock.now(), CONCURRENCY * 4).filter((delivery) => !this.inFlight.has(delivery.id));
    for (const delivery of due) {
      if (this.inFlight.size >= CONCURRENCY) break;
      this.inFlight.add(delivery.id);
      const attempt = this.attempt(delivery).finally(() => {
        this.inFlight.delete(delivery.id);
        this.running.delete(attempt);
        this.wake();
      });
      this.running.add(attempt);
    }
    const next = this.store.nextDueAt([...this.inFlight]);
    if (next !== undefined && this.inFlight.size < CONCURRENCY) {
      // The retry schedule is waited on the clock, in one sleep: a test's clock then steps to it at once.
      const pause = new AbortController();
      this.pause = pause;
      clock.sleep(Math.max(0, next - clock.now()), pause.signal).then(
        () => this.wake(),
        () => undefined, // aborted: a newer wake or stop() took over
      );
    }
    // Also look once a second, in real time (an idle sandbox moves no test's clock): `svc sandbox
    // deliveries replay` may add deliveries from another process.
    this.idle = setTimeout(() => this.wake(), 1000);
    this.idle.unref();
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const event = this.store.event(delivery.eventId);
    if (!event) return;
    const result = await sendEvent(delivery.url, event.type, event.body, this.options.secret, this.options.network, {
      encoding: this.options.signatureEncoding,
    });
    const attempt = delivery.attempts + 1;
    const endedAt = this.options.clock.now();
    const next = afterAttempt(attempt, isDelivered(result), endedAt, this.options.timeScale);
    this.store.recordAttempt(delivery, { deliveryId: delivery.id, attempt, at: new Date(endedAt).toISOString(), ...result }, next);
    this.options.log?.(
      `webhook ${event.type} ${event.id} → ${delivery.url}: ${result.status ?? result.error} (attempt ${attempt}${next.status === 'pending' ? `, next in ${((next.nextAttemptAt - endedAt) / 1000).toFixed(1)} s` : `, ${next.status}`})`,
    );
  }

  /** Stops scheduling and waits for the attempts under way (each bounded by the answer timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pause?.abort();
    clearTimeout(this.idle);
    await Promise.allSettled([...this.running]);
  }
}

/** How the sandbox encodes v1: as its last start was told (`--signature-encoding`), openapi.yaml's hex by default. */
export function signatureEncodingSetting(store: SandboxStore): SignatureEncoding {
  return store.setting('signature_encoding') === 'base64' ? 'base64' : 'hex';
}

/**
 * Replays a stored event: a new delivery per original subscriber (or to `url`), attempted at once;
 * a failed attempt stays pending, for the running sandbox to retry on the part 6 schedule.
 */
export async function replayEvent(store: SandboxStore, eventId: string, network: Network, url?: string): Promise<Delivery[]> {
  const event = store.event(eventId);
  const secret = store.setting('webhook_secret');
  if (!event || !secret) throw new SvcError('notFound', 'not_found', `the sandbox has no event ${eventId}`, 'list events with `svc sandbox deliveries`');
  const timeScale = Number(store.setting('time_scale') ?? 1);
  const encoding = signatureEncodingSetting(store);
  const urls = url ? [url] : [...new Set(store.deliveries({ eventId, limit: 1000 }).map((delivery) => delivery.url))];
  if (urls.length === 0) throw new SvcError('usage', 'no_subscriber', `event ${eventId} was never delivered anywhere`, 'give a URL with --to');
  const replayed: Delivery[] = [];
  for (const target of urls) {
    // Due only later, so the running sandbox does not attempt it too while this attempt is under way.
    const delivery = store.delivery(store.addDelivery(eventId, target, Date.now() + ANSWER_TIMEOUT_MS * 6))!;
    const result = await sendEvent(target, event.type, event.body, secret, network, { encoding });
    const endedAt = Date.now();
    store.recordAttempt(
      delivery,
      { deliveryId: delivery.id, attempt: 1, at: new Date(endedAt).toISOString(), ...result },
      afterAttempt(1, isDelivered(result), endedAt, timeScale),
    );
    replayed.push(store.delivery(delivery.id)!);
  }
  return replayed;
}
