import type { ApiClient } from '../api/client.js';
import type { Key } from '../api/types.js';
import { redactKey } from '../config/keys.js';
import { SvcError } from '../errors.js';
import { formatDuration } from '../duration.js';
import { getKey } from '../services/keys.js';
import { listRotations, newRotationId, type RotationRecord, type StepName, STEPS, stepNumber } from './journal.js';

interface RotationPlan {
  oldKey: Key;
  newKeyFile: string | null;
  deployCmd: string | null;
  quietPeriodMs: number;
  baseUrl: string;
}

const NAME_LIMIT = 100;

/** The new key's name: the old one's label and the rotation id, so that it can be found again after a crash. */
function newKeyName(oldKey: Key, rotationId: string): string {
  const suffix = ` (rotation ${rotationId})`;
  const label = (oldKey.name ?? oldKey.id).replace(/ \(rotation rot_[0-9a-f]+\)$/, '');
  return `${label.slice(0, NAME_LIMIT - suffix.length)}${suffix}`;
}

/**
 * The safety rails checked before anything happens: a revoked key has nothing to rotate; an admin
 * key cannot be made through the API (and may be the very key doing the revoking).
 */
function assertRotatable(oldKey: Key, adminKeySecret: string): void {
  if (oldKey.environment === 'admin') {
    if (oldKey.prefix_hint === redactKey(adminKeySecret)) {
      throw new SvcError(
        'refused',
        'revoking_own_key',
        `${oldKey.id} is the admin key this rotation would revoke with`,
        'a key cannot revoke itself: rotate admin keys in the dashboard (Settings, API Keys)',
      );
    }
    throw new SvcError(
      'refused',
      'admin_key_rotation',
      `${oldKey.id} is an admin key, and admin keys are created in the dashboard only`,
      'rotate admin keys in the dashboard (Settings, API Keys)',
    );
  }
  if (oldKey.status !== 'active') {
    throw new SvcError('refused', 'key_revoked', `${oldKey.id} is already revoked: there is nothing to rotate`, '`svc keys list` shows the active keys');
  }
}

function newRotation(plan: RotationPlan): RotationRecord {
  const id = newRotationId();
  const now = new Date().toISOString();
  const { oldKey } = plan;
  return {
    version: 1,
    id,
    status: 'in_progress',
    started_at: now,
    updated_at: now,
    base_url: plan.baseUrl,
    old_key: {
      id: oldKey.id,
      name: oldKey.name,
      environment: oldKey.environment as 'test' | 'live',
      prefix_hint: oldKey.prefix_hint,
      read_only: oldKey.read_only,
      allowed_ips: oldKey.allowed_ips,
    },
    new_key_name: newKeyName(oldKey, id),
    new_key_file: plan.newKeyFile,
    deploy_cmd: plan.deployCmd,
    quiet_period_ms: plan.quietPeriodMs,
    attempts: {},
    steps: {},
  };
}

/** What each step left to do will do, for `--dry-run`. */
export function describeSteps(record: RotationRecord): Array<{ step: StepName; number: number; action: string }> {
  const old = record.old_key;
  const scope = `${old.read_only ? 'read-only' : 'read-write'}, ${old.allowed_ips.length ? `locked to ${old.allowed_ips.join(', ')}` : 'any IP'}`;
  const actions: Record<StepName, string> = {
    create: `create a ${old.environment} key "${record.new_key_name}" with the scope of ${old.id} (${old.prefix_hint}): ${scope}`,
    save: record.new_key_file ? `write its secret to ${record.new_key_file} (0600, atomically)` : 'keep its secret in memory for the deploy command only',
    deploy: record.deploy_cmd
      ? `run the deploy command with the secret in SVC_NEW_API_KEY and on stdin: ${record.deploy_cmd}`
      : 'ask the operator to confirm the deploy (--yes: the key file is the deploy)',
    verify: 'make a read request with the new key',
    drain: `wait until ${old.id} has been silent for ${formatDuration(record.quiet_period_ms)} and the new key has been used`,
    revoke: `revoke ${old.id} with the admin key`,
    confirm: `check that ${old.id} is refused (401 invalid_key)`,
  };
  return STEPS.filter((step) => !record.steps[step]).map((step) => ({ step, number: stepNumber(step), action: actions[step] }));
}

export function applyChanges(
  record: RotationRecord,
  changes: { newKeyFile?: string | undefined; deployCmd?: string | undefined; quietPeriodMs?: number | undefined },
): void {
  if (changes.newKeyFile !== undefined && changes.newKeyFile !== record.new_key_file) {
    throw new SvcError(
      'usage',
      'key_file_changed',
      `rotation ${record.id} keeps its new secret in ${record.new_key_file ?? 'no file'}, not ${changes.newKeyFile}`,
      'leave out --new-key-file, or give the same path',
    );
  }
  if (changes.deployCmd !== undefined) record.deploy_cmd = changes.deployCmd;
  if (changes.quietPeriodMs !== undefined) record.quiet_period_ms = changes.quietPeriodMs;
}

/**
 * The rotation of `keyId` against `baseUrl`: the one under way or complete, if any (`earlier`, so
 * that running the command again is safe), or a new one after the safety rails, its key read with
 * the admin client. A new rotation needs a destination for the secret: a file or a deploy command.
 */
export async function findOrPlanRotation(
  keyId: string | undefined,
  plan: { admin: ApiClient; adminKeySecret: string; baseUrl: string; newKeyFile: string | null; deployCmd: string | null; quietPeriodMs: number },
): Promise<{ record: RotationRecord; earlier: boolean }> {
  if (!keyId)
    throw new SvcError(
      'usage',
      'missing_key_id',
      'name the key to rotate',
      'svc keys rotate key_… --new-key-file …; `svc keys list` shows the keys, --resume continues a rotation',
    );
  const earlier = (await listRotations()).find(
    (rotation) => rotation.old_key.id === keyId && rotation.base_url === plan.baseUrl && rotation.status !== 'aborted',
  );
  if (earlier) return { record: earlier, earlier: true };
  const oldKey = await getKey(plan.admin, keyId);
  assertRotatable(oldKey, plan.adminKeySecret);
  if (!plan.newKeyFile && !plan.deployCmd) {
    throw new SvcError(
      'usage',
      'no_destination',
      'the new secret needs a destination, and svc never prints it',
      'pass --new-key-file <path> (resumable at every step), --deploy-cmd <command>, or both',
    );
  }
  const record = newRotation({ oldKey, newKeyFile: plan.newKeyFile, deployCmd: plan.deployCmd, quietPeriodMs: plan.quietPeriodMs, baseUrl: plan.baseUrl });
  return { record, earlier: false };
}
