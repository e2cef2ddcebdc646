/**
 * The specification fixes no alphabet for keys and webhook secrets. Random ones, alphanumeric,
 * base64 (`+`, `/`, `=`) and URL-safe base64 (`-`, `_`), of several lengths, several in each run,
 * go through every path of the real binary that may echo one: an API error and its hint, --verbose
 * traces, the output of the deploy command of `keys rotate`, `contract verify`'s JSON and JUnit,
 * and `webhooks listen`'s lines. No secret shows, nor any part of it longer than LONGEST_PART.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactKey } from '../../src/core/redaction.js';
import { ExitCode } from '../../src/core/errors.js';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { createKeyWithAdmin, FAST } from '../commands/keys/fixtures.js';
import { startMutatingImplementation, type Variant } from '../helpers/mutating-implementation.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort, json, startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc, SVC_BIN, type SvcResult } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';

/** The longest part of a secret that may show: its redacted form shows its last 4 characters. */
const LONGEST_PART = 12;
/** Each property runs the binary this many times, with new secrets: few, each carrying several. */
const RUNS = 2;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ALPHABETS = [ALPHANUMERIC, `${ALPHANUMERIC}+/`, `${ALPHANUMERIC}-_`];

/** What follows a key's or secret's prefix: 16 to 64 characters of one alphabet, base64 padded with `=` at times. */
const body = fc
  .constantFrom(...ALPHABETS)
  .chain((alphabet) =>
    fc.tuple(
      fc.string({ unit: fc.constantFrom(...alphabet), minLength: 16, maxLength: 64 }),
      alphabet.includes('+') ? fc.constantFrom('', '=', '==') : fc.constant(''),
    ),
  )
  .map(([text, padding]) => text + padding);

const KIT_KEYS = ['SVC_READ_ONLY_KEY', 'SVC_IP_LOCKED_KEY', 'SVC_OTHER_WORKSPACE_KEY', 'SVC_REVOCABLE_KEY'] as const;

interface Secrets {
  /** The SVC_* variables svc reads secrets from. */
  env: Record<string, string>;
  /** The bodies of the keys rotation makes through the proxy, in turn. */
  newKeyBodies: string[];
  /** Key-shaped secrets svc is never given: their shape alone must give them away. */
  unknown: string[];
}

const secretsArbitrary: fc.Arbitrary<Secrets> = fc
  .record({
    api: body,
    admin: body,
    otherAdmin: body,
    kit: fc.tuple(...KIT_KEYS.map(() => body)),
    // Webhook secrets with and without whsec_: SVC_WEBHOOK_SECRET names them, whatever their shape.
    webhook: fc.array(fc.tuple(fc.constantFrom('whsec_', ''), body), { minLength: 1, maxLength: 3 }),
    newKeys: fc.array(body, { minLength: 2, maxLength: 2 }),
    unknown: fc.array(fc.tuple(fc.constantFrom('svc_live_', 'svc_test_', 'svc_admin_', 'whsec_'), body), { minLength: 1, maxLength: 3 }),
  })
  .map((drawn) => ({
    env: {
      SVC_API_KEY: `svc_test_${drawn.api}`,
      SVC_ADMIN_KEY: `svc_admin_${drawn.admin}`,
      SVC_OTHER_WORKSPACE_ADMIN_KEY: `svc_admin_${drawn.otherAdmin}`,
      ...Object.fromEntries(KIT_KEYS.map((name, index) => [name, `svc_live_${drawn.kit[index]}`])),
      SVC_WEBHOOK_SECRET: drawn.webhook.map(([prefix, text]) => prefix + text).join(','),
    },
    newKeyBodies: drawn.newKeys,
    unknown: drawn.unknown.map(([prefix, text]) => prefix + text),
  }));

function everySecret(secrets: Secrets): string[] {
  const given = Object.values(secrets.env).flatMap((value) => value.split(','));
  return [...given, ...secrets.newKeyBodies.map((text) => `svc_test_${text}`), ...secrets.unknown];
}

/** Fails when `output` holds a secret, or a part of one longer than LONGEST_PART. */
function expectNoSecret(output: string, secrets: string[]): void {
  for (const secret of secrets) {
    for (let start = 0; start + LONGEST_PART < secret.length; start++) {
      const part = secret.slice(start, start + LONGEST_PART + 1);
      expect(output.includes(part), `${part} of ${secret} is in:\n${output.slice(0, 4000)}`).toBe(false);
    }
  }
}

const printed = (result: SvcResult) => result.stdout + result.stderr;

let home: Record<string, string>;
let caFile: string;
/**
 * An API that lists no report and refuses every other request, echoing in its error message and
 * X-RateLimit-Remaining the key it was sent and every secret the test knows, each time starting
 * with the next (where an answer is cut short, another secret is whole each time).
 */
let echo: TestServer;
let echoed: string[] = [];

beforeAll(async () => {
  home = isolatedEnv();
  const certificate = await makeCertificate();
  caFile = join(home.HOME!, 'ca.pem');
  writeFileSync(caFile, certificate.cert);
  echo = await startServer((request, response, index) => {
    if (request.method === 'GET' && request.path.split('?')[0] === '/v1/reports') return json(response, 200, { object: 'list', data: [], has_more: false });
    const first = index % echoed.length;
    const text = `${request.headers.authorization} refused; known: ${[...echoed.slice(first), ...echoed.slice(0, first)].join(' ')}`;
    json(response, 401, { error: { code: 'invalid_key', message: text } }, { 'x-ratelimit-remaining': text });
  }, certificate);
});
afterAll(() => echo.close());

/**
 * Runs `property` RUNS times with new secrets, without shrinking (each run starts the binary) and
 * without fast-check's bias to the first alphabet in the first runs.
 */
function forEverySecrets(property: (secrets: Secrets) => Promise<void>): Promise<void> {
  return fc.assert(fc.asyncProperty(fc.noBias(secretsArbitrary), property), { numRuns: RUNS, endOnFailure: true });
}

describe('secrets of any alphabet never reach the output', () => {
  it('an API error that echoes them, its hint, and the --verbose trace', () =>
    forEverySecrets(async (secrets) => {
      echoed = everySecret(secrets);
      const env = { ...home, ...secrets.env, SVC_BASE_URL: echo.url, SVC_CA_CERT: caFile, SVC_RETRIES: '0' };
      const result = await runSvc(['reports', 'get', 'rep_echo', '--verbose', '--json'], { env });
      expect(result.code, result.stderr).toBe(ExitCode.auth);
      expect(JSON.parse(result.stdout).error.message).toContain(redactKey(secrets.env.SVC_API_KEY!));
      expect(result.stderr).toContain(`X-RateLimit-Remaining: Bearer ${redactKey(secrets.env.SVC_API_KEY!)}`);
      expectNoSecret(printed(result), echoed);
    }));

  it("contract verify's JSON and JUnit, against an implementation that echoes them", () =>
    forEverySecrets(async (secrets) => {
      // The kit shows the start of an answer: a secret cut short there is known by its prefix alone (see the threat model).
      echoed = everySecret(secrets).filter((secret) => /^(svc_[a-z]+|whsec)_/.test(secret));
      const junit = join(home.HOME!, 'conformance.xml');
      const env = { ...home, ...secrets.env, SVC_RETRIES: '0' };
      // Checks that send each of the kit's keys, and show what they were answered.
      const only = 'auth.*,keys.*';
      const args = ['contract', 'verify', '--base-url', echo.url, '--ca-cert', caFile, '--revocable-key-id', 'key_echo', '--only', only];
      const result = await runSvc([...args, '--fast', '--json', '--junit', junit], { env });
      expect(result.code, result.stderr).toBe(ExitCode.nonConformant);
      const report = readFileSync(junit, 'utf8');
      expect(report).toContain(redactKey(secrets.env.SVC_API_KEY!));
      expectNoSecret(printed(result) + report, echoed);
    }));
});

describe('the deploy command of keys rotate', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--quiet']);
  });
  afterAll(() => sandbox.stop());

  /**
   * The sandbox behind a proxy that shows each of its keys in `outward` with the body given there
   * (sandbox secret → key shown), and each key made through it with the next of `bodies`.
   */
  function keysOfAnotherAlphabet(outward: Map<string, string>, bodies: string[]): Variant {
    return {
      name: 'keys of another alphabet',
      change: 'the keys have bodies of another alphabet',
      breaks: [],
      request(request) {
        const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        const inward = [...outward].find(([, shown]) => shown === key)?.[0];
        if (inward) request.headers.authorization = `Bearer ${inward}`;
      },
      response(response, request) {
        const made = response.json as { secret?: string } | undefined;
        if (request.method === 'POST' && request.path === '/v1/keys' && made?.secret) {
          outward.set(made.secret, `${made.secret.slice(0, made.secret.lastIndexOf('_') + 1)}${bodies.shift()}`);
        }
        if (response.json === undefined) return;
        let text = JSON.stringify(response.json);
        for (const [inward, shown] of outward) text = text.replaceAll(inward, shown).replaceAll(redactKey(inward), redactKey(shown));
        response.json = JSON.parse(text);
      },
    };
  }

  it('echoes the new key (SVC_NEW_API_KEY, stdin, set -x) and others', () =>
    forEverySecrets(async (secrets) => {
      const old = await createKeyWithAdmin(sandbox, { name: 'rotated' });
      const outward = new Map([
        [sandbox.keys.admin, secrets.env.SVC_ADMIN_KEY!],
        [old.secret, secrets.env.SVC_API_KEY!],
      ]);
      const bodies = [...secrets.newKeyBodies];
      const state = { keys: sandbox.keys, created: new Map(), revoked: new Set<string>(), applicants: new Map(), secret: '' };
      const proxy = await startMutatingImplementation(sandbox, keysOfAnotherAlphabet(outward, bodies), state);
      try {
        const env = {
          ...home,
          ...secrets.env,
          SVC_BASE_URL: proxy.baseUrl,
          SVC_CA_CERT: proxy.caCertPath,
          // Not an SVC_ variable: the deploy command is given it, and prints every secret the test knows.
          ECHOED: everySecret(secrets).join(' '),
        };
        const deploy = 'set -x; echo "new key: $SVC_NEW_API_KEY"; cat; echo "$ECHOED"';
        const result = await runSvc(['keys', 'rotate', old.id, '--deploy-cmd', deploy, ...FAST, '--force', '--yes', '--json'], { env });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).toContain(`new key: svc_test_…${secrets.newKeyBodies[0]!.slice(-4)}`);
        expectNoSecret(printed(result), everySecret(secrets));
      } finally {
        await proxy.close();
      }
    }));
});

describe("webhooks listen's lines", () => {
  /** Runs `svc webhooks listen` (for people, or --json), sends it `deliveries`, and stops it once it has shown each. */
  async function listened(env: Record<string, string>, asJson: boolean, deliveries: Array<{ body: string; signature: string }>) {
    const port = await freePort();
    const store = join(env.HOME!, `events-${asJson}.db`);
    const args = [SVC_BIN, 'webhooks', 'listen', '--port', String(port), '--store', store, ...(asJson ? ['--json'] : [])];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const until = async (done: () => boolean) => {
      for (let waited = 0; !done(); waited += 20) {
        if (waited > 20_000) throw new Error(`svc webhooks listen: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    try {
      await until(() => (asJson ? stdout : stderr).includes(asJson ? '"event":"ready"' : 'Press Ctrl-C'));
      for (const delivery of deliveries) {
        const headers = { 'content-type': 'application/json', 'service-signature': delivery.signature };
        await (await fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST', headers, body: delivery.body })).arrayBuffer();
      }
      const shown = deliveries.length + (asJson ? 1 : 0);
      await until(() => stdout.split('\n').filter(Boolean).length >= shown);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    return { stdout, stderr };
  }

  it('a delivery and a forged one carrying secrets, for people and as --json', () =>
    forEverySecrets(async (secrets) => {
      const [secret] = secrets.env.SVC_WEBHOOK_SECRET!.split(',');
      const all = everySecret(secrets);
      // The resource id is shown; the forged delivery's claims too, though its signature fails.
      const event = sampleEvent('report.completed');
      const delivered = JSON.stringify({ ...event, data: { ...event.data, id: all.join(' ') } });
      // One secret per claim: a claim is cut at 200 characters.
      const forged = JSON.stringify({ id: all[0], type: all[1], data: { id: all[2] } });
      const deliveries = [
        { body: delivered, signature: signatureHeader(secret!, delivered) },
        { body: forged, signature: signatureHeader('whsec_notthesecret000000000000', forged) },
      ];
      const env = { ...home, ...secrets.env };
      for (const asJson of [false, true]) {
        const output = await listened(env, asJson, deliveries);
        expect(output.stdout).toContain(redactKey(secrets.env.SVC_API_KEY!));
        expectNoSecret(output.stdout + output.stderr, all);
      }
    }));
});
