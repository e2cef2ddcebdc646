import { join } from 'node:path';
import { ensureSelfSignedCertificate, type SelfSignedCertificate } from '../core/certificate.js';

export function certificatePath(dataDir: string): string {
  return join(dataDir, 'tls', 'cert.pem');
}

/**
 * The sandbox's self-signed leaf certificate for 127.0.0.1, ::1 and localhost, kept in the data
 * directory. Clients trust it with `--ca-cert` (the sandbox profile does so).
 */
export function ensureCertificate(dataDir: string): Promise<SelfSignedCertificate> {
  return ensureSelfSignedCertificate(join(dataDir, 'tls'), 'svc sandbox', ['localhost', '127.0.0.1', '::1']);
}
