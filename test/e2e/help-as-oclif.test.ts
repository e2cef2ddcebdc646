/**
 * The build takes work out of oclif's start-up (scripts/oclif-start-up.js): help no longer passes a
 * line without EJS's delimiters through EJS, and the manifest's commands are sorted without ICU's
 * collator. The help svc prints, for itself, every topic and every command, is the help oclif as
 * published (node_modules/@oclif/core, unbundled) renders for them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const checkout = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as { commands: Record<string, unknown> };

/** oclif's own Help for each argv, written into strings, in a process of its own as svc runs (NODE_ENV unset). */
const renderWithOclif = `
import { format } from 'node:util';
import { Config, Help } from '@oclif/core';
class CapturedHelp extends Help {
  text = '';
  log(...args) { this.text += format(...args) + '\\n'; }
}
const shown = [];
for (const words of JSON.parse(process.env.ASKED)) {
  // A configuration for each, as each svc call has: help of a topic changes what oclif shows next.
  const config = await Config.load({ root: process.env.CHECKOUT });
  const help = new CapturedHelp(config, { maxWidth: 80 });
  await help.showHelp(words);
  shown.push(help.text);
}
process.stdout.write(JSON.stringify(shown));
`;

describe("svc's help is oclif's", () => {
  it('for svc itself, each topic and each command, at 80 columns (no terminal)', { timeout: 240_000 }, async () => {
    const env = isolatedEnv();
    delete env.OCLIF_COLUMNS;
    delete env.NODE_ENV;
    const topics = [...new Set(Object.keys(manifest.commands).map((id) => id.split(':')[0]!))].filter((topic) => !manifest.commands[topic]);
    const asked = [[], ...topics.map((topic) => [topic]), ...Object.keys(manifest.commands).map((id) => id.split(':'))];
    const expected = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', renderWithOclif], {
        cwd: checkout,
        env: { ...env, CHECKOUT: checkout, ASKED: JSON.stringify(asked) },
        encoding: 'utf8',
      }),
    ) as string[];
    for (const [index, words] of asked.entries()) {
      const shown = await runSvc([...words, '--help'], { env });
      expect(shown.code, `svc ${words.join(' ')} --help: ${shown.stderr}`).toBe(0);
      expect(shown.stdout, `svc ${words.join(' ')} --help`).toBe(expected[index]);
    }
  });
});
