import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import xterm from '@xterm/headless';
import stringWidth from 'string-width';
import { SVC_BIN } from './svc.js';
import { HANG_MS } from './hang.js';

const { Terminal } = xterm;

const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The environment of a person at a terminal: a terminal type, and no CI=true (svc asks and shows
 * progress only outside CI), even when the tests run in CI; with `ci`, a CI job's that has a terminal.
 */
function personAt(env: Record<string, string>, ci = false): Record<string, string> {
  const { CI: _, ...rest } = env;
  return { ...rest, TERM: 'xterm-256color', ...(ci && { CI: 'true' }) };
}

/**
 * Runs the real `svc` in a pseudo-terminal of `columns` columns (util-linux `script`), as a person
 * at a terminal would (`ci`: as a CI job with a terminal): stdout and stderr are that terminal.
 * Answers the terminal's lines, without colour and cursor sequences.
 */
export function runInTerminal(
  args: string[],
  env: Record<string, string>,
  columns = 80,
  options: { ci?: boolean } = {},
): Promise<{ code: number | null; lines: string[]; screen: string }> {
  const command = `stty cols ${columns} rows 60; exec ${[process.execPath, SVC_BIN, ...args].map(quoted).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: personAt(env, options.ci), stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines: stripVTControlCharacters(screen).split(/\r?\n/), screen }));
    child.stdin.end();
  });
}

/**
 * The lines wider than `columns` terminal cells, but a line that is one word after its indentation:
 * a URL or a path longer than a line, which svc never breaks (a person copies it whole).
 */
export function widerThan(lines: string[], columns: number): string[] {
  return lines.filter((line) => stringWidth(line) > columns && /\s/.test(line.trim()));
}

/** Pieces of an id (rep_, app_, doc_, key_, evt_ and 24 characters in the sandbox) that a wrap cut short. */
export function brokenIds(lines: string[]): string[] {
  return lines
    .flatMap((line) => [...line.matchAll(/(?<![\w…])(?:rep|app|doc|key|evt)_[A-Za-z0-9]+(?![\w…])/g)].map(([id]) => id))
    .filter((id) => id.length !== 28);
}

/**
 * Of `tokens` (URLs, paths, setting names), those shown but not whole on one line: found more often
 * once the lines are joined, their breaks and indentation taken out, than in the lines one by one.
 */
export function brokenTokens(lines: string[], tokens: string[]): string[] {
  const count = (text: string, token: string) => text.split(token).length - 1;
  const joined = lines.map((line) => line.trim()).join('');
  return tokens.filter((token) => count(joined, token) > lines.reduce((sum, line) => sum + count(line, token), 0));
}

/**
 * The screen a person is left with once `raw` (what a program wrote to its terminal: cursor moves,
 * erased lines and all) has been drawn on a terminal of `columns` columns: its non-empty lines, a
 * line the terminal wrapped at its edge as one, as it is copied.
 */
export async function finalScreen(raw: string, columns = 80): Promise<string[]> {
  const terminal = new Terminal({ cols: columns, rows: 200, allowProposedApi: true });
  await new Promise<void>((resolve) => terminal.write(raw, resolve));
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let row = 0; row < buffer.length; row++) {
    const line = buffer.getLine(row);
    const text = line?.translateToString(true) ?? '';
    if (line?.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  terminal.dispose();
  return lines.filter((line) => line !== '');
}

/** Keys as a terminal sends them. */
export const KEYS = { enter: '\r', up: '\u001b[A', down: '\u001b[B', backspace: '\u007f' };

export interface TerminalSession {
  /** Waits until `text` appears on the screen after what earlier waits found, and answers what matched; fails with the screen so far. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Types keys, as a person would. */
  type(keys: string): void;
  /** Waits for svc to exit: its screen as text, and `raw`, every byte it wrote to the terminal. */
  exited(): Promise<{ code: number | null; screen: string; raw: string }>;
}

/** Starts the real `svc` in a pseudo-terminal of `columns` columns, for a test to read its screen and answer it. */
export function startInTerminal(args: string[], env: Record<string, string>, columns = 80): TerminalSession {
  const command = `stty cols ${columns} rows 60; exec ${[process.execPath, SVC_BIN, ...args].map(quoted).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: personAt(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let seen = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  const exit = new Promise<{ code: number | null; screen: string; raw: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, screen: stripVTControlCharacters(screen), raw: screen })),
  );
  return {
    async waitFor(text, timeoutMs = HANG_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rest = stripVTControlCharacters(screen).slice(seen);
        const match =
          typeof text === 'string'
            ? { index: rest.indexOf(text), length: text.length }
            : ((found) => ({ index: found?.index ?? -1, length: found?.[0].length ?? 0 }))(text.exec(rest));
        if (match.index >= 0) {
          seen += match.index + match.length;
          return rest.slice(match.index, match.index + match.length);
        }
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${String(text)} did not appear; the screen after the last answer:\n${rest}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    type(keys) {
      child.stdin.write(keys);
    },
    exited: () => {
      child.stdin.end();
      return exit;
    },
  };
}
