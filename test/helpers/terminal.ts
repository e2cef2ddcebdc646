import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { SVC_BIN } from './svc.js';

const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the real `svc` in a pseudo-terminal of `columns` columns (util-linux `script`), as a person
 * at a terminal would: stdout and stderr are that terminal. Answers the terminal's lines, without
 * colour and cursor sequences.
 */
export function runInTerminal(args: string[], env: Record<string, string>, columns = 80): Promise<{ code: number | null; lines: string[]; screen: string }> {
  const command = `stty cols ${columns} rows 60; exec ${[process.execPath, SVC_BIN, ...args].map(quoted).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...env, TERM: 'xterm-256color' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines: stripVTControlCharacters(screen).split(/\r?\n/), screen }));
    child.stdin.end();
  });
}

/** The lines wider than `columns` terminal cells. */
export function widerThan(lines: string[], columns: number): string[] {
  return lines.filter((line) => stringWidth(line) > columns);
}
