import { arch, platform } from 'node:os';
import { packageVersion } from '../core/package-files.js';
import { ProxySettings } from './proxy.js';
import { Trust, type TrustOptions } from './trust.js';

/** How svc's requests reach their servers: through which proxy, trusting whom, presenting what, under which name. */
export interface Network {
  proxies: ProxySettings;
  trust: Trust;
  userAgent: string;
}

/** `svc/<version> (<platform>; node <version>)`, as servers and gateways log it. */
function userAgent(): string {
  return `svc/${packageVersion()} (${platform()}-${arch()}; node ${process.version})`;
}

/** The network of a command's environment: its proxy variables, and the trust and client certificate it was given. */
export function networkOf(env: NodeJS.ProcessEnv, trust: Omit<TrustOptions, 'env'> = {}): Network {
  return { proxies: new ProxySettings(env), trust: new Trust({ ...trust, env }), userAgent: userAgent() };
}
