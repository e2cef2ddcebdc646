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

/** A fixed one-minute window per bucket (a workspace, or the address of an unauthenticated caller). */
export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; used: number }>();

  constructor(private readonly perMinute: number) {}

  take(bucket: string, now = Date.now()): RateDecision {
    let window = this.windows.get(bucket);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      if (this.windows.size > 10_000) this.forgetEnded(now);
      window = { startedAt: now, used: 0 };
      this.windows.set(bucket, window);
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now) / 1000));
    if (window.used >= this.perMinute) return { allowed: false, remaining: 0, retryAfterSeconds };
    window.used++;
    return { allowed: true, remaining: this.perMinute - window.used, retryAfterSeconds };
  }

  private forgetEnded(now: number): void {
    for (const [bucket, window] of this.windows) if (now - window.startedAt >= WINDOW_MS) this.windows.delete(bucket);
  }
}
