import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { EventStore } from '../../../src/webhooks/sqlite-store.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const DAY = 86_400_000;

/** A store with 2,100 old forwarded events, an old one without forwarding, an old rejected delivery, an old event the application never took, and a recent one. */
function seededStore(): { file: string; ids: Record<'neverTaken' | 'recent', string> } {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-prune-')), 'events.db');
  const store = new EventStore(file);
  const old = Date.now() - 40 * DAY;
  const delivery = (receivedAt: number, forwardUrl: string | null) => ({
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{}'),
    receivedAt,
    forwardUrl,
  });
  const event = (id: string) => ({ id, type: 'report.completed', resourceId: 'rep_1' });
  store.transaction(() => {
    for (let index = 0; index < 2100; index++) {
      const { seq } = store.accept(event(`evt_old${index}`), delivery(old, 'http://127.0.0.1:9/app'), []);
      store.recordForward(seq, { url: 'http://127.0.0.1:9/app', status: 200, error: null }, old);
    }
    store.accept(event('evt_oldunforwarded'), delivery(old, null), []);
    store.reject({ id: 'evt_forged' }, { reason: 'signature_mismatch', detail: 'forged' }, delivery(old, null));
    const { seq } = store.accept(event('evt_nevertaken'), delivery(old, 'http://127.0.0.1:9/app'), []);
    store.recordForward(seq, { url: 'http://127.0.0.1:9/app', status: 502, error: null }, old);
    store.accept(event('evt_recent'), delivery(Date.now() - 2 * 3_600_000, null), []);
  });
  store.close();
  return { file, ids: { neverTaken: 'evt_nevertaken', recent: 'evt_recent' } };
}

function storedIds(file: string): string[] {
  const store = EventStore.open(file);
  try {
    return store.events({ limit: 10_000 }).map((event) => event.eventId!);
  } finally {
    store.close();
  }
}

describe('svc webhooks prune', () => {
  it('deletes what is older, in chunks, but keeps events the application never took; a dry run only counts', async () => {
    const { file, ids } = seededStore();
    const env = isolatedEnv();
    const dryRun = await svcInProcess(['webhooks', 'prune', '--store', file, '--before', '30d', '--dry-run', '--json'], { env });
    expect(dryRun.code).toBe(0);
    expect(JSON.parse(dryRun.stdout)).toMatchObject({ deleted: 2102, kept_not_forwarded: 1, dry_run: true });
    expect(storedIds(file)).toHaveLength(2104);

    const pruned = await svcInProcess(['webhooks', 'prune', '--store', file, '--before', '30d', '--json'], { env });
    expect(pruned.code).toBe(0);
    expect(JSON.parse(pruned.stdout)).toMatchObject({ deleted: 2102, kept_not_forwarded: 1, dry_run: false });
    expect(pruned.stderr).toContain('Kept 1 accepted event the application never took');
    expect(storedIds(file).sort()).toEqual([ids.neverTaken, ids.recent].sort());

    const all = await svcInProcess(['webhooks', 'prune', '--store', file, '--before', '30d', '--include-not-forwarded'], { env });
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^Deleted 1 stored delivery received before \d{4}-\d{2}-\d{2}T/);
    expect(storedIds(file)).toEqual([ids.recent]);
  });

  it('refuses to prune the last 25 hours, whose retries may still come, and deletes nothing', async () => {
    const { file } = seededStore();
    const result = await svcInProcess(['webhooks', 'prune', '--store', file, '--before', '1h'], { env: isolatedEnv() });
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toContain('would prune events of the last 25 hours');
    expect(result.stderr).toContain('give --before 25h or earlier');
    expect(storedIds(file)).toHaveLength(2104);
  });
});
