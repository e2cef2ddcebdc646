/**
 * Issue 42 item 2, through the real binary: a client of the same workspace making requests beside a
 * full kit run (not --fast, its events and redeliveries included) against the sandbox on the Pro
 * plan (120 requests a minute per workspace) is refused nothing; beside a kit asked to provoke a
 * 429 (--provoke-429), the same client is refused, so that this test can tell the two apart.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { HANG_MS } from '../helpers/hang.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const SECRET = 'whsec_sharedworkspace0123456789abcdefghij';
/** The neighbour's pace: 30 requests a minute at most, within the quarter of the Pro plan's 120 the kit leaves. */
const NEIGHBOUR_EVERY_MS = 2_000;

const sandboxes: RunningSandbox[] = [];
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.stop();
});

/** A sandbox of its own on the Pro plan, its windows fresh, delivering its events to the kit. */
async function proSandbox(): Promise<{ sandbox: RunningSandbox; port: number }> {
  const port = await freePort();
  const sandbox = await startSandboxProcess(
    ['--plan', 'pro', '--webhook-url', `http://127.0.0.1:${port}/`, '--webhook-secret', SECRET, '--quiet'],
    isolatedEnv(),
  );
  sandboxes.push(sandbox);
  return { sandbox, port };
}

/** Another client of the workspace, with a key of its own: a request every NEIGHBOUR_EVERY_MS until stopped, each status kept. */
async function neighbour(sandbox: RunningSandbox): Promise<{ statuses: number[]; stop(): Promise<void> }> {
  const made = await sandbox.fetch('/v1/keys', {
    method: 'POST',
    key: sandbox.keys.admin,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'a client beside the kit' }),
  });
  const key = ((await made.json()) as { secret: string }).secret;
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const answer = await sandbox.fetch('/v1/reports', { key });
      await answer.arrayBuffer();
      statuses.push(answer.status);
      await sleep(NEIGHBOUR_EVERY_MS);
    }
  })();
  // Its first request opens the workspace's window: the kit comes into one already in use.
  while (statuses.length === 0) await sleep(50);
  return {
    statuses,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

function kitEnv(sandbox: RunningSandbox): Record<string, string> {
  return isolatedEnv({
    SVC_API_KEY: sandbox.keys.test,
    SVC_ADMIN_KEY: sandbox.keys.admin,
    SVC_READ_ONLY_KEY: sandbox.keys.read_only,
    SVC_IP_LOCKED_KEY: sandbox.keys.ip_locked,
    SVC_OTHER_WORKSPACE_KEY: sandbox.keys.other_workspace,
    SVC_OTHER_WORKSPACE_ADMIN_KEY: sandbox.keys.other_workspace_admin,
    SVC_WEBHOOK_SECRET: SECRET,
  });
}

/** A hang guard for a whole kit run that waits out the specification's delays (30 s redeliveries, a rate-limit window), never a measure of its speed. */
const RUN_HANG_MS = 5 * HANG_MS;

describe('a client beside the kit on the same workspace', () => {
  it.concurrent(
    'is refused nothing beside a full run',
    async () => {
      const { sandbox, port } = await proSandbox();
      const client = await neighbour(sandbox);
      const kit = await runSvc(['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--webhook-port', String(port), '--json'], {
        env: kitEnv(sandbox),
        killAfterMs: RUN_HANG_MS,
      });
      await client.stop();
      expect(client.statuses.length).toBeGreaterThan(10);
      expect(client.statuses.filter((status) => status !== 200)).toEqual([]);
      const output = JSON.parse(kit.stdout);
      expect(kit.code, kit.stderr).toBe(0);
      // A full run: the redeliveries were waited out, and the provoked 429 was left out, saying so.
      expect(output.checks.find((check: { id: string }) => check.id === 'events.redelivery').status).toBe('passed');
      expect(output.checks.find((check: { id: string }) => check.id === 'limits.remaining-header-429')).toMatchObject({
        status: 'skipped',
        detail: expect.stringMatching(/^not asked for: give --provoke-429/),
      });
    },
    RUN_HANG_MS,
  );

  it.concurrent(
    'is refused beside a run asked to provoke a 429',
    async () => {
      const { sandbox } = await proSandbox();
      const client = await neighbour(sandbox);
      const kit = await runSvc(
        ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--only', 'limits.*', '--provoke-429', '--json'],
        { env: kitEnv(sandbox), killAfterMs: RUN_HANG_MS },
      );
      await client.stop();
      expect(kit.code, kit.stderr).toBe(0);
      expect(JSON.parse(kit.stdout).checks.find((check: { id: string }) => check.id === 'limits.remaining-header-429').status).toBe('passed');
      expect(client.statuses).toContain(429);
    },
    RUN_HANG_MS,
  );
});
