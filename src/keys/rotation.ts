import { keyEnvironment, redactKey } from '../core/redaction.js';
import { readSecretFile, writeSecretFile } from '../core/secret-file.js';
import { ApiError, SvcError } from '../core/errors.js';
import { listReports } from '../services/reports.js';
import { createKey, getKey, listAllKeys, observeKey, probeKey, revokeKey } from '../services/keys.js';
import type { Key } from '../api/types.js';
import { runDeployCommand } from './deploy.js';
import { Drain } from './drain.js';
import { unrecordedNewKeys } from './unrecorded-keys.js';
import { compareScopes, scopeOf } from './key-scope.js';
import { type KeyRef, nextStep, type RotationRecord, type StepName, type StepRecords, stepNumber } from './journal.js';
import { cancelled, isoNow, type RotationContext, resumeHint } from './rotation-context.js';

function interrupted(record: RotationRecord, context: RotationContext): SvcError {
  const step = nextStep(record);
  const where = step ? ` before step ${stepNumber(step)}/7 (${step}) finished` : '';
  return new SvcError(
    'interrupted',
    'interrupted',
    `rotation ${record.id} was interrupted${where}; its journal is consistent`,
    `continue it with ${resumeHint(context)}`,
  );
}

/** Runs a rotation from its next step to the end; every step is recorded before the next begins. */
export async function runRotation(record: RotationRecord, context: RotationContext): Promise<RotationRecord> {
  const run = new RotationRun(record, context);
  try {
    await run.toTheEnd();
  } catch (error) {
    // An abort says why: a lost lock gives its error; a Ctrl-C none.
    if (context.signal.aborted) throw context.signal.reason instanceof SvcError ? context.signal.reason : interrupted(record, context);
    throw error;
  }
  return record;
}

class RotationRun {
  /** The new key's secret, once known: never written anywhere but the operator's destination. */
  private secret: string | undefined;
  /** The key this run made, if it made one: a run makes one at most. */
  private made: string | undefined;

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
      old_key: { id: record.old_key.id, prefix_hint: record.old_key.prefix_hint ?? null },
      resumed,
      next_step: nextStep(record) ?? 'confirm',
    });
    for (let step = nextStep(record); step; step = nextStep(record)) {
      context.signal.throwIfAborted();
      await this[step]();
    }
    record.status = 'completed';
    await context.journal.save(record);
    context.emit({ event: 'completed', rotation: record.id, old_key: record.old_key.id, new_key: this.newKey().id, new_key_file: record.new_key_file });
  }

  private async done<S extends StepName>(step: S, result: StepRecords[S], message: string): Promise<void> {
    this.record.steps[step] = result;
    await this.context.journal.save(this.record);
    const evidence = step === 'drain' ? (result as StepRecords['drain']).evidence : undefined;
    this.context.emit({ event: 'step_done', rotation: this.record.id, step, number: stepNumber(step), message, ...(evidence && { evidence }) });
  }

  private newKey(): KeyRef {
    const created = this.record.steps.create;
    if (!created) throw new Error(`rotation ${this.record.id} has no new key yet`);
    return created.new_key;
  }

  private get source() {
    return this.record.new_key_source ?? 'api';
  }

  /** The new key by its id where known, else by its redacted secret. */
  private newKeyName(): string {
    const newKey = this.newKey();
    return newKey.id ?? newKey.prefix_hint;
  }

  /** The secret of the key with this hint, from memory or from --new-key-file when that file holds it. */
  private async knownSecret(hint: string): Promise<string | undefined> {
    if (this.secret !== undefined && redactKey(this.secret) === hint) return this.secret;
    if (this.context.givenSecret !== undefined && redactKey(this.context.givenSecret) === hint) return (this.secret = this.context.givenSecret);
    if (!this.record.new_key_file) return undefined;
    const content = (await readSecretFile(this.record.new_key_file))?.trim();
    if (!content || redactKey(content) !== hint) return undefined;
    this.secret = content;
    return content;
  }

  private async create(): Promise<void> {
    const { record, context } = this;
    if (this.source !== 'api') return this.checkGivenKey();
    if (record.attempts.create) {
      await this.recoverCreatedKey();
      if (record.steps.create) return;
    }
    // However a run goes on from here, it makes no second key: a key answered in a form svc does not
    // expect must never turn into a loop that makes and revokes keys with the admin key.
    if (this.made !== undefined) {
      throw new SvcError(
        'rotationStepFailed',
        'one_key_a_run',
        `this run already made ${this.made} and makes no other; ${this.made} is kept`,
        `see \`svc keys get ${this.made}\`; ${resumeHint(context)} goes on, \`--abort\` revokes it`,
      );
    }
    await this.assertKeyFileFree();
    if (scopeOf(record.old_key) === undefined && !context.allowScopeChange) {
      throw new SvcError(
        'rotationStepFailed',
        'scope_not_shown',
        `the service shows no scope (read-only, IP list) of ${record.old_key.id}: a key svc made would have the service's default scope, not necessarily its; nothing was created`,
        "check the old key's scope in the dashboard, then run again with --allow-scope-change (or make the new key there and give it with --new-key-file)",
      );
    }
    record.attempts.create = isoNow(this.context);
    await context.journal.save(record);
    const created = await createKey(context.admin, {
      name: record.new_key_name,
      environment: record.old_key.environment,
      read_only: record.old_key.read_only ?? undefined,
      allowed_ips: record.old_key.allowed_ips ?? undefined,
    });
    this.secret = created.secret;
    this.made = created.id;
    // Step 2's effect comes first: a crash from here on leaves the secret where the operator wants it.
    if (record.new_key_file) await writeSecretFile(record.new_key_file, `${created.secret}\n`);
    // The hint recorded is svc's own form of the secret it holds: the service may show none, or another form.
    const hint = redactKey(created.secret);
    await this.done(
      'create',
      { at: isoNow(this.context), new_key: { id: created.id, prefix_hint: hint } },
      `created ${created.id} (${hint}) with the scope of ${record.old_key.id}`,
    );
  }

  /**
   * Step 1 for a key made in the dashboard: it is checked before anything else happens. It must be
   * of the old key's environment, not the old key itself, answer a read request, and, where both
   * keys can list reports, see reports of the old key's workspace.
   */
  private async checkGivenKey(): Promise<void> {
    const { record, context } = this;
    const secret = this.source === 'file' ? (await readSecretFile(record.new_key_file!))?.trim() : context.givenSecret;
    if (!secret) throw this.givenSecretMissing();
    const hint = redactKey(secret);
    const refuse = (why: string, whatToDo: string) =>
      new SvcError('rotationStepFailed', 'new_key_check_failed', `the given key ${hint} ${why}; nothing was changed`, whatToDo);
    const environment = keyEnvironment(secret);
    if (environment !== record.old_key.environment) {
      throw refuse(
        `is ${environment ? `a ${environment}` : 'not a'} key and ${record.old_key.id} a ${record.old_key.environment} key`,
        `make the new key in the ${record.old_key.environment} environment in the dashboard (Settings › API Keys)`,
      );
    }
    if (secret === context.oldKeySecret || (record.key_api !== false && hint === record.old_key.prefix_hint)) {
      throw refuse(`is the old key ${record.old_key.id} itself`, 'make a new key in the dashboard (Settings › API Keys) and give that one');
    }
    const newReports = await this.reportIds(secret).catch((error: unknown) => {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        throw refuse(
          `does not work: a read request got ${error.status} ${error.code}`,
          'check the key in the dashboard (Settings › API Keys), and that this machine may use it',
        );
      }
      throw error;
    });
    // Where the key API shows the given key, the key it shows decides: its workspace (the admin key's
    // API shows only its own workspace's keys) and its scope. Else the two keys' reports are compared.
    const shown = record.key_api === false ? undefined : await this.shownKey(secret, refuse);
    const workspace = shown ? 'same (the key API shows it)' : await this.compareWorkspaces(newReports);
    if (workspace === 'other') {
      throw refuse(
        `is not of ${record.old_key.id}'s workspace: the reports each key lists have no id in common`,
        "make the new key in the old key's workspace in the dashboard",
      );
    }
    const oldSecret = context.oldKeySecret !== undefined && redactKey(context.oldKeySecret) === record.old_key.prefix_hint ? context.oldKeySecret : undefined;
    const scope = await compareScopes(record.old_key, shown, {
      given: () => context.clientWith(secret),
      old: oldSecret === undefined ? undefined : () => context.clientWith(oldSecret),
    });
    if (scope.startsWith('other') && !context.allowScopeChange) {
      throw refuse(
        `has another scope than ${record.old_key.id}: ${scope.slice('other: '.length)}`,
        "make the new key with the old key's scope, or run again with --allow-scope-change",
      );
    }
    const checked = await this.settleUnverified(hint, { workspace, scope }, refuse);
    this.secret = secret;
    return this.done(
      'create',
      { at: isoNow(this.context), new_key: { id: record.new_key_id ?? null, prefix_hint: hint }, ...checked },
      `checked the given key ${record.new_key_id ? `${record.new_key_id} ` : ''}(${hint}): ${record.old_key.environment} environment, a read request succeeded, workspace: ${checked.workspace}, scope: ${checked.scope}`,
    );
  }

  /**
   * What svc could not establish of a given key (its workspace, its scope) is deployed only when the
   * user says so: a person at a terminal is shown it and asked once; a script gives each its flag,
   * named together in the refusal. Answers the workspace and scope as recorded.
   */
  private async settleUnverified(
    hint: string,
    checked: { workspace: string; scope: string },
    refuse: (why: string, whatToDo: string) => SvcError,
  ): Promise<{ workspace: string; scope: string }> {
    const { record, context } = this;
    const { workspace, scope } = checked;
    const old = record.old_key.id;
    const unverified = [
      !workspace.startsWith('same') &&
        !context.allowUnverifiedWorkspace && { part: 'workspace', what: `of ${old}'s workspace (${workspace})`, flag: '--allow-unverified-workspace' },
      scope.startsWith('not compared') && !context.allowScopeChange && { part: 'scope', what: `of ${old}'s scope (${scope})`, flag: '--allow-scope-change' },
    ].filter((item) => item !== false);
    if (unverified.length === 0) return checked;
    if (!context.personCanConfirm) {
      throw refuse(
        `could not be shown to be ${unverified.map((item) => item.what).join(', nor ')}`,
        `check the key against ${old} in the dashboard (Settings › API Keys), then run again with ${unverified.map((item) => item.flag).join(' ')}, or at a terminal without --yes, where svc asks`,
      );
    }
    for (const item of unverified)
      context.emit({ event: 'notice', rotation: record.id, message: `not established: that the given key ${hint} is ${item.what}` });
    const confirmed = await context.ask({
      kind: 'unverified_key',
      message: `Compare the given key ${hint} with ${old} in the dashboard (Settings › API Keys): is it of the same ${unverified.map((item) => item.part).join(' and ')}? Yes deploys it`,
    });
    if (!confirmed) throw cancelled(record, context);
    const asConfirmed = (part: string, text: string) => (unverified.some((item) => item.part === part) ? `${text}; confirmed at the terminal` : text);
    return { workspace: asConfirmed('workspace', workspace), scope: asConfirmed('scope', scope) };
  }

  /**
   * The given key as the key API shows it: by --new-key-id, or by its hint among the admin key's keys.
   * Undefined when the API shows hints svc cannot compare with a secret; refused when it shows the key
   * nowhere (another workspace's), or shows --new-key-id with another secret's hint.
   */
  private async shownKey(secret: string, refuse: (why: string, whatToDo: string) => SvcError): Promise<Key | undefined> {
    const { record, context } = this;
    const hint = redactKey(secret);
    if (record.new_key_id) {
      let key: Key;
      try {
        key = await getKey(context.admin, record.new_key_id);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          throw refuse(
            `is not shown by the admin key's key API (GET /v1/keys/${record.new_key_id} answered 404): it is of another workspace, or no key`,
            "give the id and key of a key of the old key's workspace",
          );
        }
        throw error;
      }
      if (!isRedactedKey(key.prefix_hint)) return undefined;
      if (key.prefix_hint !== hint)
        throw refuse(`is not ${record.new_key_id}, which the key API shows as ${key.prefix_hint}`, 'give the key of --new-key-id, or the id of the key given');
      return key;
    }
    const { keys, stopped } = await listAllKeys(context.admin);
    if (keys.some((key) => !isRedactedKey(key.prefix_hint))) return undefined;
    const found = keys.find((key) => key.prefix_hint === hint && key.status === 'active');
    if (found) return found;
    if (stopped) return undefined;
    throw refuse(
      `is not among the keys of ${record.old_key.id}'s workspace that the key API shows`,
      "make the new key in the old key's workspace in the dashboard",
    );
  }

  /** The ids of the first page of reports a key lists. */
  private async reportIds(secret: string): Promise<string[]> {
    const page = await listReports(await this.context.clientWith(secret), {});
    return page.reports.map((report) => String((report as { id?: unknown }).id));
  }

  /**
   * Whether the old key lists reports of the new key's workspace: `same` when the two first pages
   * share an id (a report made between the two requests cannot make them differ), `other` when they
   * share none, else why they were not compared.
   */
  private async compareWorkspaces(newReports: string[]): Promise<string> {
    const { record, context } = this;
    const oldSecret = context.oldKeySecret;
    if (!oldSecret || redactKey(oldSecret) !== record.old_key.prefix_hint) return 'not compared: svc holds no secret of the old key';
    let oldReports: string[];
    try {
      oldReports = await this.reportIds(oldSecret);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403))
        return `not compared: the old key cannot list reports (${error.status} ${error.code})`;
      throw error;
    }
    if (oldReports.length === 0 && newReports.length === 0) return 'not compared: neither key lists a report';
    return oldReports.some((id) => newReports.includes(id)) ? 'same' : 'other';
  }

  /** A given key's secret, needed again by a run after the one it was given to, and not at hand. */
  private givenSecretMissing(): SvcError {
    const { record, context } = this;
    return new SvcError(
      'rotationStepFailed',
      'secret_unavailable',
      record.new_key_source === 'file'
        ? `${record.new_key_file} no longer holds the new key that was given in it`
        : 'the new key was given on stdin to a run that stopped, and svc keeps no copy of it',
      record.new_key_source === 'file'
        ? `put the key made in the dashboard back in ${record.new_key_file}, then ${resumeHint(context)}`
        : `give it again: ${resumeHint(context, ' --new-key-file - < FILE')}`,
    );
  }

  /**
   * A previous run started creating the key and stopped before recording it: the key may exist.
   * It is adopted when --new-key-file holds its secret, and revoked otherwise (nobody has the secret).
   */
  private async recoverCreatedKey(): Promise<void> {
    const { record, context } = this;
    for (const key of await unrecordedNewKeys(record, context.admin)) {
      const saved = record.new_key_file ? (await readSecretFile(record.new_key_file))?.trim() : undefined;
      if (saved && !isRedactedKey(key.prefix_hint)) {
        // The file holds a secret, and the service shows nothing to tell whether it is this key's.
        throw new SvcError(
          'rotationStepFailed',
          'new_key_undecided',
          `${key.id}, made by an interrupted run, may be the key whose secret ${record.new_key_file} holds: the service shows no hint of its secret to compare; it is kept`,
          `check in the dashboard whether ${key.id} is that key, then \`svc keys rotate --abort ${record.id}\` (or revoke ${key.id} and --resume)`,
        );
      }
      if (!record.steps.create && (await this.knownSecret(key.prefix_hint))) {
        await this.done(
          'create',
          { at: isoNow(this.context), new_key: { id: key.id, prefix_hint: key.prefix_hint } },
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
      await context.journal.save(record);
    }
  }

  /**
   * --new-key-file may hold the only copy of a secret: a key svc makes is written there only when it
   * holds no key, or the old key (the application's own file, which the rotation replaces).
   */
  private async assertKeyFileFree(): Promise<void> {
    const { record, context } = this;
    const content = record.new_key_file ? (await readSecretFile(record.new_key_file))?.trim() : undefined;
    if (!content || keyEnvironment(content) === undefined) return;
    const hint = redactKey(content);
    if (content === context.oldKeySecret || (record.key_api !== false && hint === record.old_key.prefix_hint)) return;
    throw new SvcError(
      'refused',
      'new_key_file_holds_key',
      `${record.new_key_file} holds a key (${hint}) other than ${record.old_key.id}, and svc never replaces a file that may hold the only copy of a secret; nothing was created`,
      `keep that key elsewhere if anything needs it and empty the file, then ${resumeHint(context)}`,
    );
  }

  /** The new key's secret was lost before anyone got it: revoke that key so that step 1 makes another. */
  private async replaceLostKey(reason: string): Promise<void> {
    const { record, context } = this;
    await this.assertKeyFileFree();
    // Only a key svc made is ever replaced, and that one has its id.
    const lost = this.newKey() as { id: string };
    await revokeKey(context.admin, lost.id);
    delete record.steps.create;
    delete record.steps.save;
    delete record.attempts.create;
    await context.journal.save(record);
    context.emit({ event: 'new_key_replaced', rotation: record.id, revoked_key: lost.id, reason });
  }

  private async save(): Promise<void> {
    const { record } = this;
    const newKey = this.newKey();
    if (this.source !== 'api') {
      if (!(await this.knownSecret(newKey.prefix_hint))) throw this.givenSecretMissing();
      if (this.source === 'file')
        return this.done('save', { at: isoNow(this.context), to: 'file' }, `its secret is in ${record.new_key_file}, where it was given`);
      return this.done('save', { at: isoNow(this.context), to: 'deploy_cmd' }, 'kept its secret in memory, for the deploy command only');
    }
    if (!(await this.knownSecret(newKey.prefix_hint))) {
      return this.replaceLostKey(
        record.new_key_file ? `${record.new_key_file} does not hold its secret` : 'its secret was held only in the memory of a run that stopped',
      );
    }
    if (record.new_key_file) return this.done('save', { at: isoNow(this.context), to: 'file' }, `saved its secret to ${record.new_key_file} (0600)`);
    return this.done('save', { at: isoNow(this.context), to: 'deploy_cmd' }, 'kept its secret in memory, for the deploy command only');
  }

  private async deploy(): Promise<void> {
    const { record, context } = this;
    const newKey = this.newKey();
    const secret = await this.knownSecret(newKey.prefix_hint);
    if (!secret) {
      if (this.source !== 'api') throw this.givenSecretMissing();
      if (!record.attempts.deploy) return this.replaceLostKey('its secret was held only in the memory of a run that stopped, before any deploy');
      throw this.secretUnavailable();
    }
    if (record.deploy_cmd) {
      if (record.attempts.deploy) {
        const again = await context.ask({
          kind: 'repeat_deploy',
          message: `The deploy command of rotation ${record.id} may have run since ${record.attempts.deploy}, and was not recorded as done. Run it again?`,
        });
        if (!again) throw cancelled(record, context);
      }
      record.attempts.deploy = isoNow(this.context);
      await context.journal.save(record);
      await runDeployCommand(record.deploy_cmd, secret, newKey.id ?? '', {
        env: context.env,
        secrets: context.secrets,
        output: context.deployOutput,
        signal: context.signal,
      });
      return this.done('deploy', { at: isoNow(this.context), by: 'command' }, 'the deploy command succeeded');
    }
    record.attempts.deploy = isoNow(this.context);
    await context.journal.save(record);
    // The path goes on a line of its own, above the question: a terminal shows a question's words whole only where each fits a line.
    if (record.new_key_file) context.emit({ event: 'notice', rotation: record.id, message: `the new key's secret is in ${record.new_key_file}` });
    const where = record.new_key_file ? ' (its secret in the file above)' : '';
    const deployed = await context.ask({ kind: 'deployed', message: `Deploy the new key ${newKey.prefix_hint}${where} next to the old one. Is it deployed?` });
    if (!deployed) throw cancelled(record, context);
    return this.done('deploy', { at: isoNow(this.context), by: 'operator' }, 'the deploy was confirmed');
  }

  private secretUnavailable(): SvcError {
    const { record } = this;
    if (this.source !== 'api') return this.givenSecretMissing();
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
    let probedAt = context.clock.now();
    try {
      probedAt = (await probeKey(await context.clientWith(secret))).serverTime;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'ip_not_allowed') ipLocked = true;
      else if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        throw new SvcError(
          'rotationStepFailed',
          'verification_failed',
          `the new key ${this.newKeyName()} does not work: ${error.message}; nothing was revoked`,
          `check the key ${newKey.id ? `with \`svc keys get ${newKey.id}\`` : 'in the dashboard (Settings › API Keys)'}; \`svc keys rotate --abort ${record.id}\` ends the rotation`,
        );
      } else throw error;
    }
    if (this.source !== 'api') {
      if (ipLocked) {
        throw new SvcError(
          'rotationStepFailed',
          'verification_failed',
          `the given key ${this.newKeyName()} is refused from this machine (403 ip_not_allowed); nothing was revoked`,
          'run svc from an address the key allows, which is where its use can be checked',
        );
      }
      // The Date header counts whole seconds: one more second is certainly after the verification request.
      const after = new Date(probedAt + 1000).toISOString();
      return this.done('verify', { at: isoNow(this.context), ip_locked: false, new_key_used_after: after }, 'a read request with the new key succeeded');
    }
    const observed = await observeKey(context.admin, newKey.id!);
    const [wanted, made] = [scopeOf(record.old_key), scopeOf(observed.key)];
    const scopeDiffers = wanted !== undefined && made !== undefined && made !== wanted;
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
      ? `the API recognised the new key; this machine is not on its IP list (${record.old_key.allowed_ips?.join(', ')}), so its use from there is what the drain waits for`
      : 'a read request with the new key succeeded';
    return this.done('verify', { at: isoNow(this.context), ip_locked: ipLocked, new_key_used_after: usedAfter }, message);
  }

  /** Step 5 (drain.ts). */
  private drain(): Promise<void> {
    return new Drain(
      this.record,
      this.context,
      () => this.newKey(),
      (step, result, message) => this.done(step, result, message),
    ).run();
  }

  private async revoke(): Promise<void> {
    const revocation = await revokeKey(this.context.admin, this.record.old_key.id);
    const revokedAt = revocation.revoked_at ?? null;
    return this.done('revoke', { at: isoNow(this.context), revoked_at: revokedAt }, `revoked ${this.record.old_key.id}${revokedAt ? ` at ${revokedAt}` : ''}`);
  }

  /** With the old key's secret at hand, a request must be refused 401 invalid_key; without it, the key must read revoked. */
  private async confirm(): Promise<void> {
    const { record, context } = this;
    const oldId = record.old_key.id;
    const stillWorks = () =>
      new SvcError(
        'rotationStepFailed',
        'old_key_still_works',
        `${oldId} was revoked but is still ${context.oldKeySecret ? 'accepted' : 'active'}${record.key_api === false ? " (or the secret svc tried, --old-key-file or the profile's API key, is not that key's)" : ''}`,
        `${resumeHint(context)} revokes and checks again`,
      );
    if (context.oldKeySecret && redactKey(context.oldKeySecret) === record.old_key.prefix_hint) {
      const refusal = await probeKey(await context.clientWith(context.oldKeySecret)).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      if (!(refusal instanceof ApiError && refusal.code === 'invalid_key')) {
        if (refusal === undefined) {
          delete record.steps.revoke;
          await context.journal.save(record);
          throw stillWorks();
        }
        throw refusal;
      }
      return this.done('confirm', { at: isoNow(this.context), by: 'request' }, `a request with ${oldId} got 401 invalid_key`);
    }
    if (record.key_api === false) {
      return this.done(
        'confirm',
        { at: isoNow(this.context), by: 'not_confirmed' },
        `the revocation was not confirmed: svc holds no secret of ${oldId} to try (--old-key-file), and the service shows no key's status`,
      );
    }
    if ((await getKey(context.admin, oldId)).status !== 'revoked') {
      delete record.steps.revoke;
      await context.journal.save(record);
      throw stillWorks();
    }
    return this.done('confirm', { at: isoNow(this.context), by: 'key_status' }, `${oldId} reads revoked (svc does not hold its secret to try it)`);
  }
}

/** Whether the service shows a key's hint in svc's redacted form (`svc_test_…a1b2`), which a secret can be compared with. */
export function isRedactedKey(hint: unknown): hint is string {
  return typeof hint === 'string' && /^(svc_(live|test|admin)_)?…[A-Za-z0-9_-]{0,4}$/.test(hint);
}
