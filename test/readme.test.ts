import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (script: string, args: string[]) => execFileSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8', stdio: 'pipe' });

describe('the generated documentation is up to date', () => {
  it('docs/assumptions.md lists every assumption of openapi.yaml', () => {
    expect(() => run('scripts/assumptions.js', ['--check']), 'run `npm run readme`').not.toThrow();
  });

  it('docs/commands.md has the command reference of the commands as built', () => {
    const generated = run('node_modules/oclif/bin/run.js', ['readme', '--no-aliases', '--readme-path', 'docs/commands.md', '--dry-run']);
    const section = (text: string) => text.slice(text.indexOf('<!-- commands -->\n'), text.indexOf('<!-- commandsstop -->'));
    expect(section(readFileSync(`${root}/docs/commands.md`, 'utf8')), 'run `npm run readme`').toBe(section(generated));
  });
});
