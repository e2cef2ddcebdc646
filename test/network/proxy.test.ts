import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { startListen } from '../helpers/listen.js';
import { type ConnectProxy, type Gateway, issue, makeCa, startConnectProxy, startGateway, startRecordingReceiver } from '../helpers/network.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc, type SvcResult } from '../helpers/svc.js';
import { HANG_MS } from '../helpers/hang.js';

const PROXY_PASSWORD = 'pr0xy-s3cret-pa55word';
const WEBHOOK_SECRET = 'whsec_proxy_test_0123456789abcdefghij';
/** The gateway's name, which only the proxy resolves (to 127.0.0.1): svc reaches a loopback host directly. */
const GATEWAY_HOST = 'api.svc.invalid';

describe('behind a corporate proxy that is the only way out', () => {
  let sandbox: RunningSandbox;
  let gateway: Gateway;
  let proxy: ConnectProxy;
  let receiver: Awaited<ReturnType<typeof startRecordingReceiver>>;
  let caFile: string;
  let gatewayUrl: string;
  const outputs: SvcResult[] = [];

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    const corporate = await makeCa('Corporate Root CA');
    const certificate = await issue(corporate, 'server', GATEWAY_HOST, [GATEWAY_HOST]);
    gateway = await startGateway({ upstream: sandbox.url, upstreamCa: readFileSync(sandbox.caCert, 'utf8'), certificate });
    gatewayUrl = gateway.baseUrl.replace('127.0.0.1', GATEWAY_HOST);
    proxy = await startConnectProxy({ credentials: { user: 'ops', password: PROXY_PASSWORD }, hosts: [GATEWAY_HOST] });
    receiver = await startRecordingReceiver();
    caFile = join(mkdtempSync(join(tmpdir(), 'svc-proxy-')), 'corporate-ca.pem');
    writeFileSync(caFile, corporate.cert);
  }, HANG_MS);

  afterAll(async () => {
    await Promise.all([sandbox?.stop(), gateway?.close(), proxy?.close(), receiver?.close()]);
  });

  const env = (extra: Record<string, string> = {}) =>
    isolatedEnv({
      HTTPS_PROXY: proxy.url,
      http_proxy: proxy.url,
      SVC_BASE_URL: gatewayUrl,
      SVC_API_KEY: sandbox.keys.test,
      SVC_CA_CERT: caFile,
      SVC_WEBHOOK_SECRET: WEBHOOK_SECRET,
      ...extra,
    });
  const svc = async (args: string[], runEnv: Record<string, string>) => {
    const result = await runSvc(args, { env: runEnv, killAfterMs: HANG_MS });
    outputs.push(result);
    return result;
  };

  it(
    'sends the API requests of the CLI and the kit through it, and the events it sends to this machine directly',
    async () => {
      const runEnv = env();
      const list = await svc(['reports', 'list', '--json'], runEnv);
      expect(list.code, list.stderr).toBe(0);

      const kit = await svc(['contract', 'verify', '--base-url', gatewayUrl, '--ca-cert', caFile, '--only', 'reports.*', '--fast', '--json'], runEnv);
      expect(kit.code, kit.stdout).toBe(0);
      expect(JSON.parse(kit.stdout).passed).toBeGreaterThan(0);

      const trigger = await svc(['webhooks', 'trigger', 'report.completed', '--to', `${receiver.url}/triggered`, '--json'], runEnv);
      expect(trigger.code, trigger.stderr).toBe(0);

      const listen = await startListen(['--forward-to', `${receiver.url}/forwarded`], runEnv);
      const body = JSON.stringify({ id: 'evt_proxy_1', type: 'report.completed', created_at: new Date().toISOString(), data: { id: 'rep_proxy_1' } });
      const delivered = await fetch(listen.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-event': 'report.completed', 'service-signature': signatureHeader(WEBHOOK_SECRET, body) },
        body,
      });
      expect(delivered.status).toBe(200);
      await listen.waitFor((lines) => lines.some((line) => line.forward?.status === 200));
      await listen.stop();

      const replay = await svc(['webhooks', 'replay', 'evt_proxy_1', '--forward-to', `${receiver.url}/replayed`, '--store', listen.store, '--json'], runEnv);
      expect(replay.code, replay.stderr).toBe(0);

      // A server tells a proxied connection by its source port: one the proxy opened.
      expect(gateway.requests.length).toBeGreaterThan(5);
      for (const request of gateway.requests) expect(proxy.upstreamPorts, `${request.method} ${request.path}`).toContain(request.remotePort);
      expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(gatewayUrl).host]));
      // Loopback is reached directly, and plain HTTP is never handed to a proxy (test/network/loopback-proxy.test.ts).
      expect(receiver.deliveries.map((delivery) => delivery.path)).toEqual(['/triggered', '/forwarded', '/replayed']);
      for (const delivery of receiver.deliveries) expect(proxy.upstreamPorts, delivery.path).not.toContain(delivery.remotePort);
      expect(proxy.forwarded).toEqual([]);
      // Through a CONNECT tunnel the proxy carries TLS records: the key never crosses it in clear.
      expect(proxy.carried().includes(sandbox.keys.test)).toBe(false);
      expect(proxy.carried().includes(Buffer.from('/v1/reports'))).toBe(false);
    },
    4 * HANG_MS,
  );

  it('goes directly to the hosts NO_PROXY names', async () => {
    const before = proxy.tunnels.length;
    const seen = gateway.requests.length;
    // Directly, the name only the proxy resolves does not resolve.
    const direct = await svc(['reports', 'list', '--json'], env({ NO_PROXY: 'example.com, .svc.invalid' }));
    expect(direct.code).toBe(ExitCode.network);
    expect(JSON.parse(direct.stdout).error.code).toBe('dns_failure');
    expect(proxy.tunnels.length).toBe(before);
    expect(gateway.requests.length).toBe(seen);
  });

  it('says when the proxy wants credentials, without showing those it was given', async () => {
    const wrong = proxy.url.replace(encodeURIComponent(PROXY_PASSWORD), `${PROXY_PASSWORD}-wrong`);
    const result = await svc(['reports', 'list', '--verbose'], env({ HTTPS_PROXY: wrong }));
    expect(result.code).toBe(ExitCode.network);
    expect(result.stderr).toMatch(/the proxy http:\/\/ops:\*\*\*@127\.0\.0\.1:\d+ \(HTTPS_PROXY\) refused a tunnel to api\.svc\.invalid:\d+: it answered 407/);
    expect(result.stderr).toMatch(/the proxy asks for credentials: give them in HTTPS_PROXY as http:\/\/user:password@host:port/);
  });

  it('says when nothing answers at the proxy, and refuses a proxy it cannot speak to', async () => {
    const closed = await startConnectProxy();
    await closed.close();
    const unreachable = await svc(['reports', 'list', '--json'], env({ HTTPS_PROXY: closed.url }));
    expect(unreachable.code).toBe(ExitCode.network);
    const error = JSON.parse(unreachable.stdout).error;
    expect(error.code).toBe('proxy_unreachable');
    expect(error.message).toMatch(
      /^the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) did not take the request to api\.svc\.invalid:\d+: it cannot be reached \(ECONNREFUSED\)$/,
    );
    expect(error.hint).toMatch(/add it to NO_PROXY/);

    const socks = await svc(['reports', 'list', '--json'], env({ HTTPS_PROXY: 'socks5://127.0.0.1:1080' }));
    expect(socks.code).toBe(ExitCode.config);
    expect(JSON.parse(socks.stdout).error.message).toBe('HTTPS_PROXY names a socks5 proxy; svc speaks to HTTP and HTTPS proxies only');
  });

  it('never shows the proxy password', () => {
    expect(outputs.length).toBeGreaterThan(5);
    for (const output of outputs) {
      expect(output.stdout + output.stderr).not.toContain(PROXY_PASSWORD);
      expect(output.stdout + output.stderr).not.toContain(encodeURIComponent(PROXY_PASSWORD));
    }
  });
});
