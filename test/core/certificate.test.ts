/**
 * The certificates svc makes and tells users to trust (the sandbox's, the contract kit's webhook
 * receiver's) are leaves, not CAs: a client that trusts one (`--ca-cert`, `curl --cacert`,
 * `openssl verify -CAfile`) accepts it for the names it serves, and no certificate its key signs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSelfSignedCertificate } from '../../src/core/certificate.js';
import { kitReceiverCertificate } from '../../src/conformance/receiver.js';
import { ExitCode } from '../../src/core/errors.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { json, startServer } from '../helpers/server.js';
import { runSvc } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';

const hasCurl = spawnSync('curl', ['--version']).status === 0;

function openssl(args: string[]): { status: number | null; output: string } {
  const result = spawnSync('openssl', args, { encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A certificate for `names` with a key of its own, signed with the key of `issuer`: what a thief of that key could make. */
function forge(issuer: { certPath: string; keyPath: string }, names: string): { cert: string; key: string; certPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-forged-'));
  const [keyPath, csrPath, extPath, certPath] = ['key.pem', 'request.csr', 'extensions.cnf', 'cert.pem'].map((name) => join(dir, name)) as [
    string,
    string,
    string,
    string,
  ];
  writeFileSync(extPath, `subjectAltName=${names}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  const request = openssl([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    keyPath,
    '-subj',
    '/CN=forged',
    '-out',
    csrPath,
  ]);
  expect(request.status, request.output).toBe(0);
  const signed = openssl([
    'x509',
    '-req',
    '-in',
    csrPath,
    '-CA',
    issuer.certPath,
    '-CAkey',
    issuer.keyPath,
    '-set_serial',
    '2',
    '-days',
    '30',
    '-extfile',
    extPath,
    '-out',
    certPath,
  ]);
  expect(signed.status, signed.output).toBe(0);
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath };
}

describe("the sandbox's certificate", () => {
  let sandbox: RunningSandbox;
  let keyPath: string;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--quiet']);
    keyPath = join(sandbox.dataDir, 'tls', 'key.pem');
  });
  afterAll(() => sandbox.stop());

  it('is a leaf for the names it serves: CA:FALSE, server authentication only, localhost, 127.0.0.1 and ::1', () => {
    const pem = readFileSync(sandbox.caCert, 'utf8');
    expect(new X509Certificate(pem).ca).toBe(false);
    const text = openssl(['x509', '-noout', '-text', '-in', sandbox.caCert]).output;
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature\n/);
    expect(text).toMatch(/X509v3 Extended Key Usage: \s+TLS Web Server Authentication\n/);
    expect(text).toContain('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  });

  it('is trusted for its own names: openssl verify -CAfile, svc with --ca-cert (the sandbox profile), curl --cacert', async () => {
    for (const check of [
      ['-verify_ip', '127.0.0.1'],
      ['-verify_ip', '::1'],
      ['-verify_hostname', 'localhost'],
    ]) {
      const verified = openssl(['verify', '-CAfile', sandbox.caCert, '-purpose', 'sslserver', ...check, sandbox.caCert]);
      expect(verified.output).toBe(`${sandbox.caCert}: OK\n`);
    }
    const listed = await runSvc(['reports', 'list', '--json'], { env: sandbox.env });
    expect(listed.code, listed.stderr).toBe(0);
    if (hasCurl) {
      const curl = spawnSync(
        'curl',
        [
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '--cacert',
          sandbox.caCert,
          '-H',
          `Authorization: Bearer ${sandbox.keys.test}`,
          `${sandbox.url}/v1/reports`,
        ],
        { encoding: 'utf8' },
      );
      expect(curl.stdout, curl.stderr).toBe('200');
    }
  });

  it('signs no certificate a client that trusts it accepts: not for another host, not for its own names', async () => {
    const forged = forge({ certPath: sandbox.caCert, keyPath }, 'DNS:api.example.com,IP:127.0.0.1');
    const verified = openssl(['verify', '-CAfile', sandbox.caCert, forged.certPath]);
    expect(verified.status, verified.output).not.toBe(0);
    expect(verified.output).toContain('error');

    // Served on 127.0.0.1 in the sandbox's place, the forged certificate is refused by svc and curl trusting the sandbox's.
    const impostor = await startServer((_request, response) => json(response, 200, { object: 'list', data: [], has_more: false }), forged);
    try {
      // The sandbox's key and CA go to the impostor's URL only when given for it: a profile's stay with its own base URL.
      const result = await runSvc(['reports', 'list', '--base-url', impostor.url], {
        env: { ...sandbox.env, SVC_API_KEY: sandbox.keys.test, SVC_CA_CERT: sandbox.caCert, SVC_RETRIES: '0' },
      });
      expect(result.code, result.stderr).toBe(ExitCode.network);
      expect(result.stderr).toContain(`the TLS certificate of ${impostor.url} is not trusted`);
      if (hasCurl) {
        // Not spawnSync: the impostor answers from this process's event loop.
        const curl = spawn('curl', ['-s', '--cacert', sandbox.caCert, `${impostor.url}/v1/reports`]);
        const [code] = (await once(curl, 'close')) as [number | null];
        expect(code).toBe(60); // Peer certificate cannot be authenticated with given CA certificates
      }
      expect(impostor.requests).toEqual([]);
    } finally {
      await impostor.close();
    }
  });
});

describe("the contract kit's webhook receiver certificate", () => {
  it("is a leaf for this machine's names, whose key signs no certificate `openssl verify -CAfile` accepts", async () => {
    // The kit keeps its certificate in svc's data directory, which the command gives it.
    const made = await kitReceiverCertificate(join(mkdtempSync(join(tmpdir(), 'svc-kit-')), 'data'));
    const certificate = new X509Certificate(made.cert);
    expect(certificate.ca).toBe(false);
    for (const name of ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1', `DNS:${hostname()}`])
      expect(certificate.subjectAltName).toContain(name);
    const keyPath = join(made.certPath, '..', 'key.pem');
    expect(openssl(['verify', '-CAfile', made.certPath, '-verify_hostname', hostname(), made.certPath]).output).toBe(`${made.certPath}: OK\n`);
    const forged = forge({ certPath: made.certPath, keyPath }, 'DNS:api.example.com');
    expect(openssl(['verify', '-CAfile', made.certPath, forged.certPath]).status).not.toBe(0);
  });
});

describe('a CA certificate an earlier version made', () => {
  it('is replaced by a leaf on the next start', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'svc-tls-')), 'tls');
    mkdirSync(dir, { mode: 0o700 });
    const old = await makeCertificate();
    expect(new X509Certificate(old.cert).ca).toBe(true);
    writeFileSync(join(dir, 'cert.pem'), old.cert, { mode: 0o600 });
    writeFileSync(join(dir, 'key.pem'), old.key, { mode: 0o600 });
    const made = await ensureSelfSignedCertificate(dir, 'svc sandbox', ['localhost', '127.0.0.1']);
    expect(new X509Certificate(made.cert).ca).toBe(false);
    expect(made.key).not.toBe(old.key);
    expect(readFileSync(join(dir, 'cert.pem'), 'utf8')).toBe(made.cert);
  });
});
