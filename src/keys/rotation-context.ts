import type { Writable } from 'node:stream';
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import type { DrainEvidence, RotationJournal, RotationRecord } from './journal.js';
import type { RotationEvent, RotationQuestion } from './rotation-events.js';

export interface RotationContext {
  /** Where the rotation is recorded, step by step. */
  journal: RotationJournal;
  /** Authenticated with the admin key. */
  admin: ApiClient;
  /** A client on the same connection that authenticates with `secret`. */
  clientWith(secret: string): Promise<ApiClient>;
  /** The old key's secret when svc has it (--old-key-file, or the configured API key): step 7 then tries it. */
  oldKeySecret: string | undefined;
  /** A new key given on stdin, made in the dashboard. */
  givenSecret: string | undefined;
  /** What decides the drain (see drainEvidence). */
  drainEvidence: DrainEvidence;
  /** Every secret this run knows (the admin key, the API key…): redacted from the deploy command's output. */
  secrets: readonly string[];
  /** Where the deploy command's output goes (svc's stderr, so that stdout stays --json). */
  deployOutput: Writable;
  /** The environment the deploy and drain check commands start from (the command's; svc's own variables are left out). */
  env: NodeJS.ProcessEnv;
  ask(question: RotationQuestion): Promise<boolean>;
  emit(event: RotationEvent): void;
  signal: AbortSignal;
  /** The command's time: the drain's deadlines and waits, and the times each step is recorded at. */
  clock: Clock;
  pollIntervalMs: number;
  timeoutMs: number;
  force: boolean;
  /** A given key may be deployed though svc could not establish that it is of the old key's workspace (--allow-unverified-workspace). */
  allowUnverifiedWorkspace: boolean;
  /** A given key may have another scope than the old key (read-only, IP list) (--allow-scope-change). */
  allowScopeChange: boolean;
  /** A person at a terminal answers (a terminal, not CI, no --yes): what svc could not establish of a given key is put to them. */
  personCanConfirm: boolean;
  /** How this rotation continues after it stops, for the hints of its errors (resumeHint). */
  resume: ResumeCommand;
}

/**
 * The command that continues a rotation: `svc keys rotate --resume rot_…` and the flags of the run that
 * the journal does not keep (never a secret), and, in words, what it needs that no command line may carry.
 */
export interface ResumeCommand {
  command: string;
  /** Said after the command, in parentheses: what the next run needs that this one was given on its command line and is secret. */
  needs?: string | undefined;
}

/** How to continue the rotation, for a hint: the command in backticks (`more` words added to it), then what it needs besides. */
export function resumeHint(context: Pick<RotationContext, 'resume'>, more = ''): string {
  const { command, needs } = context.resume;
  return `\`${command}${more}\`${needs ? ` (${needs})` : ''}`;
}

/** The error of a run stopped at the operator's answer. */
export function cancelled(record: RotationRecord, context: Pick<RotationContext, 'resume'>): SvcError {
  return new SvcError(
    'failure',
    'cancelled',
    `rotation ${record.id} stopped at your answer; nothing more was changed`,
    `continue it with ${resumeHint(context)}, or end it with --abort`,
  );
}

/** The context's time now, as a journal records it. */
export function isoNow(context: Pick<RotationContext, 'clock'>): string {
  return new Date(context.clock.now()).toISOString();
}
