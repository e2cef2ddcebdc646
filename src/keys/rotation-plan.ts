import type { ApiClient } from '../api/client.js';
import type { Key } from '../api/types.js';
import { keyEnvironment, redactKey } from '../core/redaction.js';
import { readSecretFile } from '../core/secret-file.js';
import { SvcError } from '../core/errors.js';
import { formatDuration } from '../core/duration.js';
import { findKeyIfOffered } from '../services/keys.js';
import {
  type DrainEvidence,
  keyLabel,
  newKeyName,
  type NewKeySource,
  newRotationId,
  type RotationJournal,
  type RotationRecord,
  rotationOfKeyName,
  type StepName,
  STEPS,
  stepNumber,
} from './journal.js';
import { isRedactedKey } from './rotation.js';
import { keysOfRotationsOf } from './unrecorded-keys.js';

/** The old key as the service shows it, or, where it offers no key reads, as its secret shows it. */
type OldKey = RotationRecord['old_key'];

interface RotationPlan {
  oldKey: OldKey;
  keyApi: boolean;
  newKeySource: NewKeySource;
  newKeyId: string | null;
  newKeyFile: string | null;
  deployCmd: string | null;
  quietPeriodMs: number;
  drainCheckCmd: string | null;
  drainWaitMs: number | null;
  baseUrl: string;
}

function adminKeyRefused(id: string, ownKey: boolean): SvcError {
  return ownKey
    ? new SvcError(
        'refused',
        'revoking_own_key',
        `${id} is the admin key this rotation would revoke with`,
        'a key cannot revoke itself: rotate admin keys in the dashboard (Settings, API Keys)',
      )
    : new SvcError(
        'refused',
        'admin_key_rotation',
        `${id} is an admin key, and admin keys are created in the dashboard only`,
        'rotate admin keys in the dashboard (Settings, API Keys)',
      );
}

/**
 * The safety rails checked before anything happens: a revoked key has nothing to rotate; an admin
 * key cannot be made through the API (and may be the very key doing the revoking).
 */
function assertRotatable(oldKey: Key, adminKeySecret: string, allow = { revoked: false }): void {
  if (oldKey.environment === 'admin') throw adminKeyRefused(oldKey.id, oldKey.prefix_hint === redactKey(adminKeySecret));
  if (oldKey.status !== 'active' && !allow.revoked) {
    throw new SvcError('refused', 'key_revoked', `${oldKey.id} is already revoked: there is nothing to rotate`, '`svc keys list` shows the active keys');
  }
}

/**
 * The rails of a fresh run, applied again to a rotation taken up from its journal: the keys it will
 * revoke are checked against what the service shows now, so that no journal, edited or stale, makes
 * svc revoke an admin key (the very one doing the revoking, say) or a key of another environment.
 */
export async function assertResumable(record: RotationRecord, admin: ApiClient, adminKeySecret: string): Promise<void> {
  if (record.status !== 'in_progress') return;
  const disagrees = (what: string) =>
    new SvcError(
      'refused',
      'journal_disagrees',
      `rotation ${record.id} ${what}`,
      'svc acts on a journal only as it wrote it: check the rotation with `svc keys rotations`, and the key with `svc keys get`',
    );
  // Whether the service shows keys is asked again, as a fresh run asks it: a journal's `key_api: false` turns no check off.
  if (!record.steps.revoke) {
    const old = await findKeyIfOffered(admin, record.old_key.id);
    // Once drained, a run may have revoked it and stopped before recording so: the revoke step finds it revoked.
    if (old) assertRotatable(old, adminKeySecret, { revoked: Boolean(record.steps.drain) });
    if (old && old.environment !== record.old_key.environment)
      throw disagrees(`names ${old.id} a ${record.old_key.environment} key, and the service shows a ${old.environment} key`);
  }
  // The new key has the old key's environment, and one svc made carries the rotation's name: a recorded id
  // that the service shows otherwise is not the key that an abort, or a run that finds its secret lost, may revoke.
  const newId = record.steps.create?.new_key.id;
  if (newId && !record.steps.deploy) {
    const created = await findKeyIfOffered(admin, newId);
    if (created?.environment === 'admin') throw adminKeyRefused(newId, created.prefix_hint === redactKey(adminKeySecret));
    const shown: Partial<Key> | undefined = created;
    if (shown?.environment !== undefined && shown.environment !== record.old_key.environment)
      throw disagrees(`names ${newId} a ${record.old_key.environment} key, and the service shows a ${shown.environment} key`);
    if ((record.new_key_source ?? 'api') === 'api' && typeof shown?.name === 'string' && shown.name !== record.new_key_name)
      throw disagrees(`made ${newId} under the name "${record.new_key_name}", and the service shows it as "${shown.name}"`);
  }
}

/** The old key as the key API shows it: a field it leaves out (the specification shows none beyond the id) is recorded as not shown. */
function oldKeyShown(found: Key): OldKey {
  const shown: Partial<Key> = found;
  return {
    id: found.id,
    name: shown.name ?? null,
    environment: found.environment as 'test' | 'live',
    prefix_hint: typeof shown.prefix_hint === 'string' ? shown.prefix_hint : null,
    read_only: typeof shown.read_only === 'boolean' ? shown.read_only : null,
    allowed_ips: Array.isArray(shown.allowed_ips) ? shown.allowed_ips : null,
  };
}

/**
 * Where the service offers no key reads, the old key's secret stands for it: its prefix gives the
 * environment that the new key must share, and it confirms the revocation at the end.
 */
function oldKeyFromSecret(keyId: string, secret: string | undefined, adminKeySecret: string): OldKey {
  if (secret === undefined) {
    throw new SvcError(
      'usage',
      'old_key_secret_required',
      `the service offers no key reads (GET /v1/keys/${keyId}), so svc cannot tell which environment ${keyId} is of`,
      "give the old key's secret with --old-key-file FILE (or as the profile's API key): the new key must have its environment, and a request with it confirms the revocation",
    );
  }
  const environment = keyEnvironment(secret);
  if (environment === 'admin') throw adminKeyRefused(keyId, secret === adminKeySecret);
  if (environment === undefined) {
    throw new SvcError(
      'usage',
      'old_key_unknown_prefix',
      `the old key's secret (${redactKey(secret)}) has none of the prefixes svc_test_, svc_live_`,
      'check --old-key-file',
    );
  }
  return { id: keyId, name: null, environment, prefix_hint: redactKey(secret), read_only: null, allowed_ips: null };
}

function noNewKey(keyId: string): SvcError {
  return new SvcError(
    'usage',
    'new_key_required',
    `the service offers no key API to make the new key for ${keyId} with`,
    'make the key in the dashboard (Settings › API Keys), then give it with --new-key-file FILE (the file holding it) or --new-key-file - (on stdin), and --new-key-id key_… where the dashboard shows it',
  );
}

/**
 * Where the new key comes from. A key in --new-key-file that is not the old key was made in the
 * dashboard: svc takes it (and never replaces that file). An empty or absent file, or one that
 * still holds the old key (the application's own file), is where svc writes a key it makes.
 */
async function newKeySource(
  keyId: string,
  oldKey: OldKey,
  keyApi: boolean,
  given: { newKeyFile: string | null; fromStdin: boolean; oldKeySecret: string | undefined },
): Promise<NewKeySource> {
  if (given.fromStdin) return 'stdin';
  const content = given.newKeyFile === null ? undefined : (await readSecretFile(given.newKeyFile))?.trim();
  const holdsKey = content !== undefined && keyEnvironment(content) !== undefined;
  const holdsOldKey = holdsKey && (content === given.oldKeySecret || (keyApi && redactKey(content) === oldKey.prefix_hint));
  if (holdsKey && !holdsOldKey) return 'file';
  if (keyApi) return 'api';
  if (holdsOldKey) {
    throw new SvcError(
      'usage',
      'new_key_file_holds_old_key',
      `${given.newKeyFile} holds the old key ${keyLabel(oldKey)}, and the service offers no key API to make a new one`,
      'make the new key in the dashboard (Settings › API Keys) and put it in that file, or give it on stdin with --new-key-file -',
    );
  }
  throw noNewKey(keyId);
}

/** A new rotation, or the one that made `takenUp`, a key found among the service's keys. */
function newRotation(plan: RotationPlan, takenUp?: { rotationId: string; name: string }): RotationRecord {
  const id = takenUp?.rotationId ?? newRotationId();
  const now = new Date().toISOString();
  return {
    version: 1,
    id,
    status: 'in_progress',
    started_at: now,
    updated_at: now,
    base_url: plan.baseUrl,
    old_key: plan.oldKey,
    key_api: plan.keyApi,
    new_key_source: plan.newKeySource,
    new_key_id: plan.newKeyId,
    new_key_name: takenUp?.name ?? newKeyName(plan.oldKey, id),
    new_key_file: plan.newKeyFile,
    deploy_cmd: plan.deployCmd,
    quiet_period_ms: plan.quietPeriodMs,
    drain_check_cmd: plan.drainCheckCmd,
    drain_wait_ms: plan.drainWaitMs,
    attempts: {},
    steps: {},
  };
}

/**
 * The evidence that will decide the drain, strongest first: the key API's last use (where the
 * service offers it and the new key's id is known), the user's check command, a person at a
 * terminal who looks at the dashboard, a wait after the deploy. Undefined when there is none.
 */
export function drainEvidence(record: RotationRecord, personCanConfirm: boolean): DrainEvidence | undefined {
  const newKeyIdKnown = (record.new_key_source ?? 'api') === 'api' || Boolean(record.new_key_id);
  if (record.key_api !== false && newKeyIdKnown) return 'last_use';
  if (record.drain_check_cmd) return 'check_command';
  if (personCanConfirm) return 'person';
  if (record.drain_wait_ms != null) return 'wait';
  return undefined;
}

/** Refuses, before anything happens, a rotation whose drain nothing could decide. */
export function assertDrainEvidence(record: RotationRecord, personCanConfirm: boolean): DrainEvidence {
  const evidence = drainEvidence(record, personCanConfirm);
  if (evidence) return evidence;
  throw new SvcError(
    'usage',
    'no_drain_evidence',
    `the service shows no last use of ${record.old_key.id}, and nothing else was given to tell when it has no traffic; nothing was changed`,
    'give --drain-check-cmd COMMAND (exit 0 when the old key has no traffic, from your logs or metrics), run at a terminal without --yes to confirm it from the dashboard (Settings › API Keys, the last use), or give --drain-wait DURATION (the wait after the deploy)',
  );
}

/** What each step left to do will do, for `--dry-run`. */
export function describeSteps(record: RotationRecord, evidence: DrainEvidence | undefined): Array<{ step: StepName; number: number; action: string }> {
  const old = record.old_key;
  const source = record.new_key_source ?? 'api';
  const given = source === 'file' ? `the key in ${record.new_key_file}` : 'the key given on stdin';
  const scope =
    old.read_only === null || old.allowed_ips === null
      ? ''
      : `: ${old.read_only ? 'read-only' : 'read-write'}, ${old.allowed_ips.length ? `locked to ${old.allowed_ips.join(', ')}` : 'any IP'}`;
  const drain: Record<DrainEvidence, string> = {
    last_use: `wait until ${old.id} has been silent for ${formatDuration(record.quiet_period_ms)} and the new key has been used`,
    check_command: `run the drain check command until it exits 0 (the old key has no traffic): ${record.drain_check_cmd}`,
    person: `ask the person at the terminal to look at ${old.id}'s last use in the dashboard (Settings › API Keys)`,
    wait: `wait ${formatDuration(record.drain_wait_ms ?? 0)} after the deploy`,
  };
  const actions: Record<StepName, string> = {
    create:
      source === 'api'
        ? `create a ${old.environment} key "${record.new_key_name}" with the scope of ${keyLabel(old)}${scope}`
        : `check ${given}: the ${old.environment} environment, a read request, the workspace and scope of ${old.id}`,
    save:
      source === 'file'
        ? `nothing: ${record.new_key_file} holds it`
        : record.new_key_file
          ? `write its secret to ${record.new_key_file} (0600, atomically)`
          : 'keep its secret in memory for the deploy command only',
    deploy: record.deploy_cmd
      ? `run the deploy command with the secret in SVC_NEW_API_KEY and on stdin: ${record.deploy_cmd}`
      : 'ask the operator to confirm the deploy (--yes: the key file is the deploy)',
    verify: 'make a read request with the new key',
    drain: evidence ? drain[evidence] : 'nothing decides it: refused',
    revoke: `revoke ${old.id} with the admin key (DELETE /v1/keys/${old.id})`,
    confirm: `check that ${old.id} is refused (401 invalid_key)`,
  };
  return STEPS.filter((step) => !record.steps[step]).map((step) => ({ step, number: stepNumber(step), action: actions[step] }));
}

export function applyChanges(
  record: RotationRecord,
  changes: {
    newKeyFile?: string | undefined;
    deployCmd?: string | undefined;
    quietPeriodMs?: number | undefined;
    drainCheckCmd?: string | undefined;
    drainWaitMs?: number | undefined;
  },
): void {
  const fromStdin = changes.newKeyFile === '-' && record.new_key_source === 'stdin';
  if (changes.newKeyFile !== undefined && !fromStdin && changes.newKeyFile !== record.new_key_file) {
    throw new SvcError(
      'usage',
      'key_file_changed',
      `rotation ${record.id} keeps its new secret in ${record.new_key_file ?? 'no file'}, not ${changes.newKeyFile}`,
      'leave out --new-key-file, or give the same path',
    );
  }
  if (changes.deployCmd !== undefined) record.deploy_cmd = changes.deployCmd;
  if (changes.quietPeriodMs !== undefined) record.quiet_period_ms = changes.quietPeriodMs;
  if (changes.drainCheckCmd !== undefined) record.drain_check_cmd = changes.drainCheckCmd;
  if (changes.drainWaitMs !== undefined) record.drain_wait_ms = changes.drainWaitMs;
}

export interface PlanInput {
  admin: ApiClient;
  adminKeySecret: string;
  baseUrl: string;
  /** Where an earlier rotation of the key would be recorded. */
  journal: RotationJournal;
  /** Resolved path, or '-' for the new key on stdin. */
  newKeyFile: string | null;
  /** The new key given on stdin (--new-key-file -). */
  givenSecret: string | undefined;
  newKeyId: string | null;
  oldKeySecret: string | undefined;
  deployCmd: string | null;
  quietPeriodMs: number;
  drainCheckCmd: string | null;
  drainWaitMs: number | null;
}

/** A rotation found again, or planned: `earlier` when its journal holds it, `takenUp` the key it was taken up from (see takeUpEarlierKey). */
interface FoundRotation {
  record: RotationRecord;
  earlier: boolean;
  takenUp?: Key;
}

/**
 * The rotation of `keyId` against `baseUrl`: the one under way or complete, if any (`earlier`, so
 * that running the command again is safe), the one that made a key the service shows (`takenUp`), or
 * a new one after the safety rails. Whether the service has a key API is found out by reading the old
 * key, which creates nothing. A new rotation needs a new key: given (made in the dashboard), or made
 * through the key API with a destination for its secret (a file or a deploy command).
 */
export async function findOrPlanRotation(keyId: string, plan: PlanInput): Promise<FoundRotation> {
  const journals = await plan.journal.list({ oldKeyId: keyId, baseUrl: plan.baseUrl });
  const earlier = journals.find((rotation) => rotation.status !== 'aborted');
  if (earlier) return { record: earlier, earlier: true };
  const found = await findKeyIfOffered(plan.admin, keyId);
  if (found) assertRotatable(found, plan.adminKeySecret);
  const oldKey: OldKey = found ? oldKeyShown(found) : oldKeyFromSecret(keyId, plan.oldKeySecret, plan.adminKeySecret);
  const fromStdin = plan.newKeyFile === '-';
  const newKeyFile = fromStdin ? null : plan.newKeyFile;
  const settings = {
    oldKey,
    keyApi: found !== undefined,
    newKeyId: plan.newKeyId,
    newKeyFile,
    deployCmd: plan.deployCmd,
    quietPeriodMs: plan.quietPeriodMs,
    drainCheckCmd: plan.drainCheckCmd,
    drainWaitMs: plan.drainWaitMs,
    baseUrl: plan.baseUrl,
  };
  if (found) {
    const takenUp = await takeUpEarlierKey(oldKey, plan, { newKeyFile, aborted: journals.map((rotation) => rotation.id) });
    if (takenUp) return { record: takeUp(newRotation({ ...settings, newKeySource: 'api' }, takenUp), takenUp.key), earlier: false, takenUp: takenUp.key };
  }
  const source = await newKeySource(keyId, oldKey, found !== undefined, { newKeyFile, fromStdin, oldKeySecret: plan.oldKeySecret });
  if (source === 'api' && plan.newKeyId) {
    throw new SvcError(
      'usage',
      'new_key_id_without_key',
      `--new-key-id names a key made in the dashboard, and no such key was given (${newKeyFile ?? 'no --new-key-file'} holds none but the old key's)`,
      'give the key with --new-key-file FILE or --new-key-file -, or leave out --new-key-id for svc to make the key',
    );
  }
  if (source === 'api' && !newKeyFile && !plan.deployCmd) {
    throw new SvcError(
      'usage',
      'no_destination',
      'the new secret needs a destination, and svc never prints it',
      'pass --new-key-file <path> (resumable at every step), --deploy-cmd <command>, or both',
    );
  }
  return { record: newRotation({ ...settings, newKeySource: source }), earlier: false };
}

/**
 * A key that a rotation of the old key made, which the service shows active though no journal here
 * records that rotation: it ran on another runner, or from a state directory since lost, and the key may
 * be deployed. It is taken up where its secret is at hand (--new-key-file holds it, or it is given on
 * stdin) and the service shows the hint to tell it by; else the run stops and names it. A run never makes
 * a second key beside it. Where the service offers no key list, there is nothing to look in.
 */
async function takeUpEarlierKey(
  oldKey: OldKey,
  plan: PlanInput,
  here: { newKeyFile: string | null; aborted: string[] },
): Promise<{ key: Key; rotationId: string; name: string } | undefined> {
  const made = await keysOfRotationsOf(oldKey.id, plan.admin);
  if (!made?.length) return undefined;
  const refuse = (what: string, whatToDo: string) =>
    new SvcError('refused', 'rotation_key_exists', `${what}; svc makes no second key beside it, and nothing was changed`, whatToDo);
  if (made.length > 1) {
    throw refuse(
      `${made.map((key) => keyLabel(key)).join(', ')}, made by earlier rotations of ${oldKey.id}, are active`,
      `revoke those that nothing uses (\`svc keys revoke KEY_ID\`), then run again; where one is deployed, put its secret in --new-key-file so that svc takes it up`,
    );
  }
  const key = made[0]!;
  const rotationId = rotationOfKeyName(key.name, oldKey.id)!;
  const label = `${keyLabel(key)}, made by rotation ${rotationId} of ${oldKey.id}`;
  if (here.aborted.includes(rotationId)) {
    throw refuse(
      `${label}, is active: that rotation was aborted, and left the key as it may be deployed`,
      `revoke it once nothing uses it (\`svc keys revoke ${key.id}\`), then run again`,
    );
  }
  const given = plan.givenSecret ?? (here.newKeyFile ? (await readSecretFile(here.newKeyFile))?.trim() : undefined);
  const takeItUp = `if it is deployed, give its secret with --new-key-file (the file that holds it) and run again, and svc takes it up; if not, revoke it (\`svc keys revoke ${key.id}\`) and run again`;
  const notItsSecret = (): string | undefined => {
    const what = !given ? 'nothing' : keyEnvironment(given) ? `another key (${redactKey(given)})` : 'no key';
    if (plan.givenSecret !== undefined) return redactKey(given!) === key.prefix_hint ? undefined : `the key given on stdin is ${what}`;
    if (!here.newKeyFile) return 'no --new-key-file holds its secret';
    return given && redactKey(given) === key.prefix_hint ? undefined : `${here.newKeyFile} holds ${what}`;
  };
  const found = `${label} (on another runner, or from a state directory since lost), is active`;
  if (!isRedactedKey(key.prefix_hint)) throw refuse(`${found}, and the service shows no hint of its secret to tell whether svc was given it`, takeItUp);
  const missing = notItsSecret() ?? (plan.newKeyId !== null && plan.newKeyId !== key.id ? `--new-key-id names another key, ${plan.newKeyId}` : undefined);
  if (missing) throw refuse(`${found}, and ${missing}`, takeItUp);
  return { key, rotationId, name: key.name! };
}

/**
 * The rotation that made `key`, as the evidence shows it: the key made (step 1) and its secret at hand
 * (step 2); its deploy may have run, and is run again (after asking, or with --yes), as after a deploy
 * that was interrupted. A deploy command must be idempotent for that (docs/key-rotation.md).
 */
function takeUp(record: RotationRecord, key: Key): RotationRecord {
  const now = record.started_at;
  const made = typeof key.created_at === 'string' && !Number.isNaN(Date.parse(key.created_at)) ? key.created_at : now;
  record.attempts = { deploy: made };
  record.steps = {
    create: { at: made, new_key: { id: key.id, prefix_hint: key.prefix_hint } },
    save: { at: now, to: record.new_key_file ? 'file' : 'deploy_cmd' },
  };
  return record;
}
