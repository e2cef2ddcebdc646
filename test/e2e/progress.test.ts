/**
 * Long work as a person at a terminal sees it: the real `svc` in a pseudo-terminal against the
 * real sandbox, the screen it leaves drawn by a terminal emulator. Piped, none of it appears.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant } from '../../src/api/types.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { runSvc } from '../helpers/svc.js';
import { finalScreen, runInTerminal } from '../helpers/terminal.js';

let sandbox: RunningSandbox;
let applicant: Applicant;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--analysis-delay', '2500']);
  const created = await runSvc(
    ['applicants', 'create', '--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-01-02', '--nationality', 'PT', '--json'],
    { env: sandbox.env },
  );
  applicant = JSON.parse(created.stdout) as Applicant;
});
afterAll(() => sandbox.stop());

const REPORT = () => ['reports', 'create', '--applicant', applicant.id, '--destination', 'US', '--visa-type', 'tourist', '--purpose', 'Holiday', '--wait'];

describe('reports create --wait', () => {
  it('shows a spinner with the status and the time taken, and leaves one line when done', async () => {
    const shown = await runInTerminal(REPORT(), sandbox.env);
    expect(shown.code).toBe(0);
    // While waiting: the status beside the spinner, with the seconds so far.
    expect(shown.screen).toMatch(/Waiting for report rep_\w+\.\.\. [^\n]*(queued|processing) · \ds/);
    const screen = await finalScreen(shown.screen);
    const left = screen.filter((line) => line.includes('Waiting for report'));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^Waiting for report rep_\w+\.\.\. completed \(\d+s\)$/);
  });

  it('shows none of it when stdout is piped', async () => {
    const result = await runSvc([...REPORT(), '--json'], { env: sandbox.env });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('Waiting for report');
  });
});

describe('documents upload', () => {
  it('shows a bar with the bytes sent and the rate, and leaves one line when done', async () => {
    const file = join(sandbox.env.HOME!, 'statement.txt');
    writeFileSync(file, 'Monthly statement, balance 12 000 EUR.\n'.repeat(80_000));
    const shown = await runInTerminal(['documents', 'upload', file, '--type', 'bank_statement', '--applicant', applicant.id], sandbox.env);
    expect(shown.code, shown.lines.join('\n')).toBe(0);
    expect(shown.screen).toMatch(/Uploading statement\.txt \[[█░ ]+\] \d+\.\d MiB of 3\.0 MiB · /);
    const screen = await finalScreen(shown.screen);
    expect(screen.filter((line) => line.startsWith('Uploading'))).toEqual([]);
    expect(screen.filter((line) => line.startsWith('Uploaded'))).toEqual([
      expect.stringMatching(/^Uploaded statement\.txt: 3\.0 MiB in [\d.]+m?s \([\d.]+ [KM]iB\/s\)$/),
    ]);
  });
});
