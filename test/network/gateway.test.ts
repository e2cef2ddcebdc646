import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { type Gateway, issue, makeCa, startGateway } from '../helpers/network.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { HANG_MS } from '../helpers/hang.js';

/**
 * svc against an API gateway of the test's own in front of the sandbox, as an enterprise fronts a
 * service: a certificate of a corporate CA, a path prefix, gzip-compressed answers, and (the second
 * one) a client certificate required.
 */
describe('through an enterprise gateway', () => {
  let sandbox: RunningSandbox;
  let gateway: Gateway;
  let mutual: Gateway;
  let dir: string;
  let corporateCa: string;
  let clientCert: string;
  let clientKey: string;

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    const corporate = await makeCa('Corporate Root CA');
    const clients = await makeCa('Corporate Client CA');
    const upstream = { upstream: sandbox.url, upstreamCa: readFileSync(sandbox.caCert, 'utf8') };
    gateway = await startGateway({ ...upstream, certificate: await issue(corporate, 'server') });
    mutual = await startGateway({ ...upstream, certificate: await issue(corporate, 'server'), clientCa: clients.cert });
    dir = mkdtempSync(join(tmpdir(), 'svc-gateway-'));
    corporateCa = join(dir, 'corporate-ca.pem');
    writeFileSync(corporateCa, corporate.cert);
    const client = await issue(clients, 'client', 'ops-automation');
    clientCert = join(dir, 'client.pem');
    clientKey = join(dir, 'client-key.pem');
    writeFileSync(clientCert, client.cert);
    writeFileSync(clientKey, client.key, { mode: 0o600 });
  }, HANG_MS);

  afterAll(async () => {
    await Promise.all([sandbox?.stop(), gateway?.close(), mutual?.close()]);
  });

  /** No CA of the machine's beyond what each test gives: NODE_EXTRA_CA_CERTS and the system store emptied. */
  const env = (extra: Record<string, string> = {}) => {
    const base = isolatedEnv({ SVC_API_KEY: sandbox.keys.test, SSL_CERT_FILE: join(dir, 'none.pem'), SSL_CERT_DIR: join(dir, 'none'), ...extra });
    if (!('NODE_EXTRA_CA_CERTS' in extra)) delete base.NODE_EXTRA_CA_CERTS;
    return base;
  };
  const list = (args: string[], runEnv: Record<string, string>) => runSvc(['reports', 'list', '--json', ...args], { env: runEnv, killAfterMs: HANG_MS });

  describe("the system's CA store", () => {
    it('refuses the gateway of a CA it was not given, saying whom it trusted and how to add a corporate CA', async () => {
      const result = await list(['--base-url', gateway.baseUrl], env());
      expect(result.code).toBe(ExitCode.network);
      const error = JSON.parse(result.stdout).error;
      expect(error.code).toBe('tls_untrusted');
      expect(error.message).toMatch(/is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); svc trusted Node's bundled roots and the system's store$/);
      expect(error.hint).toMatch(/copy it to \/usr\/local\/share\/ca-certificates\/ and run update-ca-certificates/);
      expect(error.hint).not.toMatch(/sandbox/);
    });

    it('trusts a CA installed the Debian way (update-ca-certificates), read where the system store is', async () => {
      const store = join(dir, 'store');
      for (const sub of ['local', 'certs', 'hooks']) mkdirSync(join(store, sub), { recursive: true });
      writeFileSync(join(store, 'local', 'corporate.crt'), readFileSync(corporateCa));
      writeFileSync(join(store, 'ca-certificates.conf'), '');
      execFileSync('update-ca-certificates', [
        '--certsconf',
        join(store, 'ca-certificates.conf'),
        '--localcertsdir',
        join(store, 'local'),
        '--etccertsdir',
        join(store, 'certs'),
        '--hooksdir',
        join(store, 'hooks'),
      ]);
      const systemStore = env({ SSL_CERT_FILE: join(store, 'certs', 'ca-certificates.crt'), SSL_CERT_DIR: join(store, 'certs') });
      const result = await list(['--base-url', gateway.baseUrl], systemStore);
      expect(result.code, result.stderr).toBe(0);
      // --ca-cert is trusted beside the system's store, not instead of it.
      const beside = await list(['--base-url', gateway.baseUrl, '--ca-cert', sandbox.caCert], systemStore);
      expect(beside.code, beside.stderr).toBe(0);
    });

    it('trusts NODE_EXTRA_CA_CERTS, and --ca-cert beside the rest', async () => {
      expect((await list(['--base-url', gateway.baseUrl], env({ NODE_EXTRA_CA_CERTS: corporateCa }))).code).toBe(0);
      expect((await list(['--base-url', gateway.baseUrl, '--ca-cert', corporateCa], env())).code).toBe(0);
    });

    it('trusts --ca-cert alone with --ca-cert-only', async () => {
      const result = await list(['--base-url', gateway.baseUrl, '--ca-cert', sandbox.caCert, '--ca-cert-only'], env({ NODE_EXTRA_CA_CERTS: corporateCa }));
      expect(result.code).toBe(ExitCode.network);
      expect(JSON.parse(result.stdout).error.message).toContain(`svc trusted only ${sandbox.caCert} (--ca-cert)`);
    });

    describe('the contract kit, which carries the most keys, as every command', () => {
      /** The gateway's CA in the system's store; --ca-cert names one that did not sign it. */
      const systemTrusts = (extra: Record<string, string> = {}) => env({ SSL_CERT_FILE: corporateCa, ...extra });
      const kit = (args: string[], runEnv: Record<string, string>) =>
        runSvc(['contract', 'verify', '--only', 'reports.list', '--fast', '--json', ...args], { env: runEnv, killAfterMs: HANG_MS });

      it("trusts the system's store beside --ca-cert, and sends its key, without ca_cert_only", async () => {
        const seen = gateway.requests.length;
        const result = await kit(['--base-url', gateway.baseUrl, '--ca-cert', sandbox.caCert], systemTrusts());
        expect(result.code, result.stdout + result.stderr).toBe(0);
        expect(gateway.requests.slice(seen).map((request) => request.authorization)).toContain(`Bearer ${sandbox.keys.test}`);
      });

      /** The kit refused the gateway (exit 8), having sent it nothing: the handshake failed before any request, a key least of all. */
      const expectRefused = async (args: string[], runEnv: Record<string, string>, trusted: string) => {
        const seen = gateway.requests.length;
        const result = await kit(args, runEnv);
        expect(gateway.requests.length).toBe(seen);
        expect(result.code, result.stdout + result.stderr).toBe(ExitCode.network);
        const error = JSON.parse(result.stdout).error;
        expect(error.code).toBe('tls_untrusted');
        expect(error.message).toContain(`svc trusted only ${trusted}`);
        expect(result.stdout + result.stderr).not.toContain(sandbox.keys.test);
      };

      it('refuses the gateway with --ca-cert-only', async () => {
        await expectRefused(['--base-url', gateway.baseUrl, '--ca-cert', sandbox.caCert, '--ca-cert-only'], systemTrusts(), `${sandbox.caCert} (--ca-cert)`);
      });

      it('refuses the gateway with SVC_CA_CERT_ONLY', async () => {
        await expectRefused(
          ['--base-url', gateway.baseUrl, '--ca-cert', sandbox.caCert],
          systemTrusts({ SVC_CA_CERT_ONLY: 'true' }),
          `${sandbox.caCert} (--ca-cert)`,
        );
      });

      it("refuses the gateway with the profile's ca_cert_only", async () => {
        const runEnv = systemTrusts();
        delete runEnv.SVC_API_KEY;
        for (const [name, value] of [
          ['base_url', gateway.baseUrl],
          ['ca_cert', sandbox.caCert],
          ['ca_cert_only', 'true'],
        ] as const)
          expect((await runSvc(['config', 'set', name, value, '--profile', 'kit'], { env: runEnv })).code).toBe(0);
        expect((await runSvc(['config', 'set', 'api_key', '--profile', 'kit'], { env: runEnv, input: sandbox.keys.test })).code).toBe(0);
        await expectRefused(['--profile', 'kit'], runEnv, `${sandbox.caCert} (profile "kit")`);
      });
    });
  });

  describe('keys bound to their base URL', () => {
    it("does not send the current profile's key to a base URL given by the environment", async () => {
      const runEnv: Record<string, string> = { ...sandbox.env, SVC_BASE_URL: gateway.baseUrl, NODE_EXTRA_CA_CERTS: corporateCa };
      delete runEnv.SVC_API_KEY;
      const seen = gateway.requests.length;
      const result = await list([], runEnv);
      expect(result.code).toBe(ExitCode.config);
      const error = JSON.parse(result.stdout).error;
      expect(error.code).toBe('no_api_key');
      expect(error.message).toBe(
        `no API key for ${gateway.baseUrl}: the keys of profile "sandbox" belong to ${sandbox.url}, and svc sends a key only to the base URL it was configured for`,
      );
      expect(error.hint).toContain(`svc config set base_url ${gateway.baseUrl} --profile <name>`);
      expect(gateway.requests.length).toBe(seen);
      expect(result.stdout + result.stderr).not.toContain(sandbox.keys.test);

      const withKey = await list([], { ...runEnv, SVC_API_KEY: sandbox.keys.test });
      expect(withKey.code, withKey.stderr).toBe(0);
    });

    it('takes the key of the profile whose base URL it is', async () => {
      const runEnv: Record<string, string> = { ...sandbox.env, NODE_EXTRA_CA_CERTS: corporateCa };
      delete runEnv.SVC_API_KEY;
      expect((await runSvc(['config', 'set', 'base_url', gateway.baseUrl, '--profile', 'gateway'], { env: runEnv })).code).toBe(0);
      expect((await runSvc(['config', 'set', 'api_key', '--profile', 'gateway'], { env: runEnv, input: sandbox.keys.read_only })).code).toBe(0);
      const result = await list([], { ...runEnv, SVC_BASE_URL: gateway.baseUrl });
      expect(result.code, result.stderr).toBe(0);
      expect(gateway.requests.at(-1)?.authorization).toBe(`Bearer ${sandbox.keys.read_only}`);
    });
  });

  describe('mutual TLS', () => {
    const trusted = () => env({ NODE_EXTRA_CA_CERTS: corporateCa });

    it('says a client certificate is wanted when the gateway asks for one', async () => {
      const result = await list(['--base-url', mutual.baseUrl], trusted());
      expect(result.code).toBe(ExitCode.network);
      expect(JSON.parse(result.stdout).error.hint).toMatch(/the server may require a client certificate: give one with --client-cert and --client-key/);
    });

    it('presents the certificate given by flag, environment or profile', async () => {
      const byFlag = await list(['--base-url', mutual.baseUrl, '--client-cert', clientCert, '--client-key', clientKey], trusted());
      expect(byFlag.code, byFlag.stderr).toBe(0);
      expect(mutual.requests.at(-1)?.clientCertificate).toBe('ops-automation');

      const byEnv = await list(['--base-url', mutual.baseUrl], { ...trusted(), SVC_CLIENT_CERT: clientCert, SVC_CLIENT_KEY: clientKey });
      expect(byEnv.code, byEnv.stderr).toBe(0);

      const runEnv = trusted();
      for (const [name, value] of [
        ['base_url', mutual.baseUrl],
        ['client_cert', clientCert],
        ['client_key', clientKey],
      ] as const)
        expect((await runSvc(['config', 'set', name, value], { env: runEnv })).code).toBe(0);
      const byProfile = await list([], runEnv);
      expect(byProfile.code, byProfile.stderr).toBe(0);
    });

    it('checks the kit through it too', async () => {
      const result = await runSvc(
        ['contract', 'verify', '--base-url', mutual.baseUrl, '--only', 'reports.list', '--client-cert', clientCert, '--client-key', clientKey, '--json'],
        { env: trusted(), killAfterMs: HANG_MS },
      );
      expect(result.code, result.stdout).toBe(0);
    });

    it('refuses a client key other users may read, and a certificate without its key', async () => {
      const open = join(dir, 'open-key.pem');
      writeFileSync(open, readFileSync(clientKey));
      chmodSync(open, 0o644);
      const result = await list(['--base-url', mutual.baseUrl, '--client-cert', clientCert, '--client-key', open], trusted());
      expect(result.code).toBe(ExitCode.config);
      expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'insecure_file_mode', hint: `restrict it to its owner: chmod 600 '${open}'` });

      const alone = await list(['--base-url', mutual.baseUrl, '--client-cert', clientCert], trusted());
      expect(alone.code).toBe(ExitCode.config);
      expect(JSON.parse(alone.stdout).error.code).toBe('client_certificate_incomplete');
    });
  });

  it("names itself and asks for compressed answers, which the gateway's gzip decodes", async () => {
    const result = await list(['--base-url', gateway.baseUrl, '--ca-cert', corporateCa], env());
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ object: 'list', data: expect.any(Array) });
    const request = gateway.requests.at(-1)!;
    const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
    expect(request.userAgent).toMatch(
      new RegExp(`^svc/${version.replaceAll('.', '\\.')} \\(${process.platform}-${process.arch}; node v\\d+\\.\\d+\\.\\d+\\)$`),
    );
    expect(request.acceptEncoding).toBe('gzip, deflate, br');
  });
});
