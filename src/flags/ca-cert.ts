import { Flags } from '@oclif/core';

/** --ca-cert: a PEM CA certificate trusted instead of the system roots (as `curl --cacert` does), by whom the command sends to. */
export function caCertFlag(options: { to: string; env?: string; exclusive?: string[]; helpGroup: string }) {
  return Flags.string({
    description: `PEM CA certificate to trust instead of the system roots, ${options.to}`,
    env: options.env,
    exclusive: options.exclusive,
    helpGroup: options.helpGroup,
  });
}
