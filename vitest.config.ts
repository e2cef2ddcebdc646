import { existsSync } from 'node:fs';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import LongestFirst from './test/setup/longest-first.js';

/**
 * The tiers (docs/development.md, Tiers). A file's tier is what it starts: test/setup/tier-guard.ts
 * fails a test that starts what its tier does not allow, and says where its file belongs.
 */
const UNIT = [
  'test/api/proxy.test.ts',
  'test/client/list-answer.test.ts',
  'test/client/timestamp.test.ts',
  'test/client/upload-shape.test.ts',
  'test/config/config-file.test.ts',
  'test/config/paths.test.ts',
  'test/conformance/accuracy-switches.test.ts',
  'test/conformance/catalogue.test.ts',
  'test/conformance/junit-time.test.ts',
  'test/contracts/openapi.test.ts',
  'test/packaging/third-party-notices.test.ts',
  'test/json-compatibility.test.ts',
  'test/sandbox/analysis.test.ts',
  'test/sandbox/document-check.test.ts',
  'test/sandbox/document-checker.test.ts',
  'test/sandbox/listen-address.test.ts',
  'test/sandbox/mrz.test.ts',
  'test/sandbox/pdf-active-content.test.ts',
  'test/setup/stale-build.test.ts',
  'test/ui/applicant-questions.test.ts',
  'test/ui/live-lines.test.ts',
  'test/ui/markdown-text.test.ts',
  'test/ui/table.test.ts',
  'test/ui/time.test.ts',
  'test/webhooks/diagnose.test.ts',
  'test/webhooks/prefix-json.test.ts',
  'test/webhooks/signature.test.ts',
  'test/webhooks/verify.test.ts',
];

const IN_PROCESS = [
  'test/cli/errors.test.ts',
  'test/cli/id-flags.test.ts',
  'test/cli/in-process.test.ts',
  'test/cli/mutating.test.ts',
  'test/cli/profiles.test.ts',
  'test/client/errors.test.ts',
  'test/client/retry.test.ts',
  'test/commands/applicants/create.test.ts',
  'test/commands/applicants/get.test.ts',
  'test/commands/applicants/update.test.ts',
  'test/commands/config/set.test.ts',
  'test/commands/config/use.test.ts',
  'test/commands/contract/list.test.ts',
  'test/commands/contract/verify-junit.test.ts',
  'test/commands/contract/verify.test.ts',
  'test/commands/documents/get.test.ts',
  'test/commands/documents/upload.test.ts',
  'test/commands/keys/create.test.ts',
  'test/commands/keys/get.test.ts',
  'test/commands/keys/list.test.ts',
  'test/commands/keys/revoke.test.ts',
  'test/commands/keys/rotate-dashboard-key.test.ts',
  'test/commands/keys/rotate-earlier-key.test.ts',
  'test/commands/keys/rotate.test.ts',
  'test/commands/keys/rotation-store.test.ts',
  'test/commands/keys/rotations.test.ts',
  'test/commands/reports/create.test.ts',
  'test/commands/reports/delete.test.ts',
  'test/commands/reports/get.test.ts',
  'test/commands/reports/list.test.ts',
  'test/commands/reports/open.test.ts',
  'test/commands/reports/wait.test.ts',
  'test/commands/sandbox/cert.test.ts',
  'test/commands/sandbox/deliveries/replay.test.ts',
  'test/commands/sandbox/keys.test.ts',
  'test/commands/sandbox/start.test.ts',
  'test/commands/webhooks/check.test.ts',
  'test/commands/webhooks/listen.test.ts',
  'test/commands/webhooks/postgres-faults.test.ts',
  'test/commands/webhooks/postgres-ownership.test.ts',
  'test/commands/webhooks/postgres-store.test.ts',
  'test/commands/webhooks/prune.test.ts',
  'test/commands/webhooks/rejected-deliveries.test.ts',
  'test/commands/webhooks/sandbox-loop.test.ts',
  'test/commands/webhooks/replay.test.ts',
  'test/commands/webhooks/sign.test.ts',
  'test/commands/webhooks/signature-forms.test.ts',
  'test/commands/webhooks/stated-envelope.test.ts',
  'test/commands/webhooks/trigger.test.ts',
  'test/commands/webhooks/verify.test.ts',
  'test/conformance/failing-report.test.ts',
  'test/conformance/long-history.test.ts',
  'test/conformance/gateway-commands.test.ts',
  'test/conformance/other-macs.test.ts',
  'test/conformance/pacing.test.ts',
  'test/conformance/receiver.test.ts',
  'test/conformance/signature-headers.test.ts',
  'test/conformance/transient-answers.test.ts',
  'test/contracts/consumer.test.ts',
  'test/free-port.test.ts',
  'test/implementations/other-implementations.test.ts',
  'test/implementations/service-shapes.test.ts',
  'test/network/loopback-proxy.test.ts',
  'test/sandbox/hostile-uploads.test.ts',
  'test/sandbox/limits.test.ts',
  'test/sandbox/retry-schedule.test.ts',
  'test/sandbox/server.test.ts',
  'test/sandbox/slow-connections.test.ts',
  'test/sandbox/webhooks.test.ts',
  'test/webhooks/interop.test.ts',
];

function tier(name: string, include: string[], exclude: string[] = []): TestProjectInlineConfiguration {
  // A file moved or renamed but still listed would leave its new path to the binary tier, silently.
  const missing = include.filter((file) => !file.includes('*') && !existsSync(new URL(file, import.meta.url)));
  if (missing.length) throw new Error(`vitest.config.ts lists ${name} files that are not there: ${missing.join(', ')}`);
  return {
    extends: true,
    test: {
      name,
      include,
      exclude,
      env: { SVC_TEST_TIER: name },
      setupFiles: ['./test/setup/tier-guard.ts', ...(process.env.SVC_TEST_CENSUS ? ['./test/setup/census.ts'] : [])],
    },
  };
}

export default defineConfig({
  test: {
    globalSetup: ['./test/setup/global-setup.ts'],
    // Most test files wait on servers, timers and child processes rather than compute: more files at once
    // than the machine has cores keeps them all busy.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    // Guards against a hang, twice test/helpers/hang.ts's HANG_MS: no test measures speed.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/summary-reporter.ts'],
    tags: [{ name: 'scale', description: 'loads a listener, a fleet or a receiver: a twentieth of the full size, the full size with SVC_TEST_SCALE=full' }],
    projects: [tier('unit', UNIT), tier('in-process', IN_PROCESS), tier('binary', ['test/**/*.test.ts'], [...UNIT, ...IN_PROCESS])],
  },
});
