import { randomBytes } from 'node:crypto';
import { KEY_PREFIXES } from '../core/redaction.js';
import { ConfigError, SvcError } from '../core/errors.js';

/** The seven steps of a rotation (spec part 5, rule 7), in order. */
export const STEPS = ['create', 'save', 'deploy', 'verify', 'drain', 'revoke', 'confirm'] as const;
export type StepName = (typeof STEPS)[number];

export interface KeyRef {
  /** null for a key given without --new-key-id: the service offers no way to learn it. */
  id: string | null;
  prefix_hint: string;
}

/**
 * What decided that the old key has no traffic: its last use as the key API shows it, the user's
 * check command, a person who looked at the dashboard, or a wait after the deploy.
 */
export type DrainEvidence = 'last_use' | 'check_command' | 'person' | 'wait';

/** Where the new key comes from: made through the key API, or made in the dashboard and given in a file or on stdin. */
export type NewKeySource = 'api' | 'file' | 'stdin';

/** What each step recorded when it was done; a step is done when its record exists. */
export interface StepRecords {
  /** A given key was checked: `workspace` and `scope` say whether they are the old key's, or why that was not compared. */
  create: { at: string; new_key: KeyRef; workspace?: string; scope?: string };
  save: { at: string; to: 'file' | 'deploy_cmd' };
  deploy: { at: string; by: 'command' | 'operator' };
  verify: { at: string; ip_locked: boolean; new_key_used_after: string };
  /** `old_key_last_used_at` and `new_key_last_used_at` with the evidence `last_use` only. */
  drain: { at: string; forced: boolean; evidence?: DrainEvidence; old_key_last_used_at?: string | null; new_key_last_used_at?: string | null };
  /** revoked_at: when the service says the revocation took effect, null when its answer does not say. */
  revoke: { at: string; revoked_at: string | null };
  /** not_confirmed: svc held no secret of the old key to try, and the service shows no key's status. */
  confirm: { at: string; by: 'request' | 'key_status' | 'not_confirmed' };
}

/**
 * One rotation, as kept in `$XDG_STATE_HOME/svc/rotations/<id>.json` (0600, replaced atomically) or in
 * the shared store's table. It never holds a secret: the new one lives in `new_key_file` or went to the deploy command.
 */
export interface RotationRecord {
  version: 1;
  id: string;
  status: 'in_progress' | 'completed' | 'aborted';
  started_at: string;
  updated_at: string;
  base_url: string;
  /**
   * Scope (read_only, allowed_ips) and name are null where the service offers no key reads; the hint
   * is null (absent in journals of before) where it shows none: the specification shows no key field beyond the id.
   */
  old_key: {
    id: string;
    prefix_hint?: string | null;
    name: string | null;
    environment: 'test' | 'live';
    read_only: boolean | null;
    allowed_ips: string[] | null;
  };
  /** Whether the service offers key reads (GET /v1/keys/{id}, with the last use); absent in journals of before: true. */
  key_api?: boolean;
  /** Absent in journals of before: api. */
  new_key_source?: NewKeySource;
  /** A given key's id, where the dashboard showed it (--new-key-id). */
  new_key_id?: string | null;
  /** The new key is created under this name, so that it can be found after a crash that lost the answer. */
  new_key_name: string;
  new_key_file: string | null;
  deploy_cmd: string | null;
  quiet_period_ms: number;
  /** The user's command that exits 0 when the old key has no traffic (no secret in it or its environment). */
  drain_check_cmd?: string | null;
  /** How long to wait after the deploy when no other evidence of the drain is at hand. */
  drain_wait_ms?: number | null;
  /** When an effect of a step not yet done was started: a key may exist, a deploy may have run. */
  attempts: { create?: string; deploy?: string };
  steps: Partial<StepRecords>;
  aborted?: { at: string; new_key_revoked: boolean };
}

export function newRotationId(): string {
  return `rot_${randomBytes(10).toString('hex')}`;
}

/** The longest name svc gives a key (openapi.yaml's KeyCreate.name): a service may take no more. */
const NAME_LIMIT = 100;

/** The end of the name of a key made by a rotation: its id and the old key's, the first journals' without the old key's. */
const ROTATION_SUFFIX = / \(rotation (rot_[0-9a-f]+)(?: of (key_[A-Za-z0-9_-]+))?\)$/;

/**
 * The new key's name: the old one's label, the rotation id, and the old key's id. A run that lost its
 * journal (a crash, another runner with an empty state directory) finds the key a rotation of the same
 * old key made by its name, and the rotation it belongs to.
 */
export function newKeyName(oldKey: { id: string; name: string | null }, rotationId: string): string {
  const suffix = ` (rotation ${rotationId} of ${oldKey.id})`;
  const label = (oldKey.name ?? oldKey.id).replace(ROTATION_SUFFIX, '');
  return `${label.slice(0, Math.max(0, NAME_LIMIT - suffix.length))}${suffix}`;
}

/** The rotation that made a key of `oldKeyId`, as the key's name says; undefined for a key of no rotation of it. */
export function rotationOfKeyName(name: unknown, oldKeyId: string): string | undefined {
  const match = typeof name === 'string' ? ROTATION_SUFFIX.exec(name) : null;
  return match?.[2] === oldKeyId ? match[1] : undefined;
}

/** A key as people read it: its id, with the hint of its secret where there is one. */
export function keyLabel(key: { id: string; prefix_hint?: string | null }): string {
  return key.prefix_hint ? `${key.id} (${key.prefix_hint})` : key.id;
}

export function nextStep(record: RotationRecord): StepName | undefined {
  return STEPS.find((step) => !record.steps[step]);
}

export function stepNumber(step: StepName): number {
  return STEPS.indexOf(step) + 1;
}

/** A rotation's lock: its run alone works on the rotated key until it releases it. */
export interface RotationLock {
  /**
   * Aborted, with the error to report, when the lock was lost before it was released (the shared store's
   * connection died): another runner may take the rotation over, so this run stops at once.
   */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

/**
 * Where rotations are recorded, and how one run at a time is made the only one rotating a key: files in
 * the state directory and a lock of the system (file-journal.ts), or a PostgreSQL database every runner
 * shares and its advisory locks (postgres-journal.ts). The engine does not know which.
 */
export interface RotationJournal {
  /** Where the journals are, as it may be shown: a directory, or a connection string without its password. */
  readonly where: string;
  /** Records the rotation as it now stands, whole: a crash leaves the previous state or this one. */
  save(record: RotationRecord): Promise<void>;
  /** The rotation `id`, as svc wrote it. */
  load(id: string): Promise<RotationRecord>;
  /** The rotations of the key `oldKeyId` of `baseUrl`, or every one, newest first. */
  list(of?: { oldKeyId: string; baseUrl: string }): Promise<RotationRecord[]>;
  /**
   * Makes this run the only one rotating `keyId` of `baseUrl`, taken before anything is planned, so that
   * two runs started together never both create, deploy or revoke; refused (exit 15) while another holds it.
   */
  lock(keyId: string, baseUrl: string): Promise<RotationLock>;
  /**
   * Refuses to go on with `record` when its journal changed after it was read: another run worked on
   * the rotation in between, and this one would repeat what that one did. Called with the lock held.
   */
  assertUnchanged(record: RotationRecord): Promise<void>;
  close(): Promise<void>;
}

/** The refusal of a run that another holds the lock against: `holder` names it where the store knows. */
export function rotationInProgress(keyId: string, holder: string | undefined): SvcError {
  return new SvcError(
    'refused',
    'rotation_in_progress',
    `a rotation of ${keyId} is being run by ${holder ?? 'another svc process'}`,
    'wait for it to finish, or stop it (Ctrl-C) and resume with --resume',
  );
}

export function rotationMovedOn(record: RotationRecord): SvcError {
  return new SvcError(
    'refused',
    'rotation_moved_on',
    `rotation ${record.id} was moved on by another run while this one was starting`,
    'run the command again: it continues from where that run stopped',
  );
}

export function rotationNotFound(id: string, where: string): SvcError {
  return new SvcError('notFound', 'rotation_not_found', `there is no rotation ${id} in ${where}`, '`svc keys rotations` lists them');
}

/** A rotation id as svc makes them; any other is refused before it names a file or a row. */
export function assertRotationId(id: string): void {
  if (!/^rot_[0-9a-f]+$/.test(id)) throw new SvcError('usage', 'invalid_rotation_id', `${id} is not a rotation id (rot_…)`, '`svc keys rotations` lists them');
}

/** The rotation `id` names (a rotation id, or the rotated key's id), or without one the one unfinished rotation. */
export async function findRotation(journal: RotationJournal, id: string | undefined): Promise<RotationRecord> {
  if (id?.startsWith('rot_')) return journal.load(id);
  const unfinished = (await journal.list()).filter((rotation) => rotation.status === 'in_progress' && (id === undefined || rotation.old_key.id === id));
  if (unfinished.length === 1) return unfinished[0]!;
  if (unfinished.length === 0) {
    throw new SvcError(
      'notFound',
      'no_unfinished_rotation',
      `there is no unfinished rotation${id ? ` of ${id}` : ''} in ${journal.where}`,
      '`svc keys rotations` lists the rotations and their state',
    );
  }
  throw new SvcError(
    'usage',
    'several_rotations',
    `${unfinished.length} rotations are unfinished: ${unfinished.map((rotation) => `${rotation.id} (${rotation.old_key.id})`).join(', ')}`,
    'name one: svc keys rotate --resume rot_…',
  );
}

/** A journal as read, once it is shown to be one svc wrote: `where` names it in the refusal. */
export function readRecord(value: unknown, id: string, where: string): RotationRecord {
  const problem = problemOf(value, id);
  if (problem) throw journalInvalid(where, problem);
  return value as RotationRecord;
}

/** A journal as text, once it is shown to be one svc wrote. */
export function parseRecord(text: string, id: string, where: string): RotationRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw journalInvalid(where, 'it is not JSON');
  }
  return readRecord(value, id, where);
}

/** A rotation continues against the API it was started against. */
export function assertSameBaseUrl(record: RotationRecord, baseUrl: string): void {
  if (record.base_url !== baseUrl) {
    throw new ConfigError(
      'other_base_url',
      `rotation ${record.id} was started against ${record.base_url}, and this run would talk to ${baseUrl}`,
      'use the profile, SVC_BASE_URL or --base-url of that rotation',
    );
  }
}

function journalInvalid(where: string, problem: string): SvcError {
  return new SvcError(
    'config',
    'journal_invalid',
    `${where} is not a rotation journal as svc writes it: ${problem}; nothing was done`,
    'svc acts on a journal only as it wrote it: restore it, or remove it and start the rotation again (check the keys with `svc keys list`)',
  );
}

const KEY_ID = /^key_[A-Za-z0-9_-]+$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isTime = (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value));
const stringOrNull = (value: unknown) => value === null || typeof value === 'string';

/**
 * What makes a journal one svc would not have written: a field of the wrong type, a key id without
 * its prefix, a base URL that does not parse, steps out of order. A resumed run acts on the ids and
 * URL it finds there (it revokes the old key and may revoke the new one): an edited journal must
 * not choose what svc revokes, or where it sends its keys.
 */
function problemOf(value: unknown, id: string): string | undefined {
  if (!isObject(value)) return 'it is not an object';
  if (value.version !== 1) return `its version is ${JSON.stringify(value.version)}, not 1`;
  if (value.id !== id) return `its id is ${JSON.stringify(value.id)}, not ${id}`;
  if (!['in_progress', 'completed', 'aborted'].includes(value.status as string)) return 'its status is not in_progress, completed or aborted';
  if (!isTime(value.started_at) || !isTime(value.updated_at)) return 'started_at or updated_at is not a time';
  if (typeof value.base_url !== 'string' || !URL.canParse(value.base_url) || !/^https?:$/.test(new URL(value.base_url).protocol))
    return 'base_url is not a URL';
  const old = value.old_key;
  if (!isObject(old) || typeof old.id !== 'string' || !KEY_ID.test(old.id)) return 'old_key.id is not a key id (key_…)';
  // The service's own hint, which it may not show (the specification shows no key field beyond the id).
  if (old.prefix_hint !== undefined && old.prefix_hint !== null && typeof old.prefix_hint !== 'string') return 'old_key.prefix_hint is not text';
  if (old.environment !== 'test' && old.environment !== 'live') return 'old_key.environment is not test or live';
  if (!stringOrNull(old.name) || !(old.read_only === null || typeof old.read_only === 'boolean')) return 'old_key.name or old_key.read_only has the wrong type';
  if (!(old.allowed_ips === null || (Array.isArray(old.allowed_ips) && old.allowed_ips.every((ip) => typeof ip === 'string'))))
    return 'old_key.allowed_ips is not a list of addresses';
  if (value.new_key_source !== undefined && !['api', 'file', 'stdin'].includes(value.new_key_source as string))
    return 'new_key_source is not api, file or stdin';
  if (value.new_key_id !== undefined && value.new_key_id !== null && !(typeof value.new_key_id === 'string' && KEY_ID.test(value.new_key_id)))
    return 'new_key_id is not a key id';
  if (typeof value.new_key_name !== 'string' || !stringOrNull(value.new_key_file) || !stringOrNull(value.deploy_cmd))
    return 'new_key_name, new_key_file or deploy_cmd has the wrong type';
  // The name svc gives the key it makes, by which an interrupted run's key is found, and revoked when its secret is lost.
  if (ROTATION_SUFFIX.exec(value.new_key_name)?.[1] !== id) return `new_key_name does not end with " (rotation ${id} of ${old.id})"`;
  if (value.key_api !== undefined && typeof value.key_api !== 'boolean') return 'key_api is not true or false';
  if (typeof value.quiet_period_ms !== 'number' || value.quiet_period_ms < 0) return 'quiet_period_ms is not a duration';
  if (!(value.drain_wait_ms == null || (typeof value.drain_wait_ms === 'number' && value.drain_wait_ms >= 0))) return 'drain_wait_ms is not a duration';
  if (!(value.drain_check_cmd === undefined || stringOrNull(value.drain_check_cmd))) return 'drain_check_cmd is not text';
  if (!isObject(value.attempts) || !isObject(value.steps)) return 'attempts or steps is not an object';
  if (!Object.values(value.attempts).every(isTime)) return 'attempts holds something other than times';
  const done = Object.keys(value.steps);
  if (done.some((step) => !STEPS.includes(step as StepName))) return `steps names a step svc does not have (${done.join(', ')})`;
  if (done.length !== STEPS.findIndex((step) => !done.includes(step)) && done.length !== STEPS.length) return 'its steps are not done in order';
  if (!Object.values(value.steps).every((step) => isObject(step) && isTime(step.at))) return 'a step is not recorded with the time it was done';
  const created = value.steps.create;
  if (created !== undefined) {
    const newKey = isObject(created) ? created.new_key : undefined;
    if (!isObject(newKey) || !(newKey.id === null || (typeof newKey.id === 'string' && KEY_ID.test(newKey.id))))
      return 'steps.create.new_key.id is not a key id';
    if (newKey.id === old.id) return 'its new key is its old key';
    // svc's own form of the new secret, which has the old key's environment.
    if (typeof newKey.prefix_hint !== 'string' || !newKey.prefix_hint.startsWith(`${KEY_PREFIXES[old.environment]}…`))
      return `steps.create.new_key.prefix_hint is not a ${old.environment} key's (${KEY_PREFIXES[old.environment]}…)`;
  }
  return undefined;
}
