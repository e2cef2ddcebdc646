import { readFileSync } from 'node:fs';
import { setDefaultCACertificates } from 'node:tls';
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
 * Node's fetch with a timeout for each attempt. A CA given by the operator (a private deployment,
 * the sandbox's own certificate) becomes the one root this process trusts, as `curl --cacert`
 * does; setting it process-wide lets Node's own fetch use it, which spares every command the
 * start-up cost of loading a second HTTP client only to pass it a CA.
 */
export function createTransport(options: { caCertPath?: string | undefined; timeoutMs: number }): Fetch {
  if (options.caCertPath) setDefaultCACertificates([readCaCertificate(options.caCertPath)]);
  return (request) => fetch(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]) });
}
