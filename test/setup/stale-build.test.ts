import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIsStale } from './stale-build.js';

/** A checkout of files dated `times` (seconds since the epoch). */
function checkout(times: { source: number; manifest: number; build?: number }): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-stale-'));
  mkdirSync(join(root, 'src', 'api'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  const file = (path: string, time: number) => {
    writeFileSync(join(root, path), '');
    utimesSync(join(root, path), time, time);
  };
  file('src/api/client.ts', times.source);
  file('package.json', times.manifest);
  if (times.build !== undefined) file('dist/build.json', times.build);
  return root;
}

describe('buildIsStale', () => {
  it.each([
    [{ source: 100, manifest: 100, build: 200 }, false],
    [{ source: 300, manifest: 100, build: 200 }, true],
    [{ source: 100, manifest: 300, build: 200 }, true],
    [{ source: 100, manifest: 100 }, true],
  ])('%j → %s', (times, stale) => {
    expect(buildIsStale(checkout(times))).toBe(stale);
  });
});
