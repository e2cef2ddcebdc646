import { parseTimestamp } from '../spec/timestamp.js';
import { SvcError } from '../core/errors.js';
import { formatDuration } from '../core/duration.js';
import { type ObservedKey, observeKey } from '../services/keys.js';
import { runDrainCheck } from './deploy.js';
import { type DrainEvidence, type KeyRef, keyLabel, type RotationRecord, type StepRecords } from './journal.js';
import { cancelled, isoNow, type RotationContext, resumeHint } from './rotation-context.js';
import type { DrainProgress } from './rotation-events.js';

/**
 * Step 5 of a rotation: waits until the old key has no traffic, on the evidence there is. Four
 * strategies: the keys' last use as the API shows it, the operator's check command, a person at the
 * terminal, or a fixed wait after the deploy.
 */
export class Drain {
  constructor(
    private readonly record: RotationRecord,
    private readonly context: RotationContext,
    /** The key step 1 made or took. */
    private readonly newKey: () => KeyRef,
    /** Records the step as done, with what decided it. */
    private readonly done: (step: 'drain', result: StepRecords['drain'], message: string) => Promise<void>,
  ) {}

  /** Step 5, on the evidence there is (drainEvidence): the JSON lines and the journal say which decided. */
  async run(): Promise<void> {
    switch (this.context.drainEvidence) {
      case 'last_use':
        return this.drainByLastUse();
      case 'check_command':
        return this.drainByCheckCommand();
      case 'person':
        return this.drainByPerson();
      case 'wait':
        return this.drainByWait();
    }
  }

  private drained(evidence: DrainEvidence, message: string): Promise<void> {
    return this.done('drain', { at: isoNow(this.context), forced: false, evidence }, message);
  }

  /** Runs the user's check command until it exits 0 (the old key has no traffic), bounded by the timeout. */
  private async drainByCheckCommand(): Promise<void> {
    const { record, context } = this;
    const command = record.drain_check_cmd!;
    const deadline = context.clock.now() + context.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const exitCode = await runDrainCheck(
        command,
        { oldKeyId: record.old_key.id, newKeyId: this.newKey().id },
        {
          env: context.env,
          secrets: context.secrets,
          output: context.deployOutput,
          signal: context.signal,
        },
      );
      if (exitCode === 0) return this.drained('check_command', `the drain check command exited 0: ${record.old_key.id} has no traffic`);
      const timeoutIn = Math.max(0, Math.round(deadline - context.clock.now()));
      context.emit({ event: 'drain_check', rotation: record.id, attempt, exit_code: exitCode, timeout_in_ms: timeoutIn });
      if (timeoutIn <= 0) {
        throw new SvcError(
          'drainTimedOut',
          'drain_timed_out',
          `waiting timed out: the drain check command still exits ${exitCode ?? 'by a signal'} (the old key has traffic); nothing was revoked`,
          `${resumeHint(context)} checks again`,
        );
      }
      await context.clock.sleep(Math.min(context.pollIntervalMs, timeoutIn), context.signal);
    }
  }

  /** A person at the terminal looks at the old key's last use in the dashboard. */
  private async drainByPerson(): Promise<void> {
    const { record, context } = this;
    const old = record.old_key;
    const deployedAt = record.steps.deploy!.at;
    const drained = await context.ask({
      kind: 'drained',
      message: `In the dashboard (Settings › API Keys), look at the last use of ${keyLabel(old)}: has it had no traffic since the deploy at ${deployedAt}? Yes revokes it`,
    });
    if (!drained) throw cancelled(record, context);
    return this.drained('person', `confirmed at the terminal: ${old.id}'s last use in the dashboard shows no traffic since the deploy`);
  }

  /** No evidence of traffic is at hand: waits --drain-wait after the deploy finished (a resumed run waits what is left). */
  private async drainByWait(): Promise<void> {
    const { record, context } = this;
    const waitMs = record.drain_wait_ms ?? 0;
    const until = Date.parse(record.steps.deploy!.at) + waitMs;
    const left = until - context.clock.now();
    if (left > 0) {
      context.emit({
        event: 'notice',
        rotation: record.id,
        message: `waiting ${formatDuration(left)}, until ${new Date(until).toISOString()} (--drain-wait ${formatDuration(waitMs)} after the deploy): nothing shows the old key's traffic`,
      });
      await context.clock.sleep(left, context.signal);
    }
    return this.drained('wait', `waited ${formatDuration(waitMs)} after the deploy (no evidence of ${record.old_key.id}'s traffic was at hand)`);
  }

  /** Records the drain as the keys' last use decided it. */
  private drainedByLastUse(old: ObservedKey, fresh: ObservedKey, forced: boolean, message: string): Promise<void> {
    return this.done(
      'drain',
      { at: isoNow(this.context), forced, evidence: 'last_use', old_key_last_used_at: old.key.last_used_at, new_key_last_used_at: fresh.key.last_used_at },
      message,
    );
  }

  /**
   * Waits until the old key has been silent for the quiet period and the new key has been used
   * since the verification, both judged by the API's own timestamps and clock; bounded by the timeout.
   */
  private async drainByLastUse(): Promise<void> {
    const { record, context } = this;
    const newKeyId = this.newKey().id!;
    const usedAfter = Date.parse(record.steps.verify!.new_key_used_after);
    const quietPeriod = record.quiet_period_ms;
    const deadline = context.clock.now() + context.timeoutMs;
    for (;;) {
      const [old, fresh] = await Promise.all([observeKey(context.admin, record.old_key.id), observeKey(context.admin, newKeyId)]);
      const finish = (forced: boolean, message: string) => this.drainedByLastUse(old, fresh, forced, message);
      if (fresh.key.status !== 'active') throw newKeyRevoked(newKeyId, record);
      if (old.key.status !== 'active') return finish(false, `${record.old_key.id} was already revoked`);
      const lastOldUse = old.key.last_used_at === null ? null : parseTimestamp(old.key.last_used_at);
      const quietFor = lastOldUse === null ? null : Math.max(0, old.serverTime - lastOldUse);
      const progress: DrainProgress = {
        event: 'drain_progress',
        rotation: record.id,
        old_key_last_used_at: old.key.last_used_at,
        old_key_last_used_ip: old.key.last_used_ip,
        old_key_quiet_for_ms: quietFor,
        quiet_period_ms: quietPeriod,
        new_key_used: fresh.key.last_used_at !== null && parseTimestamp(fresh.key.last_used_at) >= usedAfter,
        new_key_last_used_at: fresh.key.last_used_at,
        timeout_in_ms: Math.max(0, Math.round(deadline - context.clock.now())),
      };
      context.emit(progress);
      const quiet = quietFor === null || quietFor >= quietPeriod;
      if (quiet && progress.new_key_used) {
        return finish(
          false,
          `${record.old_key.id} ${quietFor === null ? 'was never used' : `has been silent for ${formatDuration(quietFor)}`} and the new key is in use`,
        );
      }
      const why = notDrainedBecause(record.old_key.id, progress);
      if (context.force) {
        if (!(await context.ask({ kind: 'force_revoke', message: `Not drained: ${why}. Revoke ${record.old_key.id} anyway?`, progress })))
          throw cancelled(record, context);
        return finish(true, `forced: ${why}`);
      }
      if (progress.timeout_in_ms <= 0) {
        throw new SvcError(
          'drainTimedOut',
          'drain_timed_out',
          `waiting timed out: ${why}; nothing was revoked`,
          `${resumeHint(context)} waits again; --force revokes anyway`,
        );
      }
      const untilQuiet = quiet ? context.pollIntervalMs : quietPeriod - quietFor + 1000;
      await context.clock.sleep(Math.min(context.pollIntervalMs, untilQuiet, progress.timeout_in_ms), context.signal);
    }
  }
}

function newKeyRevoked(newKeyId: string, record: RotationRecord): SvcError {
  return new SvcError(
    'rotationStepFailed',
    'new_key_revoked',
    `the new key ${newKeyId} was revoked during the drain; the old key was not`,
    `\`svc keys rotate --abort ${record.id}\` ends the rotation`,
  );
}

/** What keeps the old key from being drained, in words: its use within the quiet period, the new key unused since the verification. */
function notDrainedBecause(oldKeyId: string, progress: DrainProgress): string {
  const { old_key_quiet_for_ms: quietFor, old_key_last_used_ip: lastIp } = progress;
  return [
    quietFor === null || quietFor >= progress.quiet_period_ms ? '' : `${oldKeyId} was used ${formatDuration(quietFor)} ago${lastIp ? ` from ${lastIp}` : ''}`,
    progress.new_key_used ? '' : 'the new key has not been used since the verification',
  ]
    .filter(Boolean)
    .join(' and ');
}
