import { readFileSync } from 'node:fs';
import { setDefaultCACertificates } from 'node:tls';
import { ConfigError } from '../errors.js';
import type { Fetch } from './retry.js';

/** The PEM text of a CA certificate file, or an error that says what is wrong with the file. */
export function readCaCertificate(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('ca_cert_unreadable', `cannot read the CA certificate ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'check the path given by --ca-cert (or SVC_CA_CERT, or the profile)');
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('ca_cert_invalid', `${path} holds no PEM certificate`, 'give a PEM file (-----BEGIN CERTIFICATE-----)');
  }
  return pem;
}

/**
 * Makes the CA certificate in this PEM file the one root this process trusts, as `curl --cacert`
 * does. Set process-wide, it serves Node's own fetch and every other client alike, which spares
 * every command the start-up cost of loading a second HTTP client only to pass it a CA.
 */
export function trustOnly(caCertPath: string): void {
  setDefaultCACertificates([readCaCertificate(caCertPath)]);
}

/**
 * Node's fetch with a timeout for each attempt, trusting the CA given by the operator (a private
 * deployment, the sandbox's own certificate) when there is one.
 */
export function createTransport(options: { caCertPath?: string | undefined; timeoutMs: number }): Fetch {
  if (options.caCertPath) trustOnly(options.caCertPath);
  return (request) => fetch(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]) });
}
