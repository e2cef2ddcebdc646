/**
 * The generated checks against the sandbox, in this process: they pass it and print their seed,
 * the same seed sends the same generated requests again, and each implementation whose fault shows
 * only on a generated input or sequence (test/conformance/generated-faults.ts) fails its check,
 * naming the seed and the smallest case as curl commands; that case, sent as the command says with
 * the run's keys, shows the fault again.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkOf } from '../../src/api/network.js';
import { DEFAULT_FIXTURES, type KitFixtures } from '../../src/conformance/fixtures.js';
import { type ConformanceJson, escapeXmlLines, toJson, toJunit } from '../../src/conformance/report.js';
import { type KitOptions, type RunResult, runConformance } from '../../src/conformance/run.js';
import { Output } from '../../src/ui/io.js';
import { renderForPeople } from '../../src/ui/conformance.js';
import {
  type MutatingImplementation,
  type ProxiedRequest,
  type ProxyState,
  startMutatingImplementation,
  type Variant,
} from '../helpers/mutating-implementation.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { GENERATED_FAULTS } from './generated-faults.js';

/** The fixtures of the accuracy test's broken variants: openapi.yaml's upload encoding, given, so that sequences upload. */
const FIXTURES: KitFixtures = { ...DEFAULT_FIXTURES, given: { ...DEFAULT_FIXTURES.given, document: true } };

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandboxInProcess({ plan: 'enterprise', log: undefined });
});
afterAll(async () => {
  await sandbox?.stop();
});

const FAITHFUL: Variant = { name: 'faithful', change: '', breaks: [] };

const hasCurl = spawnSync('curl', ['--version']).status === 0;

/** People output as a CI log shows it: no terminal, no colour. */
const LOG = new Output({ isTTY: false } as NodeJS.WriteStream, { NO_COLOR: '1' });

interface Verified {
  result: RunResult;
  json: ConformanceJson;
  log: string[];
  /** Each request the implementation got, as `requestShape` shows it. */
  requests: string[];
}

/**
 * A request as the seed decides it: method, path, the key's role and the body, with what the
 * implementation decides (its ids, however a generated input writes them: escaped, another prefix)
 * and what the kit makes afresh each run (a multipart boundary) left out.
 */
function requestShape(request: ProxiedRequest, state: ProxyState): string {
  const key = (request.headers.authorization ?? '').replace(
    /svc_\w+/g,
    (secret) => Object.entries(state.keys).find(([, value]) => value === secret)?.[0] ?? 'a key of the run',
  );
  const body = /multipart/.test(request.headers['content-type'] ?? '') ? 'an upload' : request.body.toString('utf8');
  return [request.method, request.path, key, body]
    .join(' ')
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, code: string) => String.fromCharCode(Number.parseInt(code, 16)))
    .replace(/[A-Za-z0-9]{20,}/g, '…');
}

/**
 * The generated checks against the sandbox behind the test proxy as `variant` changes it;
 * `meanwhile` runs with the implementation still up.
 */
async function verify(
  variant: Variant,
  options: Partial<KitOptions> = {},
  meanwhile?: (implementation: MutatingImplementation, result: RunResult) => Promise<void>,
): Promise<Verified> {
  const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: '' };
  const requests: string[] = [];
  const recorded: Variant = {
    ...variant,
    request(request, proxyState) {
      requests.push(requestShape(request, proxyState));
      return variant.request?.(request, proxyState);
    },
  };
  const implementation = await startMutatingImplementation(sandbox, recorded, state);
  const log: string[] = [];
  try {
    const result = await runConformance({
      baseUrl: new URL(implementation.baseUrl),
      network: networkOf({}, { caCert: { path: implementation.caCertPath, source: 'the test' } }),
      keys: {
        api: sandbox.keys.test,
        admin: sandbox.keys.admin,
        readOnly: sandbox.keys.read_only,
        ipLocked: sandbox.keys.ip_locked,
        other: sandbox.keys.other_workspace,
        otherAdmin: sandbox.keys.other_workspace_admin,
      },
      fixtures: FIXTURES,
      level: 'spec',
      env: process.env,
      fast: true,
      only: ['generated.*'],
      timeouts: { completionMs: 30_000 },
      log: (line) => log.push(line),
      ...options,
    });
    await meanwhile?.(implementation, result);
    return { result, json: toJson(result), log, requests };
  } finally {
    await implementation.close();
  }
}

/**
 * What a smallest case of one request, run as a person runs it (curl, the run's base URL and key in
 * the variables it names), gets back. Not spawnSync: the implementation answers in this process.
 */
async function replayed(line: string, implementation: MutatingImplementation): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', ['-c', `${line.replace(/ # answered .*$/, '')} -s --max-time 30`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, SVC_BASE_URL: implementation.baseUrl, SVC_API_KEY: sandbox.keys.test, CURL_CA_BUNDLE: implementation.caCertPath },
  });
  return stdout;
}

/** What the smallest case of a fault's one-request failure gets when sent again. */
const REPLAYED: Record<string, RegExp> = {
  'server-error-on-unknown-destination': /"internal_error"/,
  'destination-past-its-bound': /"destination":"[A-Z]{3,}"/,
};

describe('the generated checks', () => {
  it('pass the sandbox, each saying from which seed, and the run record keeps the seed and the requests', async () => {
    const { result, json, log } = await verify(FAITHFUL, { seed: 4242 });
    for (const check of json.checks) expect(check, check.id).toMatchObject({ status: 'passed', seed: 4242 });
    expect(json.checks.map((check) => check.id).sort()).toEqual([
      'generated.credentials',
      'generated.inputs-invalid',
      'generated.inputs-valid',
      'generated.no-server-error',
      'generated.sequences',
    ]);
    expect(json.run.generated).toMatchObject({ seed: 4242, budget: 300 });
    expect(json.run.generated!.requests).toBeGreaterThan(100);
    expect(log).toContainEqual(
      expect.stringMatching(
        /^Generated checks: seed 4242 \(--seed 4242 replays them\), 300 requests with --fast: what the rate-limit window left the kit \(X-RateLimit-Remaining \d+, of which it leaves 250000 to others and keeps some for the end of the run\), so that the run waits for no window, at most 300$/,
      ),
    );
    expect(renderForPeople(result, LOG)).toMatch(
      /^Generated checks: seed 4242 \(--seed 4242 generates the same inputs and sequences again\), \d+ requests of the 300 allowed$/m,
    );
    expect(toJunit(result)).toContain('<property name="generated.seed" value="4242"/>');
  });

  it('send the same requests again from the same seed (--seed), and others from another', async () => {
    const first = await verify(FAITHFUL, { seed: 7 });
    const again = await verify(FAITHFUL, { seed: 7 });
    const other = await verify(FAITHFUL, { seed: 8 });
    // The checks run side by side: the same requests, not in the same order.
    expect(again.requests.sort()).toEqual(first.requests.sort());
    expect(other.requests.sort()).not.toEqual(first.requests);
    expect(first.requests.length).toBeGreaterThan(100);
  });

  it('send as many requests as --generated-requests says, whatever the window leaves', async () => {
    const { json, log } = await verify(FAITHFUL, { generatedRequests: 40 });
    expect(json.run.generated).toMatchObject({ budget: 40 });
    expect(json.run.generated!.requests).toBeLessThanOrEqual(40);
    expect(log).toContainEqual(expect.stringMatching(/^Generated checks: seed \d+ \(--seed \d+ replays them\), --generated-requests 40$/));
  });

  for (const variant of GENERATED_FAULTS) {
    it(`fail ${variant.name} (${variant.breaks.join(', ')}), naming the seed and the smallest case in --json, JUnit and people output`, async () => {
      const replays: string[] = [];
      const { result, json } = await verify(variant, {}, async (implementation, run) => {
        const check = run.checks.find((item) => item.minimal_case?.length === 1 && item.minimal_case[0]!.includes('POST'));
        if (REPLAYED[variant.name] && check && hasCurl) replays.push(await replayed(check.minimal_case![0]!, implementation));
      });
      const failed = json.checks.filter((check) => check.status !== 'passed');
      expect(failed.map((check) => check.id).sort(), JSON.stringify(failed, null, 2)).toEqual([...variant.breaks].sort());
      const people = renderForPeople(result, LOG);
      const junit = toJunit(result);
      const { seed } = json.run.generated!;
      for (const check of failed) {
        expect(check.detail).toMatch(variant.reasons![check.id]!);
        expect(check.seed).toBe(seed);
        if (!check.minimal_case) continue;
        expect(check.minimal_case.length).toBeGreaterThan(0);
        for (const line of check.minimal_case) expect(line).toMatch(/^(curl -X [A-Z]+ "\$SVC_BASE_URL\/v1\/|# )/);
        expect(people).toContain(`--seed ${seed} replays it); the smallest case: ${check.minimal_case.length === 1 ? '' : '1) '}${check.minimal_case[0]}`);
        expect(junit).toContain(
          escapeXmlLines(`The smallest case (seed ${seed}; svc contract verify --seed ${seed} replays the run):\n${check.minimal_case.join('\n')}`),
        );
      }
      // Each that fails on one request has its smallest case: sent again with curl as it reads, it shows the fault again.
      if (REPLAYED[variant.name] && hasCurl) {
        expect(replays).toHaveLength(1);
        expect(replays[0]).toMatch(REPLAYED[variant.name]!);
      }
    });
  }
});
