import { readFileSync, statSync } from 'node:fs';
import { createSecureContext, getCACertificates, type SecureContext } from 'node:tls';
import { ConfigError } from '../core/errors.js';

/** A file svc was told to use, and who told it (a flag, a variable, a profile), for messages. */
export interface GivenFile {
  path: string;
  source: string;
}

export interface TrustOptions {
  /** A PEM CA certificate trusted beside the system's, or alone with `caCertOnly`. */
  caCert?: GivenFile | undefined;
  caCertOnly?: boolean | undefined;
  /** The server is svc's embedded sandbox, whose certificate `svc sandbox cert` prints. */
  sandbox?: boolean | undefined;
  /** Any certificate accepted (the kit's --insecure). */
  insecure?: boolean | undefined;
  /** The certificate and key svc presents to a server that asks for one (mutual TLS). */
  clientCert?: GivenFile | undefined;
  clientKey?: GivenFile | undefined;
  /** The environment whose NODE_EXTRA_CA_CERTS is named in messages (Node reads it at start). */
  env: NodeJS.ProcessEnv;
}

function readFile(file: GivenFile, what: string, hint: string): string {
  try {
    return readFileSync(file.path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${what.replaceAll(' ', '_')}_unreadable`,
      `cannot read the ${what} ${file.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      `check the path given by ${file.source}; ${hint}`,
    );
  }
}

/** The PEM text of a CA certificate file, or an error that says what is wrong with it and who named it. */
function readCaCertificate(file: GivenFile): string {
  const pem = readFile(file, 'CA certificate', 'give a PEM file');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(
      'ca_cert_invalid',
      `${file.path} holds no PEM certificate (given by ${file.source})`,
      'give a PEM file (-----BEGIN CERTIFICATE-----)',
    );
  }
  return pem;
}

function readClientIdentity(cert: GivenFile | undefined, key: GivenFile | undefined): { cert: string; key: string } | undefined {
  if (!cert && !key) return undefined;
  if (!cert || !key) {
    const [given, missing] = cert
      ? [cert.source, "the client key (--client-key, SVC_CLIENT_KEY or the profile's client_key)"]
      : [key?.source, "the client certificate (--client-cert, SVC_CLIENT_CERT or the profile's client_cert)"];
    throw new ConfigError(
      'client_certificate_incomplete',
      `a client certificate needs its key, and a key its certificate: only ${given} is given`,
      `give ${missing} too`,
    );
  }
  const mode = statSync(key.path, { throwIfNoEntry: false })?.mode;
  if (mode !== undefined && (mode & 0o077) !== 0) {
    throw new ConfigError(
      'insecure_file_mode',
      `${key.path} (${key.source}) is a private key but other users may access it (mode ${(mode & 0o777).toString(8).padStart(4, '0')})`,
      `restrict it to its owner: chmod 600 '${key.path}'`,
    );
  }
  const identity = { cert: readFile(cert, 'client certificate', 'give a PEM file'), key: readFile(key, 'client key', 'give a PEM file') };
  try {
    createSecureContext(identity);
  } catch (error) {
    throw new ConfigError(
      'client_certificate_invalid',
      `the client certificate ${cert.path} and key ${key.path} cannot be used together (${(error as Error).message})`,
      'give the PEM certificate and the PEM private key it was issued for, unencrypted',
    );
  }
  return identity;
}

/**
 * Whom svc's TLS connections trust, and what they present: by default the roots Node carries, the
 * system's store and NODE_EXTRA_CA_CERTS, with --ca-cert added (as curl, gh and git trust the
 * system's); with `caCertOnly`, --ca-cert alone (as `curl --cacert` does).
 *
 * Reading the system's store and building a context of all of them costs some 60 ms, a third of a
 * one-shot command, for a certificate that Node's roots or --ca-cert almost always vouch for: a
 * connection first trusts those (`first`), and only one whose issuer they do not know is made again
 * trusting them all (`wider`). Trust only grows from one to the other, so the outcome is the one
 * trusting all of them at once would have; nothing is sent before a handshake succeeds.
 */
export class Trust {
  private firstContext: SecureContext | undefined;
  private widerContext: SecureContext | undefined;
  private readonly caCert: string | undefined;
  private readonly identity: { cert: string; key: string } | undefined;

  constructor(private readonly options: TrustOptions) {
    if (options.caCertOnly && !options.caCert) {
      throw new ConfigError(
        'ca_cert_missing',
        'trusting only --ca-cert needs a CA certificate',
        "give one with --ca-cert (or SVC_CA_CERT, or the profile's ca_cert)",
      );
    }
    this.caCert = options.caCert && readCaCertificate(options.caCert);
    this.identity = readClientIdentity(options.clientCert, options.clientKey);
  }

  get rejectUnauthorized(): boolean {
    return !this.options.insecure;
  }

  /** --ca-cert alone when given, else Node's own roots and NODE_EXTRA_CA_CERTS (the default context, built once per process). */
  get first(): SecureContext {
    this.firstContext ??= createSecureContext({ ...(this.caCert && { ca: [this.caCert] }), ...this.identity });
    return this.firstContext;
  }

  /** Every root svc trusts, for a connection the first context could not verify; none with caCertOnly. */
  get wider(): SecureContext | undefined {
    if (this.options.caCertOnly) return undefined;
    this.widerContext ??= createSecureContext({ ca: this.everyRoot(), ...this.identity });
    return this.widerContext;
  }

  private everyRoot(): string[] {
    const all = new Set([...getCACertificates('bundled'), ...getCACertificates('system'), ...getCACertificates('extra')]);
    if (this.caCert) all.add(this.caCert);
    return [...all];
  }

  /** What was trusted, for a message about a certificate that was not. */
  describe(): string {
    const caCert = this.options.caCert && `${this.options.caCert.path} (${this.options.caCert.source})`;
    if (this.options.caCertOnly && caCert) return `only ${caCert}`;
    const extra = this.options.env.NODE_EXTRA_CA_CERTS;
    const sources = ["Node's bundled roots", "the system's store"];
    if (extra) sources.push(`NODE_EXTRA_CA_CERTS (${extra})`);
    if (caCert) sources.push(caCert);
    return sources.length > 2 ? `${sources.slice(0, -1).join(', ')} and ${sources.at(-1)}` : sources.join(' and ');
  }

  /** Whether the server is svc's embedded sandbox. */
  get forSandbox(): boolean {
    return this.options.sandbox === true;
  }

  /** Whether a client certificate is presented. */
  get presentsClientCertificate(): boolean {
    return this.identity !== undefined;
  }
}
