import type { RotationRecord } from '../keys/journal.js';
import { keyLabel, nextStep, stepNumber } from '../keys/journal.js';
import type { DrainProgress, RotationEvent } from '../keys/rotation-events.js';
import { formatDuration } from '../core/duration.js';
import { writeJsonLine } from './json-lines.js';
import { liveLine } from './live-line.js';
import type { Output } from './io.js';
import { fittedLine, renderTable } from './table.js';
import { stringWidth } from './text-width.js';
import { terminalText } from './terminal-text.js';
import type { TimeView } from './time.js';

/** Shows a rotation's events to people or scripts. */
export interface RotationView {
  show(event: RotationEvent): void;
  /** Clears a live line before a prompt or an error is written. */
  pause(): void;
  stop(): void;
}

/** One line of `keys rotate --json`: an event of the rotation and when it happened. */
export type RotationJsonLine = RotationEvent & { at: string };

/** `--json`: one JSON object per line on stdout, each with the time it happened. */
export function jsonLinesView(out: Output): RotationView {
  return {
    show: (event) => writeJsonLine(out, { ...event, at: new Date().toISOString() } satisfies RotationJsonLine),
    pause: () => undefined,
    stop: () => undefined,
  };
}

/** m:ss, or h:mm:ss past an hour. */
function clock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/**
 * Where the drain stands, in one line of at most `columns` cells where it can be: the old key's last
 * address is the first left out, then the words are shortened.
 */
function drainLine(progress: DrainProgress, elapsedMs: number, columns?: number): string {
  const quietFor = progress.old_key_quiet_for_ms;
  const lastUse = progress.old_key_last_used_ip ? ` (last use from ${terminalText(progress.old_key_last_used_ip)})` : '';
  const left = `gives up in ${clock(progress.timeout_in_ms - elapsedMs)}`;
  const silent = quietFor === null ? undefined : [clock(quietFor + elapsedMs), clock(progress.quiet_period_ms)];
  const line = (from: string) =>
    `drain  ${silent ? `old key silent ${silent[0]} of ${silent[1]}${from}` : 'old key never used'} · new key used: ${progress.new_key_used ? 'yes' : 'not yet'} · ${left}`;
  const short = `drain  ${silent ? `old key silent ${silent[0]}/${silent[1]}` : 'old key never used'} · new key ${progress.new_key_used ? 'used' : 'not used yet'} · ${left}`;
  if (columns === undefined) return line(lastUse);
  return [line(lastUse), line(''), short].find((text) => stringWidth(text) <= columns) ?? short;
}

const PROGRESS_LINE_EVERY_MS = 10_000;

/**
 * For people, on stderr: a line per step; during the drain a countdown rewritten every second on a
 * terminal, and a progress line at most every 10 s elsewhere.
 */
export function humanView(out: Output): RotationView {
  let live: { progress: DrainProgress; since: number } | undefined;
  let lastLineAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  // Lines carry what the API answered (key ids, last-use addresses): escaped.
  const write = (line: string) => out.write(`${fittedLine(terminalText(line), out)}\n`);
  const line = liveLine(out);
  const clearLive = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (live && out.isTTY) line.clear();
    live = undefined;
  };
  const drawLive = () => {
    if (live) line.draw(drainLine(live.progress, performance.now() - live.since, out.columns - 1));
  };

  return {
    show(event) {
      if (event.event === 'drain_progress') {
        if (out.isTTY) {
          live = { progress: event, since: performance.now() };
          drawLive();
          timer ??= setInterval(drawLive, 1000).unref();
        } else if (performance.now() - lastLineAt >= PROGRESS_LINE_EVERY_MS) {
          lastLineAt = performance.now();
          write(drainLine(event, 0));
        }
        return;
      }
      clearLive();
      switch (event.event) {
        case 'started':
          write(
            `Rotation ${event.rotation} of ${keyLabel(event.old_key)}: ${event.resumed ? 'resuming at' : 'starting with'} step ${stepNumber(event.next_step)}/7 (${event.next_step})`,
          );
          break;
        case 'step_done':
          write(`✓ ${event.number}/7 ${event.step.padEnd(7)} ${event.message}`);
          break;
        case 'drain_check':
          write(`  drain check exited ${event.exit_code ?? 'by a signal'}: the old key still has traffic; gives up in ${clock(event.timeout_in_ms)}`);
          break;
        case 'new_key_replaced':
          write(`! revoked ${event.revoked_key}: ${event.reason}; step 1 makes another`);
          break;
        case 'notice':
          write(`  ${event.message}`);
          break;
        case 'completed':
        case 'aborted':
          break;
      }
    },
    pause: clearLive,
    stop: clearLive,
  };
}

/** Where a rotation stands, in words: completed, aborted, or the step it continues with. */
function rotationState(record: RotationRecord): string {
  if (record.status !== 'in_progress') return record.status;
  const step = nextStep(record);
  return step ? `at step ${stepNumber(step)}/7 (${step})` : 'finishing';
}

export function renderRotations(records: RotationRecord[], times: TimeView, out: Output): string {
  return renderTable(
    [
      'rotation',
      // Old and new key in one column, wrapped between words: two key ids side by side leave no room at 80 columns.
      'keys',
      { title: 'state', freeText: true },
      { title: 'quiet period', leaveOut: 2 },
      { title: 'started', leaveOut: 1 },
      { title: 'updated', leaveOut: 3 },
    ],
    records.map((record) => [
      record.id,
      `${keyLabel(record.old_key)}${record.steps.create ? ` → ${record.steps.create.new_key.id ?? 'given'} (${record.steps.create.new_key.prefix_hint})` : ''}`,
      rotationState(record),
      formatDuration(record.quiet_period_ms),
      times.short(record.started_at),
      times.short(record.updated_at),
    ]),
    out,
  );
}
