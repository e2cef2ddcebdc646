/**
 * Issue 42 item 1, with real processes: three `svc contract verify` at once, given the same inputs as
 * pipelines sharing one set of CI secrets are, the same key of the dashboard to revoke among them.
 * Against the sandbox, which makes keys, each run revokes a key of its own and all three conform;
 * against an implementation with no key API, the runs that did not spend the shared key are skipped
 * or inconclusive for want of it, never failed, and so is the run after them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { HANG_MS } from '../helpers/hang.js';
import { startKeylessImplementation } from '../helpers/keyless-implementation.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc, type SvcResult } from '../helpers/svc.js';

interface JsonCheck {
  id: string;
  status: string;
  detail: string;
}

const REVOCATION_CHECKS = ['auth.revocation-needs-admin', 'auth.workspace-admin', 'auth.revocation-immediate', 'keys.revoke', 'keys.id-prefix'];
const RUN_HANG_MS = 3 * HANG_MS;

const sandboxes: RunningSandbox[] = [];
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.stop();
});

function checksOf(result: SvcResult): Record<string, JsonCheck> {
  return Object.fromEntries((JSON.parse(result.stdout).checks as JsonCheck[]).map((check) => [check.id, check]));
}

/** Three kits at once, each with an environment of its own built from the same secrets. */
function threeAtOnce(args: string[], secrets: Record<string, string>): Promise<SvcResult[]> {
  return Promise.all([1, 2, 3].map(() => runSvc(args, { env: isolatedEnv(secrets), killAfterMs: RUN_HANG_MS })));
}

describe('three kits at once, given the same key to revoke', () => {
  it(
    'all conform against the sandbox, each revoking a key of its own and leaving the shared one untouched',
    async () => {
      // The Enterprise plan: three runs' requests in one window are what this is not about (test/conformance/shared-workspace.test.ts).
      const sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise'], isolatedEnv());
      sandboxes.push(sandbox);
      const made = await sandbox.fetch('/v1/keys', {
        method: 'POST',
        key: sandbox.keys.admin,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'the CI secret every pipeline is given' }),
      });
      const shared = (await made.json()) as { id: string; secret: string };
      const runs = await threeAtOnce(
        ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--fast', '--revocable-key-id', shared.id, '--json'],
        {
          SVC_API_KEY: sandbox.keys.test,
          SVC_ADMIN_KEY: sandbox.keys.admin,
          SVC_READ_ONLY_KEY: sandbox.keys.read_only,
          SVC_IP_LOCKED_KEY: sandbox.keys.ip_locked,
          SVC_OTHER_WORKSPACE_KEY: sandbox.keys.other_workspace,
          SVC_OTHER_WORKSPACE_ADMIN_KEY: sandbox.keys.other_workspace_admin,
          SVC_REVOCABLE_KEY: shared.secret,
        },
      );
      const revoked = new Set<string>();
      for (const run of runs) {
        const output = JSON.parse(run.stdout);
        expect(run.code, run.stderr).toBe(0);
        expect(output).toMatchObject({ failed: 0, inconclusive: 0 });
        const immediate = checksOf(run)['auth.revocation-immediate']!;
        expect(immediate).toMatchObject({ status: 'passed', detail: expect.stringContaining(`; ${shared.id} of --revocable-key-id was left untouched`) });
        revoked.add(/^on (key_\w+), a key the kit made for this run/.exec(immediate.detail)![1]!);
      }
      expect(revoked.size).toBe(3);
      expect(revoked.has(shared.id)).toBe(false);
      expect((await sandbox.fetch('/v1/reports', { key: shared.secret })).status).toBe(200);
    },
    RUN_HANG_MS,
  );

  it(
    'fail nothing against an implementation with no key API, where the first to revoke the shared key spends it; nor does the run after them',
    async () => {
      const implementation = await startKeylessImplementation();
      try {
        const shared = implementation.makeKey('test');
        const secrets = {
          SVC_API_KEY: implementation.makeKey('test').secret,
          SVC_ADMIN_KEY: implementation.makeKey('admin').secret,
          SVC_OTHER_WORKSPACE_ADMIN_KEY: implementation.makeKey('admin', 'ws_other').secret,
          SVC_REVOCABLE_KEY: shared.secret,
        };
        const args = ['contract', 'verify', '--base-url', implementation.url, '--revocable-key-id', shared.id, '--only', REVOCATION_CHECKS.join(','), '--json'];
        const runs = await threeAtOnce(args, secrets);
        for (const run of runs) {
          expect([0, 18], run.stderr).toContain(run.code);
          const checks = checksOf(run);
          for (const id of REVOCATION_CHECKS) expect(['passed', 'skipped', 'inconclusive'], `${id}: ${checks[id]?.detail}`).toContain(checks[id]?.status);
          // What was not judged names the shared key, never its secret.
          for (const check of Object.values(checks).filter((judged) => judged.status !== 'passed')) expect(check.detail).toContain(shared.id);
          expect(run.stdout + run.stderr).not.toContain(shared.secret);
        }
        expect(implementation.isRevoked(shared.id)).toBe(true);

        const after = await runSvc(args, { env: isolatedEnv(secrets), killAfterMs: RUN_HANG_MS });
        expect(after.code, after.stderr).toBe(0);
        for (const id of REVOCATION_CHECKS) expect(checksOf(after)[id]?.status, id).toBe('skipped');
      } finally {
        await implementation.close();
      }
    },
    RUN_HANG_MS,
  );
});
