import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { writeSecretFile } from './secret-file.js';

export interface SelfSignedCertificate {
  certPath: string;
  cert: string;
  key: string;
}

function stillValid(pem: string, hosts: readonly string[]): boolean {
  const certificate = new X509Certificate(pem);
  const covers = hosts.every((host) => (isIP(host) ? certificate.checkIP(host) : certificate.checkHost(host)) !== undefined);
  return !certificate.ca && covers && Date.parse(certificate.validTo) - Date.now() > 7 * 24 * 3600 * 1000;
}

/**
 * A self-signed leaf certificate for `hosts`, kept as cert.pem and key.pem (0600) in `dir`: made the
 * first time, reused after, so that a client trusts it once; remade when it is about to expire, no
 * longer covers the hosts, or is a CA (as earlier versions made it). A client trusts it as the one
 * certificate of those names (`--ca-cert`, `curl --cacert`): not a CA, its key signs no other
 * certificate that client accepts.
 */
export async function ensureSelfSignedCertificate(dir: string, commonName: string, hosts: readonly string[]): Promise<SelfSignedCertificate> {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    if (stillValid(cert, hosts)) return { certPath, cert, key: readFileSync(keyPath, 'utf8') };
  }
  const { generate } = (await import('selfsigned')).default;
  const notBeforeDate = new Date(Date.now() - 60_000);
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 825 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: hosts.map((host) => (isIP(host) ? { type: 7, ip: host } : { type: 2, value: host })) },
    ],
  });
  await writeSecretFile(keyPath, pems.private);
  await writeSecretFile(certPath, pems.cert);
  return { certPath, cert: pems.cert, key: pems.private };
}
