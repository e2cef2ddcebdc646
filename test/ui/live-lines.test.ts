/**
 * A live line (a spinner's, the key rotation's drain countdown) at an 80-column terminal: drawn on a
 * terminal emulator, every redraw replaces the line instead of leaving a wrapped row behind.
 */
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { DrainProgress } from '../../src/keys/rotation-events.js';
import { Io, Output } from '../../src/ui/io.js';
import { humanView } from '../../src/ui/rotation.js';
import { withSpinner } from '../../src/ui/spinner.js';
import { finalScreen, widerThan } from '../helpers/terminal.js';

const COLUMNS = 80;

function terminalStream(): { stream: NodeJS.WriteStream; raw: () => string } {
  const stream = new PassThrough();
  let raw = '';
  stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  Object.assign(stream, { isTTY: true, columns: COLUMNS });
  return { stream: stream as unknown as NodeJS.WriteStream, raw: () => raw };
}

/** Each drawing of a line: what follows each carriage return or line feed. */
const drawings = (raw: string) => stripVTControlCharacters(raw).split(/\r|\n/);

const drain = (quietForMs: number): DrainProgress => ({
  event: 'drain_progress',
  rotation: 'rot_0123456789abcdef0123',
  old_key_last_used_at: '2026-11-27T20:00:00Z',
  old_key_last_used_ip: '2001:db8:85a3:8d3:1319:8a2e:370:7348',
  old_key_quiet_for_ms: quietForMs,
  quiet_period_ms: 15 * 60_000,
  new_key_used: false,
  new_key_last_used_at: null,
  timeout_in_ms: 2 * 3_600_000,
});

describe(`live lines at a ${COLUMNS}-column terminal`, () => {
  it("keys rotate's drain countdown is laid out to the width and leaves no line behind its redraws", async () => {
    const { stream, raw } = terminalStream();
    const view = humanView(new Output(stream, {}));
    for (const quietFor of [1_000, 2_000, 3_000, 4_000, 5_000]) view.show(drain(quietFor));
    const live = await finalScreen(raw(), COLUMNS);
    view.stop();
    expect(widerThan(drawings(raw()), COLUMNS - 1)).toEqual([]);
    // One line, however many redraws, and the countdown is still on it.
    expect(live).toEqual([expect.stringMatching(/^drain {2}old key silent 0:\d\d\/15:00 · new key not used yet · gives up in (2:00:00|1:59:\d\d)$/)]);
    expect(await finalScreen(raw(), COLUMNS)).toEqual([]);
  });

  it("a spinner's line is cut to the width, however long its status, and one line is left when done", async () => {
    const { stream, raw } = terminalStream();
    const io = new Io(new PassThrough(), stream, stream, { TERM: 'xterm-256color' });
    const long = 'processing the applicant, the documents and the history of earlier trips across every destination';
    await withSpinner(
      io,
      'Waiting for report rep_Bjm1eVgJjlcjS4EHic0E1HVQ',
      async ({ status }) => {
        for (let step = 0; step < 5; step++) status(`${long} ${step}`);
        return 'completed';
      },
      (result) => result,
    );
    expect(widerThan(drawings(raw()), COLUMNS - 1)).toEqual([]);
    expect(drawings(raw()).some((line) => line.endsWith('…'))).toBe(true);
    expect(await finalScreen(raw(), COLUMNS)).toEqual([expect.stringMatching(/^Waiting for report rep_Bjm1eVgJjlcjS4EHic0E1HVQ\.\.\. completed \(.+\)$/)]);
  });
});
