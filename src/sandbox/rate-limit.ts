export type Plan = 'free' | 'pro' | 'enterprise';

/** Part 8's request rates; Enterprise is "custom", so the sandbox sets no practical limit. */
export const PLAN_LIMITS: Record<Plan, { perMinute: number; reportsPerMonth: number }> = {
  free: { perMinute: 10, reportsPerMonth: 100 },
  pro: { perMinute: 120, reportsPerMonth: 10_000 },
  enterprise: { perMinute: 1_000_000, reportsPerMonth: Number.POSITIVE_INFINITY },
};

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

const WINDOW_MS = 60_000;

interface Window {
  startedAt: number;
  used: number;
}

/** A fixed one-minute window per bucket (a workspace, or the address of an unauthenticated caller). */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly perMinute: number) {}

  take(bucket: string, now = Date.now()): RateDecision {
    let window = this.windows.get(bucket);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      if (this.windows.size > 10_000) this.forgetEnded(now);
      window = { startedAt: now, used: 0 };
      this.windows.set(bucket, window);
    }
    const allowed = window.used < this.perMinute;
    if (allowed) window.used++;
    return this.decision(window, now, allowed);
  }

  /** What `take` would decide, without counting a request. */
  peek(bucket: string, now = Date.now()): RateDecision {
    const window = this.windows.get(bucket);
    const current = window && now - window.startedAt < WINDOW_MS ? window : { startedAt: now, used: 0 };
    return this.decision(current, now, current.used < this.perMinute);
  }

  private decision(window: Window, now: number, allowed: boolean): RateDecision {
    const retryAfterSeconds = Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now) / 1000));
    return { allowed, remaining: this.perMinute - window.used, retryAfterSeconds };
  }

  private forgetEnded(now: number): void {
    for (const [bucket, window] of this.windows) if (now - window.startedAt >= WINDOW_MS) this.windows.delete(bucket);
  }
}

/**
 * Requests that do not authenticate (no key, a wrong key, plain HTTP) count against their source
 * address at the plan's rate, so that guessing keys is throttled as using one is. While an address
 * has used up its minute, a request from it gets the same 429 whatever key it bears, a right guess
 * included, unless its key has worked from that address before: failures from an address neither
 * lock out the callers there that hold a key nor count against their workspace's budget.
 */
export class AddressLimiter {
  /** `<address> <key id>` of the keys that have authenticated from each address. */
  private readonly keysSeen = new Set<string>();

  constructor(private readonly limiter: RateLimiter) {}

  unauthenticated(ip: string): RateDecision {
    return this.limiter.take(`ip:${ip}`);
  }

  /** The refusal of a request that authenticated with `keyId` from an address out of failures; undefined when it passes. */
  refusal(ip: string, keyId: string): RateDecision | undefined {
    const seen = `${ip} ${keyId}`;
    if (this.keysSeen.has(seen)) return undefined;
    const decision = this.limiter.peek(`ip:${ip}`);
    if (!decision.allowed) return decision;
    if (this.keysSeen.size > 10_000) this.keysSeen.clear();
    this.keysSeen.add(seen);
    return undefined;
  }
}
