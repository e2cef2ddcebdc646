import { join } from 'node:path';
import { ensureSelfSignedCertificate, type SelfSignedCertificate } from '../core/certificate.js';

export function certificatePath(dataDir: string): string {
  return join(dataDir, 'tls', 'cert.pem');
}

/**
 * The sandbox's self-signed leaf certificate for `names` (certificateNames: loopback's, and those of
 * the address it listens on), kept in the data directory, and made again where it lacks one of them.
 * Clients trust it with `--ca-cert` (the sandbox profile does so).
 */
export function ensureCertificate(dataDir: string, names: readonly string[]): Promise<SelfSignedCertificate> {
  return ensureSelfSignedCertificate(join(dataDir, 'tls'), 'svc sandbox', names);
}
