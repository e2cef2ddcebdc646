import type { DrainEvidence, StepName } from './journal.js';

/** What the engine reports as it goes; the command renders them (a countdown on a terminal, JSON lines with --json). */
export type RotationEvent =
  | { event: 'started'; rotation: string; old_key: { id: string; prefix_hint: string | null }; resumed: boolean; next_step: StepName }
  /** `evidence`: with the drain step, what decided that the old key has no traffic. */
  | { event: 'step_done'; rotation: string; step: StepName; number: number; message: string; evidence?: DrainEvidence }
  /** The drain check command exited non-zero: the old key still has traffic. */
  | { event: 'drain_check'; rotation: string; attempt: number; exit_code: number | null; timeout_in_ms: number }
  | {
      event: 'drain_progress';
      rotation: string;
      old_key_last_used_at: string | null;
      old_key_last_used_ip: string | null;
      /** null when the old key has never been used */
      old_key_quiet_for_ms: number | null;
      quiet_period_ms: number;
      new_key_used: boolean;
      new_key_last_used_at: string | null;
      timeout_in_ms: number;
    }
  | { event: 'new_key_replaced'; rotation: string; revoked_key: string; reason: string }
  | { event: 'notice'; rotation: string; message: string }
  | { event: 'completed'; rotation: string; old_key: string; new_key: string | null; new_key_file: string | null }
  | { event: 'aborted'; rotation: string; new_key_revoked: string[]; new_key_left: string | null };

export type DrainProgress = Extract<RotationEvent, { event: 'drain_progress' }>;

/** The decisions a person (or --yes) makes during a rotation. */
export type RotationQuestion =
  | { kind: 'deployed'; message: string }
  | { kind: 'repeat_deploy'; message: string }
  | { kind: 'force_revoke'; message: string; progress: DrainProgress }
  /** Asked only of a person at a terminal, never answered by --yes. */
  | { kind: 'drained'; message: string }
  /** What svc could not establish of a given key (its workspace, its scope); asked only of a person at a terminal, never answered by --yes. */
  | { kind: 'unverified_key'; message: string };
