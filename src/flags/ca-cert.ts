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
