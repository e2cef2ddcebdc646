import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { ConfigError } from '../errors.js';
import type { Fetch } from './retry.js';

function readCaCertificate(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('ca_cert_unreadable', `cannot read the CA certificate ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'check the path given by --ca-cert, SVC_CA_CERT or the profile');
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('ca_cert_invalid', `${path} holds no PEM certificate`, 'give a PEM file (-----BEGIN CERTIFICATE-----)');
  }
  return pem;
}

/**
 * One connection pool for the process, trusting the system's roots plus, when given, a CA of the
 * operator's (a private deployment, the sandbox's own certificate); each attempt has its own timeout.
 */
export function createTransport(options: { caCertPath?: string | undefined; timeoutMs: number }): Fetch {
  const ca = options.caCertPath ? [...rootCertificates, readCaCertificate(options.caCertPath)] : undefined;
  const dispatcher = new Agent({ connect: ca ? { ca } : {} });
  return (request) =>
    fetch(request, {
      signal: AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]),
      dispatcher,
    } as RequestInit);
}
