/**
 * The risk breakdown as a person sees it: drawn in an 80-column pseudo-terminal by the real `svc`,
 * and as an HTML page opened by the system's opener and rendered by headless Chromium. Reports
 * come from the sandbox and from an implementation whose scale and names are not svc's. What shows
 * off a terminal, without an opener, is tested in-process: test/commands/reports/{get,open}.test.ts.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../src/api/types.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import type { TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { runInTerminal } from '../helpers/terminal.js';
import { startOtherService } from '../commands/reports/fixtures.js';

const COLUMNS = 80;
const KEY = 'svc_test_reportview0123456789abcdefgh';

let sandbox: RunningSandbox;
let report: Report;
let other: TestServer;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
  const created = await runSvc(
    ['applicants', 'create', '--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-01-02', '--nationality', 'PT', '--json'],
    { env: sandbox.env },
  );
  const applicant = JSON.parse(created.stdout) as Applicant;
  const made = await runSvc(
    ['reports', 'create', '--applicant', applicant.id, '--destination', 'US', '--visa-type', 'tourist', '--purpose', 'Holiday', '--wait', '--json'],
    { env: sandbox.env },
  );
  report = JSON.parse(made.stdout) as Report;
  other = await startOtherService();
});
afterAll(async () => {
  await sandbox.stop();
  await other.close();
});

const otherEnv = (extra: Record<string, string> = {}) => isolatedEnv({ SVC_BASE_URL: other.url, SVC_API_KEY: KEY, SVC_RETRIES: '0', ...extra });

/** The length in cells of a bar of blocks, eighths included. */
function barLength(line: string): number {
  const eighths = ' ▏▎▍▌▋▊▉';
  const bar = /[█▏▎▍▌▋▊▉]+/.exec(line)?.[0] ?? '';
  return [...bar].reduce((sum, block) => sum + (block === '█' ? 1 : eighths.indexOf(block) / 8), 0);
}

describe(`reports get at a ${COLUMNS}-column terminal`, () => {
  it('draws the score on the 0-100 scale with the band marks, and each criterion as a bar, largest first', async () => {
    const shown = await runInTerminal(['reports', 'get', report.id], sandbox.env, COLUMNS);
    expect(shown.code).toBe(0);
    const band = report.score_band!.replace('_', ' ');
    expect(shown.lines).toContain(`risk score   ${report.risk_score} of 100, ${band}`);
    expect(shown.lines).toContain('  low          medium      high         very high');
    expect(shown.lines).toContain('  0            25          50           75       100');
    const scale = shown.lines.find((line) => line.startsWith('  █') || line.startsWith('  ░'))!;
    expect(barLength(scale)).toBeCloseTo((report.risk_score! / 100) * 50, 0);

    const criteria = [...report.criteria!].sort((a, b) => b.score * b.weight - a.score * a.weight);
    const rows = criteria.map((criterion) => shown.lines.find((line) => line.startsWith(`${criterion.label}  `)));
    expect(rows.every(Boolean), shown.lines.join('\n')).toBe(true);
    const order = rows.map((row) => shown.lines.indexOf(row!));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const lengths = rows.map((row) => barLength(row!));
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
    expect(lengths[0]).toBeGreaterThan(0);
    for (const [index, criterion] of criteria.entries()) {
      expect(rows[index]).toMatch(new RegExp(`${(criterion.score * criterion.weight).toFixed(1)}  score ${criterion.score} × ${criterion.weight * 100}%$`));
    }
  });

  it('paints the band in its colour on a terminal, and nothing with NO_COLOR', async () => {
    const colour = { low: 32, medium: 33, high: 31, very_high: 31 }[report.score_band as string];
    const { NO_COLOR: _, ...colourful } = sandbox.env;
    const painted = await runInTerminal(['reports', 'get', report.id], colourful, COLUMNS);
    expect(painted.screen).toContain(`\u001b[${colour}m${report.score_band!.replace('_', ' ')}\u001b[39m`);
    const plain = await runInTerminal(['reports', 'get', report.id], { ...colourful, NO_COLOR: '1' }, COLUMNS);
    expect(plain.screen).not.toMatch(/\u001b\[\d+m/);
    // The same picture, times aside (they are relative, and a second may pass between the runs).
    const timeless = (lines: string[]) => lines.filter((line) => !/^(created|finished) /.test(line));
    expect(timeless(plain.lines)).toEqual(timeless(painted.lines));
  });

  it('draws no 0-100 scale for a service whose scores are on another, and names its criteria by key', async () => {
    const shown = await runInTerminal(['reports', 'get', 'rep_other1'], otherEnv(), COLUMNS);
    expect(shown.code, shown.lines.join('\n')).toBe(0);
    expect(shown.lines).toContain('risk score   640');
    expect(shown.lines).toContain('score band   elevated');
    expect(shown.lines.join('\n')).not.toContain('░');
    expect(shown.lines.find((line) => line.startsWith('funds  '))).toMatch(/150\.0 {2}score 300 × 50%$/);
    // The hostile key is shown escaped, and its bar is the longest (450 against 150).
    const hostile = shown.lines.find((line) => line.includes('450.0'))!;
    expect(barLength(hostile)).toBeGreaterThan(barLength(shown.lines.find((line) => line.startsWith('funds  '))!));
    expect(shown.screen).not.toContain('\u001b]0;pwned');
    expect(shown.screen).not.toContain('\u001b[2J');
  });

  it('shows the rest of a report whose criteria or recommendations come in shapes the specification does not show', async () => {
    const shown = await runInTerminal(['reports', 'get', 'rep_odd1'], otherEnv(), COLUMNS);
    expect(shown.code, shown.lines.join('\n')).toBe(0);
    expect(shown.lines).toContain('risk score  12 of 100, low');
    expect(shown.lines.find((line) => line.startsWith('history  '))).toMatch(/10\.0 {2}score 10 × 100%$/);
    expect(shown.lines.join('\n')).not.toContain('Recommendations');
  });
});

describe('reports open and reports get --web', () => {
  /** A directory holding a fake system opener that records what it was given and its environment. */
  function fakeOpener(env: Record<string, string>): { path: string; opened: () => { argument: string; environment: string } } {
    const bin = join(env.HOME!, 'bin');
    mkdirSync(bin, { recursive: true });
    const record = join(env.HOME!, 'opened');
    // The argument is written last, and whole (renamed into place): once it is there, both are.
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nenv > '${record}.env'\nprintf '%s' "$1" > '${record}.part'\nmv '${record}.part' '${record}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    return { path: bin, opened: () => ({ argument: readFileSync(record, 'utf8'), environment: readFileSync(`${record}.env`, 'utf8') }) };
  }

  async function waitForFile(path: string): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        statSync(path);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  it('writes a private, self-contained page and hands it to the system opener, without svc variables', async () => {
    const env = { ...sandbox.env };
    const opener = fakeOpener(env);
    const result = await runSvc(['reports', 'open', report.id], { env: { ...env, PATH: `${opener.path}:/usr/bin:/bin` } });
    expect(result.code, result.stderr).toBe(0);
    const path = /^Opened (.+\.html)$/m.exec(result.stderr)?.[1];
    expect(path).toBeDefined();
    await waitForFile(join(env.HOME!, 'opened'));
    const { argument, environment } = opener.opened();
    expect(argument).toBe(path);
    expect(environment).not.toMatch(/^SVC_/m);
    expect(statSync(path!).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path!)).mode & 0o777).toBe(0o700);
    const html = readFileSync(path!, 'utf8');
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
    expect(html).not.toMatch(/<script|\bsrc=|\bhref=|url\(|@import/i);
    expect(html).toContain(`<svg class="scale"`);
    expect((html.match(/<rect x="200"/g) ?? []).length).toBe(report.criteria!.length);
    for (const criterion of report.criteria!) expect(html).toContain(`>${criterion.label}</text>`);
  });

  it('renders in headless Chromium with the chart drawn', async () => {
    const env = isolatedEnv();
    const output = join(env.HOME!, 'report.html');
    const result = await runSvc(['reports', 'open', report.id, '--output', output], { env: { ...sandbox.env, PATH: join(env.HOME!, 'nowhere') } });
    expect(result.code, result.stderr).toBe(0);
    const screenshot = join(env.HOME!, 'report.png');
    const chromium = process.env.SVC_CHROMIUM ?? 'chromium';
    await promisify(execFile)(
      chromium,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        `--user-data-dir=${join(env.HOME!, 'chromium')}`,
        '--window-size=1000,900',
        `--screenshot=${screenshot}`,
        `file://${output}`,
      ],
      {
        env: { ...env, PATH: process.env.PATH ?? '' },
        timeout: 60_000,
      },
    ).catch((error: NodeJS.ErrnoException) => {
      throw new Error(
        `headless Chromium (${chromium}) did not render the page: ${error.code === 'ENOENT' ? "it is not installed; `npm test` installs Debian's chromium where it can, or set SVC_CHROMIUM" : error.message}`,
      );
    });
    const png = PNG.sync.read(readFileSync(screenshot));
    const pixels = (red: number, green: number, blue: number) => {
      let count = 0;
      for (let offset = 0; offset < png.data.length; offset += 4) {
        if (Math.abs(png.data[offset]! - red) < 8 && Math.abs(png.data[offset + 1]! - green) < 8 && Math.abs(png.data[offset + 2]! - blue) < 8) count++;
      }
      return count;
    };
    // The criteria's bars (#2563eb), as long as the largest bar's 360 px at least, 18 px high.
    expect(pixels(0x25, 0x63, 0xeb)).toBeGreaterThan(360 * 18);
    // The band the score is in, in full colour on the scale.
    const band = { low: [0x15, 0x80, 0x3d], medium: [0xca, 0x8a, 0x04], high: [0xdc, 0x26, 0x26], very_high: [0x99, 0x1b, 0x1b] }[report.score_band as string]!;
    expect(pixels(band[0]!, band[1]!, band[2]!)).toBeGreaterThan(1000);
  });
});
