import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from '../api/client.js';
import { parseTimestamp } from '../api/timestamp.js';
import { redactKey } from '../config/keys.js';
import { readSecretFile, writeSecretFile } from '../config/secret-file.js';
import { ApiError, SvcError } from '../errors.js';
import { formatDuration } from '../duration.js';
import { createKey, getKey, observeKey, probeKey, revokeKey } from '../services/keys.js';
import { runDeployCommand } from './deploy.js';
import { unrecordedNewKeys } from './unrecorded-keys.js';
import { type KeyRef, nextStep, type RotationRecord, saveRotation, type StepName, type StepRecords, stepNumber } from './journal.js';

import type { DrainProgress, RotationEvent, RotationQuestion } from './rotation-events.js';

export interface RotationContext {
  /** Authenticated with the admin key. */
  admin: ApiClient;
  /** A client on the same connection that authenticates with `secret`. */
  clientWith(secret: string): Promise<ApiClient>;
  /** The old key's secret when svc has it (the configured API key): step 7 then tries it. */
  oldKeySecret: string | undefined;
  /** Every secret this run knows (the admin key, the API key…): redacted from the deploy command's output. */
  secrets: readonly string[];
  /** Where the deploy command's output goes (svc's stderr, so that stdout stays --json). */
  deployOutput: Writable;
  ask(question: RotationQuestion): Promise<boolean>;
  emit(event: RotationEvent): void;
  signal: AbortSignal;
  pollIntervalMs: number;
  timeoutMs: number;
  force: boolean;
}

function interrupted(record: RotationRecord): SvcError {
  const step = nextStep(record);
  const where = step ? ` before step ${stepNumber(step)}/7 (${step}) finished` : '';
  return new SvcError(
    'interrupted',
    'interrupted',
    `rotation ${record.id} was interrupted${where}; its journal is consistent`,
    `continue it with \`svc keys rotate --resume ${record.id}\``,
  );
}

function cancelled(record: RotationRecord): SvcError {
  return new SvcError(
    'failure',
    'cancelled',
    `rotation ${record.id} stopped at your answer; nothing more was changed`,
    `continue it with \`svc keys rotate --resume ${record.id}\`, or end it with --abort`,
  );
}

/** Runs a rotation from its next step to the end; every step is recorded before the next begins. */
export async function runRotation(record: RotationRecord, context: RotationContext): Promise<RotationRecord> {
  const run = new RotationRun(record, context);
  try {
    await run.toTheEnd();
  } catch (error) {
    if (context.signal.aborted) throw interrupted(record);
    throw error;
  }
  return record;
}

class RotationRun {
  /** The new key's secret, once known: never written anywhere but the operator's destination. */
  private secret: string | undefined;

  constructor(
    private readonly record: RotationRecord,
    private readonly context: RotationContext,
  ) {}

  async toTheEnd(): Promise<void> {
    const { record, context } = this;
    const resumed = Object.keys(record.steps).length > 0 || Object.keys(record.attempts).length > 0;
    context.emit({
      event: 'started',
      rotation: record.id,
      old_key: { id: record.old_key.id, prefix_hint: record.old_key.prefix_hint },
      resumed,
      next_step: nextStep(record) ?? 'confirm',
    });
    for (let step = nextStep(record); step; step = nextStep(record)) {
      context.signal.throwIfAborted();
      await this[step]();
    }
    record.status = 'completed';
    await saveRotation(record);
    context.emit({ event: 'completed', rotation: record.id, old_key: record.old_key.id, new_key: this.newKey().id, new_key_file: record.new_key_file });
  }

  private async done<S extends StepName>(step: S, result: StepRecords[S], message: string): Promise<void> {
    this.record.steps[step] = result;
    await saveRotation(this.record);
    this.context.emit({ event: 'step_done', rotation: this.record.id, step, number: stepNumber(step), message });
  }

  private newKey(): KeyRef {
    const created = this.record.steps.create;
    if (!created) throw new Error(`rotation ${this.record.id} has no new key yet`);
    return created.new_key;
  }

  /** The secret of the key with this hint, from memory or from --new-key-file when that file holds it. */
  private async knownSecret(hint: string): Promise<string | undefined> {
    if (this.secret !== undefined && redactKey(this.secret) === hint) return this.secret;
    if (!this.record.new_key_file) return undefined;
    const content = (await readSecretFile(this.record.new_key_file))?.trim();
    if (!content || redactKey(content) !== hint) return undefined;
    this.secret = content;
    return content;
  }

  private async create(): Promise<void> {
    const { record, context } = this;
    if (record.attempts.create) {
      await this.recoverCreatedKey();
      if (record.steps.create) return;
    }
    record.attempts.create = new Date().toISOString();
    await saveRotation(record);
    const created = await createKey(context.admin, {
      name: record.new_key_name,
      environment: record.old_key.environment,
      read_only: record.old_key.read_only,
      allowed_ips: record.old_key.allowed_ips,
    });
    this.secret = created.secret;
    // Step 2's effect comes first: a crash from here on leaves the secret where the operator wants it.
    if (record.new_key_file) await writeSecretFile(record.new_key_file, `${created.secret}\n`);
    await this.done(
      'create',
      { at: new Date().toISOString(), new_key: { id: created.id, prefix_hint: created.prefix_hint } },
      `created ${created.id} (${created.prefix_hint}) with the scope of ${record.old_key.id}`,
    );
  }

  /**
   * A previous run started creating the key and stopped before recording it: the key may exist.
   * It is adopted when --new-key-file holds its secret, and revoked otherwise (nobody has the secret).
   */
  private async recoverCreatedKey(): Promise<void> {
    const { record, context } = this;
    for (const key of await unrecordedNewKeys(record, context.admin)) {
      if (!record.steps.create && (await this.knownSecret(key.prefix_hint))) {
        await this.done(
          'create',
          { at: new Date().toISOString(), new_key: { id: key.id, prefix_hint: key.prefix_hint } },
          `found ${key.id} (${key.prefix_hint}), created before the interruption, its secret in ${record.new_key_file}`,
        );
        continue;
      }
      await revokeKey(context.admin, key.id);
      context.emit({
        event: 'new_key_replaced',
        rotation: record.id,
        revoked_key: key.id,
        reason: 'it was created before an interruption and its secret was never saved',
      });
    }
    if (!record.steps.create) {
      delete record.attempts.create;
      await saveRotation(record);
    }
  }

  /** The new key's secret was lost before anyone got it: revoke that key so that step 1 makes another. */
  private async replaceLostKey(reason: string): Promise<void> {
    const { record, context } = this;
    const lost = this.newKey();
    await revokeKey(context.admin, lost.id);
    delete record.steps.create;
    delete record.steps.save;
    delete record.attempts.create;
    await saveRotation(record);
    context.emit({ event: 'new_key_replaced', rotation: record.id, revoked_key: lost.id, reason });
  }

  private async save(): Promise<void> {
    const { record } = this;
    const newKey = this.newKey();
    if (!(await this.knownSecret(newKey.prefix_hint))) {
      return this.replaceLostKey(
        record.new_key_file ? `${record.new_key_file} does not hold its secret` : 'its secret was held only in the memory of a run that stopped',
      );
    }
    if (record.new_key_file) return this.done('save', { at: new Date().toISOString(), to: 'file' }, `saved its secret to ${record.new_key_file} (0600)`);
    return this.done('save', { at: new Date().toISOString(), to: 'deploy_cmd' }, 'kept its secret in memory, for the deploy command only');
  }

  private async deploy(): Promise<void> {
    const { record, context } = this;
    const newKey = this.newKey();
    const secret = await this.knownSecret(newKey.prefix_hint);
    if (!secret) {
      if (!record.attempts.deploy) return this.replaceLostKey('its secret was held only in the memory of a run that stopped, before any deploy');
      throw this.secretUnavailable();
    }
    if (record.deploy_cmd) {
      if (record.attempts.deploy) {
        const again = await context.ask({
          kind: 'repeat_deploy',
          message: `The deploy command of rotation ${record.id} was started at ${record.attempts.deploy} and did not succeed. Run it again?`,
        });
        if (!again) throw cancelled(record);
      }
      record.attempts.deploy = new Date().toISOString();
      await saveRotation(record);
      await runDeployCommand(record.deploy_cmd, secret, newKey.id, { secrets: context.secrets, output: context.deployOutput, signal: context.signal });
      return this.done('deploy', { at: new Date().toISOString(), by: 'command' }, 'the deploy command succeeded');
    }
    record.attempts.deploy = new Date().toISOString();
    await saveRotation(record);
    const where = record.new_key_file ? ` (its secret is in ${record.new_key_file})` : '';
    const deployed = await context.ask({ kind: 'deployed', message: `Deploy the new key ${newKey.prefix_hint}${where} next to the old one. Is it deployed?` });
    if (!deployed) throw cancelled(record);
    return this.done('deploy', { at: new Date().toISOString(), by: 'operator' }, 'the deploy was confirmed');
  }

  private secretUnavailable(): SvcError {
    const { record } = this;
    return new SvcError(
      'rotationStepFailed',
      'secret_unavailable',
      `the new key ${this.newKey().id} went to the deploy command of a run that stopped, and svc kept no copy of its secret (no --new-key-file)`,
      `check the deployment; \`svc keys rotate --abort ${record.id}\` ends the rotation and leaves both keys active. --new-key-file makes every step resumable`,
    );
  }

  /**
   * A read request with the new key. A 403 ip_not_allowed passes too: the API recognised the key
   * (an unknown or revoked key gets 401 first), and the IP lock is the one copied from the old key.
   * The time after which a use of the new key counts as the application's is taken from the API's
   * clock after this request, so the verification itself never counts as the deployed use.
   */
  private async verify(): Promise<void> {
    const { record, context } = this;
    const newKey = this.newKey();
    const secret = await this.knownSecret(newKey.prefix_hint);
    if (!secret) throw this.secretUnavailable();
    let ipLocked = false;
    try {
      await probeKey(await context.clientWith(secret));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'ip_not_allowed') ipLocked = true;
      else if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        throw new SvcError(
          'rotationStepFailed',
          'verification_failed',
          `the new key ${newKey.id} does not work: ${error.message}; nothing was revoked`,
          `check the key with \`svc keys get ${newKey.id}\`; \`svc keys rotate --abort ${record.id}\` ends the rotation`,
        );
      } else throw error;
    }
    const observed = await observeKey(context.admin, newKey.id);
    const scopeDiffers = observed.key.read_only !== record.old_key.read_only || observed.key.allowed_ips.join() !== record.old_key.allowed_ips.join();
    if (observed.key.status !== 'active' || scopeDiffers) {
      throw new SvcError(
        'rotationStepFailed',
        'verification_failed',
        `the new key ${newKey.id} is ${observed.key.status !== 'active' ? observed.key.status : "not of the old key's scope"}; nothing was revoked`,
        `\`svc keys rotate --abort ${record.id}\` ends the rotation`,
      );
    }
    // The Date header counts whole seconds: one more second is certainly after the verification request.
    const usedAfter = new Date(observed.serverTime + 1000).toISOString();
    const message = ipLocked
      ? `the API recognised the new key; this machine is not on its IP list (${record.old_key.allowed_ips.join(', ')}), so its use from there is what the drain waits for`
      : 'a read request with the new key succeeded';
    return this.done('verify', { at: new Date().toISOString(), ip_locked: ipLocked, new_key_used_after: usedAfter }, message);
  }

  /**
   * Waits until the old key has been silent for the quiet period and the new key has been used
   * since the verification, both judged by the API's own timestamps and clock; bounded by the timeout.
   */
  private async drain(): Promise<void> {
    const { record, context } = this;
    const newKey = this.newKey();
    const usedAfter = Date.parse(record.steps.verify!.new_key_used_after);
    const quietPeriod = record.quiet_period_ms;
    const deadline = performance.now() + context.timeoutMs;
    for (;;) {
      const [old, fresh] = await Promise.all([observeKey(context.admin, record.old_key.id), observeKey(context.admin, newKey.id)]);
      const finish = (forced: boolean, message: string) =>
        this.done(
          'drain',
          { at: new Date().toISOString(), forced, old_key_last_used_at: old.key.last_used_at, new_key_last_used_at: fresh.key.last_used_at },
          message,
        );
      if (fresh.key.status !== 'active') {
        throw new SvcError(
          'rotationStepFailed',
          'new_key_revoked',
          `the new key ${newKey.id} was revoked during the drain; the old key was not`,
          `\`svc keys rotate --abort ${record.id}\` ends the rotation`,
        );
      }
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
        timeout_in_ms: Math.max(0, Math.round(deadline - performance.now())),
      };
      context.emit(progress);
      const quiet = quietFor === null || quietFor >= quietPeriod;
      if (quiet && progress.new_key_used) {
        return finish(
          false,
          `${record.old_key.id} ${quietFor === null ? 'was never used' : `has been silent for ${formatDuration(quietFor)}`} and the new key is in use`,
        );
      }
      const why = [
        quiet ? '' : `${record.old_key.id} was used ${formatDuration(quietFor)} ago${old.key.last_used_ip ? ` from ${old.key.last_used_ip}` : ''}`,
        progress.new_key_used ? '' : 'the new key has not been used since the verification',
      ]
        .filter(Boolean)
        .join(' and ');
      if (context.force) {
        if (!(await context.ask({ kind: 'force_revoke', message: `Not drained: ${why}. Revoke ${record.old_key.id} anyway?`, progress })))
          throw cancelled(record);
        return finish(true, `forced: ${why}`);
      }
      if (progress.timeout_in_ms <= 0) {
        throw new SvcError(
          'drainTimedOut',
          'drain_timed_out',
          `waiting timed out: ${why}; nothing was revoked`,
          `\`svc keys rotate --resume ${record.id}\` waits again; --force revokes anyway`,
        );
      }
      const untilQuiet = quiet ? context.pollIntervalMs : quietPeriod - quietFor + 1000;
      await sleep(Math.min(context.pollIntervalMs, untilQuiet, progress.timeout_in_ms), undefined, { signal: context.signal });
    }
  }

  private async revoke(): Promise<void> {
    const revocation = await revokeKey(this.context.admin, this.record.old_key.id);
    const revokedAt = revocation.revoked_at ?? null;
    return this.done(
      'revoke',
      { at: new Date().toISOString(), revoked_at: revokedAt },
      `revoked ${this.record.old_key.id}${revokedAt ? ` at ${revokedAt}` : ''}`,
    );
  }

  /** With the old key's secret at hand, a request must be refused 401 invalid_key; without it, the key must read revoked. */
  private async confirm(): Promise<void> {
    const { record, context } = this;
    const oldId = record.old_key.id;
    const stillWorks = () =>
      new SvcError(
        'rotationStepFailed',
        'old_key_still_works',
        `${oldId} was revoked but is still ${context.oldKeySecret ? 'accepted' : 'active'}`,
        `\`svc keys rotate --resume ${record.id}\` revokes and checks again`,
      );
    if (context.oldKeySecret && redactKey(context.oldKeySecret) === record.old_key.prefix_hint) {
      const refusal = await probeKey(await context.clientWith(context.oldKeySecret)).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      if (!(refusal instanceof ApiError && refusal.code === 'invalid_key')) {
        if (refusal === undefined) {
          delete record.steps.revoke;
          await saveRotation(record);
          throw stillWorks();
        }
        throw refusal;
      }
      return this.done('confirm', { at: new Date().toISOString(), by: 'request' }, `a request with ${oldId} got 401 invalid_key`);
    }
    if ((await getKey(context.admin, oldId)).status !== 'revoked') {
      delete record.steps.revoke;
      await saveRotation(record);
      throw stillWorks();
    }
    return this.done('confirm', { at: new Date().toISOString(), by: 'key_status' }, `${oldId} reads revoked (svc does not hold its secret to try it)`);
  }
}
