/**
 * With the proxy variables of a corporate machine or a CI runner set, and NO_PROXY naming neither
 * 127.0.0.1 nor localhost, what svc sends to this machine never goes to the proxy: not the API
 * client's requests with their key, not the kit's, not the signed events of `webhooks trigger`,
 * `replay`, the listener's `--forward-to` and the sandbox's deliveries. Nor does any plain-HTTP
 * request, wherever it goes. The proxy here answers plain HTTP itself and refuses every tunnel,
 * recording what it was handed: it must have been handed nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SAMPLE_APPLICANT } from '../../src/conformance/samples.js';
import { ExitCode } from '../../src/core/errors.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { HANG_MS } from '../helpers/hang.js';
import { svcInProcess } from '../helpers/in-process.js';
import { startListenInProcess } from '../helpers/listen.js';
import { type AnsweringProxy, startAnsweringProxy, startRecordingReceiver } from '../helpers/network.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv } from '../helpers/svc.js';

const KEY = 'svc_test_loopbackproxy0123456789abcdef';
const SECRET = 'whsec_loopbackproxy0123456789abcdefghij';

let proxy: AnsweringProxy;
let receiver: Awaited<ReturnType<typeof startRecordingReceiver>>;

beforeAll(async () => {
  proxy = await startAnsweringProxy();
  receiver = await startRecordingReceiver();
});
afterAll(async () => {
  await Promise.all([proxy?.close(), receiver?.close()]);
});
afterEach(() => {
  // What the proxy saw, each test's own.
  proxy.seen.length = 0;
});

/** A runner's environment: both proxy variables, in both cases, and a NO_PROXY of other hosts. */
function proxiedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return isolatedEnv({
    HTTPS_PROXY: proxy.url,
    https_proxy: proxy.url,
    HTTP_PROXY: proxy.url,
    http_proxy: proxy.url,
    NO_PROXY: '.corp.example, 10.0.0.0/8',
    ...extra,
  });
}

describe('loopback, with the proxy variables set', () => {
  let implementation: TestServer;

  beforeAll(async () => {
    // A plain-HTTP implementation on loopback, the one case the API is spoken in plain HTTP.
    implementation = await startServer((_request, response) =>
      json(response, 200, { data: [{ id: 'rep_from_the_implementation', status: 'completed', created_at: '2026-01-02T03:04:05Z' }], has_more: false }),
    );
  });
  afterAll(() => implementation?.close());

  it('sends the API key to a plain-HTTP base URL on 127.0.0.1 or localhost directly, and shows its answer, not the proxy’s', async () => {
    const port = new URL(implementation.url).port;
    const results = [];
    for (const baseUrl of [implementation.url, `http://localhost:${port}`]) {
      results.push(await svcInProcess(['reports', 'list', '--json', '--base-url', baseUrl], { env: proxiedEnv({ SVC_API_KEY: KEY }) }));
    }
    expect(proxy.seen).toEqual([]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('rep_from_the_implementation');
      expect(result.stdout).not.toContain('rep_from_the_proxy');
    }
    expect(implementation.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });

  describe('the sandbox over HTTPS, and what is sent to this machine', () => {
    let sandbox: InProcessSandbox;

    beforeAll(async () => {
      // Its deliveries go through the network of its environment, the proxy variables included.
      sandbox = await startSandboxInProcess({ webhookUrls: [`${receiver.url}/sandbox`], webhookSecret: SECRET, log: undefined }, proxiedEnv());
    });
    afterAll(() => sandbox?.stop());

    it('reaches https://127.0.0.1 and https://localhost directly, the CLI and the kit alike', async () => {
      const env = proxiedEnv({ SVC_API_KEY: sandbox.keys.test });
      const results = [];
      for (const baseUrl of [sandbox.url, sandbox.url.replace('127.0.0.1', 'localhost')]) {
        results.push(await svcInProcess(['reports', 'list', '--json', '--base-url', baseUrl, '--ca-cert', sandbox.caCert], { env }));
      }
      const kit = await svcInProcess(
        ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--only', 'transport.https-only,reports.list', '--fast', '--json'],
        { env },
      );
      expect(proxy.seen).toEqual([]);
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      expect(kit.code, kit.stdout + kit.stderr).toBe(0);
      const checks = JSON.parse(kit.stdout).checks as Array<{ id: string; status: string }>;
      // The kit's plain-HTTP probe reached the sandbox itself, not a proxy answering for it.
      expect(checks.find((check) => check.id === 'transport.https-only')).toMatchObject({ status: 'passed' });
    });

    it('sends signed events directly: trigger, the listener’s --forward-to, replay, and the sandbox’s deliveries', async () => {
      const env = proxiedEnv({ SVC_WEBHOOK_SECRET: SECRET });
      const trigger = await svcInProcess(['webhooks', 'trigger', 'report.completed', '--to', `${receiver.url}/triggered`, '--json'], { env });

      const listen = await startListenInProcess(['--forward-to', `${receiver.url}/forwarded`], env);
      const body = JSON.stringify({ id: 'evt_loopback_1', type: 'report.completed', created_at: new Date().toISOString(), data: { id: 'rep_loopback_1' } });
      const delivered = await fetch(listen.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-event': 'report.completed', 'service-signature': signatureHeader(SECRET, body) },
        body,
      });
      expect(delivered.status).toBe(200);
      await listen.waitFor((lines) => lines.some((line) => line.forward !== undefined));
      await listen.stop();

      const replay = await svcInProcess(
        ['webhooks', 'replay', 'evt_loopback_1', '--forward-to', `${receiver.url}/replayed`, '--store', listen.store, '--json'],
        {
          env,
        },
      );

      const post = (path: string, payload: unknown) =>
        sandbox.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
      const applicant = (await (await post('/v1/applicants', SAMPLE_APPLICANT)).json()) as { id: string };
      expect((await post('/v1/reports', { applicant_id: applicant.id, destination: 'US', visa_type: 'tourist', purpose: 'A visit' })).ok).toBe(true);
      // The delivery arrives, at the receiver or (were it handed to the proxy) at the proxy.
      await vi.waitFor(
        () => expect([...receiver.deliveries.map((delivery) => delivery.path), ...proxy.seen.map((seen) => seen.line)].join()).toContain('/sandbox'),
        { timeout: HANG_MS, interval: 20 },
      );

      expect(proxy.seen).toEqual([]);
      expect(trigger.code, trigger.stderr).toBe(0);
      expect(replay.code, replay.stderr).toBe(0);
      expect(new Set(receiver.deliveries.map((delivery) => delivery.path))).toEqual(new Set(['/triggered', '/forwarded', '/replayed', '/sandbox']));
    });
  });
});

describe('plain HTTP to a host that is not loopback, with HTTP_PROXY set', () => {
  it('is not handed to the proxy: a receiver only the proxy would have answered for is not reached', async () => {
    // .invalid never resolves (RFC 6761): only a proxy would have "delivered" there, and answered 200 itself.
    const result = await svcInProcess(['webhooks', 'trigger', 'report.completed', '--to', 'http://receiver.svc.invalid:8080/hooks', '--json'], {
      env: proxiedEnv({ SVC_WEBHOOK_SECRET: SECRET }),
    });
    expect(proxy.seen).toEqual([]);
    expect(result.code).toBe(ExitCode.network);
    expect(JSON.parse(result.stdout)[0]).toMatchObject({ status: null, error: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/) });
  });
});

// Proves the recording proxy records: a request that should go to it does.
describe('a request that is the proxy’s', () => {
  it('goes to it: HTTPS to a host that is not loopback is asked for as a tunnel', async () => {
    const result = await svcInProcess(['reports', 'list', '--json', '--base-url', 'https://api.svc.invalid'], { env: proxiedEnv({ SVC_API_KEY: KEY }) });
    expect(result.code).toBe(ExitCode.network);
    expect(JSON.parse(result.stdout).error.code).toBe('proxy_refused');
    expect(proxy.seen).toEqual([{ line: 'CONNECT api.svc.invalid:443', authorization: undefined, signature: undefined }]);
  });
});
