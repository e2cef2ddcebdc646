/** Habits people bring from gh and the Stripe CLI, through the real binary. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8')) as { commands: Record<string, unknown> };
const pjson = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

describe('gh and Stripe habits', () => {
  it('-h shows the help of every command, as --help does', async () => {
    const env = isolatedEnv();
    for (const id of Object.keys(manifest.commands)) {
      const words = id.split(':');
      const [short, long] = await Promise.all([runSvc([...words, '-h'], { env }), runSvc([...words, '--help'], { env })]);
      expect(short.code, `${words.join(' ')} -h: ${short.stderr}`).toBe(0);
      expect(short.stdout).toContain(`$ svc ${words.join(' ')}`);
      expect(short.stdout).toBe(long.stdout);
    }
  });

  it('svc version and svc --version name the version; with --json as an object', async () => {
    const env = isolatedEnv();
    const build = JSON.parse(readFileSync(new URL('../../dist/build.json', import.meta.url), 'utf8')) as { commit: string; date: string };
    const line = `svc/${pjson.version} ${process.platform}-${process.arch} node-${process.version} commit ${build.commit} built ${build.date}\n`;
    expect((await runSvc(['--version'], { env })).stdout).toBe(line);
    expect((await runSvc(['version'], { env })).stdout).toBe(line);
    for (const args of [
      ['--version', '--json'],
      ['version', '--json'],
    ]) {
      const result = await runSvc(args, { env });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        version: pjson.version,
        platform: process.platform,
        arch: process.arch,
        node: process.version,
        commit: build.commit,
        built: build.date,
      });
    }
  });
});
