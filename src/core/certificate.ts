import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { writeSecretFile } from './secret-file.js';
import { openPrivateDatabase } from './sqlite.js';
import { SvcError } from './errors.js';

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
  const kept = (): SelfSignedCertificate | undefined => {
    if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
    const cert = readFileSync(certPath, 'utf8');
    return stillValid(cert, hosts) ? { certPath, cert, key: readFileSync(keyPath, 'utf8') } : undefined;
  };
  const found = kept();
  if (found) return found;
  // Processes started together on a new directory would each make one, and serve one the file no longer
  // holds (or a key beside another's certificate): the first makes it under a lock, the others then take it.
  const release = await lockOf(join(dir, 'cert.lock'));
  try {
    return kept() ?? (await make(certPath, keyPath, commonName, hosts));
  } finally {
    release();
  }
}

async function make(certPath: string, keyPath: string, commonName: string, hosts: readonly string[]): Promise<SelfSignedCertificate> {
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

/** How long a process waits for another that is making the certificate, a fraction of a second's work. */
const LOCK_WAIT_MS = 30_000;
const SQLITE_BUSY = 5;

/**
 * Takes SQLite's exclusive lock on `file`: an advisory lock of the system that ends with the process
 * holding it, however it ends. SQLite may refuse a contender at once rather than wait (two that
 * raced each hold what the other needs), so a refused one tries again, a bounded number of times.
 */
async function lockOf(file: string): Promise<() => void> {
  // No journal_mode pragma, which itself waits for the lock: nothing is written, so no journal is made.
  const lock = openPrivateDatabase(file, 'PRAGMA busy_timeout = 50');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      lock.exec('BEGIN EXCLUSIVE');
      return () => lock.close();
    } catch (error) {
      if ((error as { errcode?: number }).errcode !== SQLITE_BUSY) {
        lock.close();
        throw error;
      }
      if (Date.now() > deadline) {
        lock.close();
        throw new SvcError(
          'failure',
          'certificate_locked',
          `another process has held ${file} for ${LOCK_WAIT_MS / 1000} s while making a certificate`,
          'run again once it is done',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
