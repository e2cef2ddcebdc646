/**
 * The config file's one read-modify-write (`updateConfig`): changes made at once are all kept, and the
 * profile names a sandbox of another data directory gets, by fixed known answers.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSandboxProfile, readConfig, updateConfig } from '../../src/config/config-file.js';
import { pathsOf } from '../../src/config/paths.js';
import { sandboxProfileName } from '../../src/sandbox/profile.js';

describe('updateConfig', () => {
  it('keeps every change of twenty made at once', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-config-')), 'config.json');
    const names = Array.from({ length: 20 }, (_, index) => `p${index}`);
    await Promise.all(
      names.map((name) =>
        updateConfig(file, (config) => {
          config.profiles[name] = { base_url: `https://${name}.example.com` };
          return { changed: true, result: undefined };
        }),
      ),
    );
    expect(Object.keys((await readConfig(file)).profiles).sort()).toEqual([...names].sort());
  });

  it('goes on after a change that threw, and writes nothing of it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-config-')), 'config.json');
    const failed = updateConfig(file, () => {
      throw new Error('refused');
    });
    const saved = updateConfig(file, (config) => {
      config.profiles.ok = { base_url: 'https://ok.example.com' };
      return { changed: true, result: 'saved' };
    });
    await expect(failed).rejects.toThrow('refused');
    expect(await saved).toBe('saved');
    expect((await readConfig(file)).profiles).toEqual({ ok: { base_url: 'https://ok.example.com' } });
  });
});

describe('the profile of a sandbox', () => {
  const paths = pathsOf({ HOME: '/home/ops' });

  it('is "sandbox" for the default data directory, however it is written', () => {
    expect(sandboxProfileName(paths, '/home/ops/.local/share/svc/sandbox')).toBe('sandbox');
    expect(sandboxProfileName(paths, '/home/ops/.local/share/svc/./sandbox/')).toBe('sandbox');
  });

  it("is the directory's name and the hash of its path for another (sha256 of the path, first 8 hex digits)", () => {
    // printf %s '/srv/ci/Run 42' | sha256sum → adbb0ab1…
    expect(sandboxProfileName(paths, '/srv/ci/Run 42')).toBe('sandbox-run-42-adbb0ab1');
    // A name of nothing but other characters leaves the hash alone: printf %s '/srv/ci/@@' | sha256sum → 63692dac…
    expect(sandboxProfileName(paths, '/srv/ci/@@')).toBe('sandbox-63692dac');
  });

  it('is told from profiles people name', () => {
    expect(isSandboxProfile('sandbox')).toBe(true);
    expect(isSandboxProfile('sandbox-run-42-adbb0ab1')).toBe(true);
    expect(isSandboxProfile('sandbox-1f2e3d4c')).toBe(true);
    expect(isSandboxProfile('staging')).toBe(false);
    expect(isSandboxProfile('sandbox-eu')).toBe(false);
    expect(isSandboxProfile(undefined)).toBe(false);
  });
});
