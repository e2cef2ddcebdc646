import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSecretFile } from '../config/secret-file.js';

export interface SandboxCertificate {
  certPath: string;
  cert: string;
  key: string;
}

export function certificatePath(dataDir: string): string {
  return join(dataDir, 'tls', 'cert.pem');
}

function stillValid(pem: string): boolean {
  const validTo = Date.parse(new X509Certificate(pem).validTo);
  return validTo - Date.now() > 7 * 24 * 3600 * 1000;
}

/**
 * The sandbox's self-signed certificate for 127.0.0.1, ::1 and localhost, made on first start and
 * kept in the data directory (remade when it is about to expire). Clients trust it with
 * `--ca-cert` (the sandbox profile does so).
 */
export async function ensureCertificate(dataDir: string): Promise<SandboxCertificate> {
  const certPath = certificatePath(dataDir);
  const keyPath = join(dataDir, 'tls', 'key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    if (stillValid(cert)) return { certPath, cert, key: readFileSync(keyPath, 'utf8') };
  }
  const { generate } = await import('selfsigned');
  const notBeforeDate = new Date(Date.now() - 60_000);
  const pems = await generate([{ name: 'commonName', value: 'svc sandbox' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 825 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  await writeSecretFile(keyPath, pems.private);
  await writeSecretFile(certPath, pems.cert);
  return { certPath, cert: pems.cert, key: pems.private };
}
