import { Flags } from '@oclif/core';

/** --ca-cert: a PEM CA certificate trusted beside the system's roots, by whom the command sends to. */
export function caCertFlag(options: { to: string; env?: string; exclusive?: string[]; helpGroup: string }) {
  return Flags.string({
    description: `PEM CA certificate to trust, beside the system's, ${options.to}`,
    env: options.env,
    exclusive: options.exclusive,
    helpGroup: options.helpGroup,
  });
}

/** --ca-cert-only: --ca-cert trusted alone; SVC_CA_CERT_ONLY and the profile's ca_cert_only are read with the connection (config/connection.ts). */
export function caCertOnlyFlag(options: { helpGroup: string }) {
  return Flags.boolean({
    description: "Trust --ca-cert alone, not the system's CA store (default: SVC_CA_CERT_ONLY, then the profile's ca_cert_only)",
    helpGroup: options.helpGroup,
  });
}
