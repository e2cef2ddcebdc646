import { BlockList, isIP } from 'node:net';
import { ConfigError } from '../core/errors.js';
import { isLoopbackHost } from './base-url.js';

/** The proxy a request goes through, and the variable that named it (for messages). */
export interface ProxyRoute {
  url: URL;
  variable: string;
}

/** A proxy URL as people may read it: the password, if any, hidden. */
export function displayProxy(url: URL): string {
  if (!url.password) return url.origin;
  return `${url.protocol}//${url.username ? `${url.username}:` : ''}***@${url.host}`;
}

/** The value of a variable in its lower-case form, else its upper-case one, as curl reads them, with the name found. */
function variableOf(env: NodeJS.ProcessEnv, name: string): [string, string] | undefined {
  for (const variable of [name, name.toUpperCase()]) {
    const value = env[variable]?.trim();
    if (value) return [variable, value];
  }
  return undefined;
}

function parseProxyUrl(variable: string, value: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    url = undefined;
  }
  if (!url || !url.hostname) {
    throw new ConfigError('proxy_invalid', `${variable} is not a proxy URL`, `give it as http://host:port (or http://user:password@host:port), or unset it`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      'proxy_unsupported',
      `${variable} names a ${url.protocol.slice(0, -1)} proxy; svc speaks to HTTP and HTTPS proxies only`,
      `give an http:// or https:// proxy in ${variable}, or unset it`,
    );
  }
  return url;
}

/** One entry of NO_PROXY: a host or domain (with an optional port), or an address or a CIDR block of them. */
interface Exception {
  host: string;
  port: number | undefined;
  addresses: BlockList | undefined;
}

function parseException(entry: string): Exception {
  const portMatch = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
  const [name, port] = portMatch ? [portMatch[1] ?? '', Number(portMatch[2])] : [entry, undefined];
  const host = name.replace(/^\*?\./, '').replace(/^\[(.*)\]$/, '$1');
  const [address, prefix] = host.split('/');
  const family = isIP(address ?? '');
  if (family === 0) return { host, port, addresses: undefined };
  const addresses = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) addresses.addAddress(address ?? '', type);
  else addresses.addSubnet(address ?? '', Number(prefix), type);
  return { host, port, addresses };
}

/**
 * The proxy settings of an environment, read as curl and Go's net/http (gh, the Stripe CLI) read
 * them: `https_proxy` (in lower or upper case) for HTTPS URLs, and `no_proxy` for the hosts reached
 * directly: `*`, a host (which covers its subdomains), a domain with a leading dot or `*.`, any of
 * them with `:port`, an IP address or a CIDR block.
 *
 * Two kinds of request never go to a proxy, whatever the variables say:
 * - one to a loopback host (`localhost`, 127.0.0.0/8, ::1), as Go's net/http decides before it
 *   reads NO_PROXY (golang.org/x/net/http/httpproxy, proxy.go: useProxy returns false for
 *   `host == "localhost"` and `ip.IsLoopback()`). curl has no such rule (lib/noproxy.c matches
 *   NO_PROXY alone) and hands 127.0.0.1 to the proxy: a proxy's loopback is not this machine's, and
 *   the sandbox, a listener or an application on this machine is reached directly or not at all;
 * - one in plain HTTP (`http_proxy` is not read): the proxy would get it whole, key, signature and
 *   body in clear, and its answer would be taken for the server's. svc speaks plain HTTP only to
 *   loopback hosts for the API, and elsewhere to a receiver the user named (`webhooks trigger --to`,
 *   the sandbox's `--webhook-url`) and to the host of an implementation, whose own answer the kit's
 *   plain-HTTP probe must judge.
 */
export class ProxySettings {
  private readonly https: ProxyRoute | undefined;
  private readonly exceptions: Exception[] | 'all';

  constructor(env: NodeJS.ProcessEnv) {
    const found = variableOf(env, 'https_proxy');
    this.https = found && { variable: found[0], url: parseProxyUrl(found[0], found[1]) };
    const noProxy = variableOf(env, 'no_proxy')?.[1] ?? '';
    const entries = noProxy
      .split(/[\s,]+/)
      .map((entry) => entry.toLowerCase())
      .filter((entry) => entry !== '');
    this.exceptions = entries.includes('*') ? 'all' : entries.map(parseException);
  }

  /** The password of the proxy URL, to be redacted wherever it might be printed. */
  get secrets(): string[] {
    const password = this.https?.url.password;
    return password ? [password, decodeURIComponent(password)] : [];
  }

  /** The proxy a request to `url` goes through, or undefined when it goes directly. */
  routeFor(url: URL): ProxyRoute | undefined {
    if (url.protocol !== 'https:' || !this.https || this.exceptions === 'all' || isLoopbackHost(url.hostname)) return undefined;
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    const port = url.port ? Number(url.port) : 443;
    const family = isIP(host);
    const excepted = this.exceptions.some((exception) => {
      if (exception.port !== undefined && exception.port !== port) return false;
      if (exception.addresses) return family !== 0 && exception.addresses.check(host, family === 4 ? 'ipv4' : 'ipv6');
      return host === exception.host || host.endsWith(`.${exception.host}`);
    });
    return excepted ? undefined : this.https;
  }
}

/** A request that failed at its proxy: refused, unreachable, or the tunnel to the server not made. */
export class ProxyFailure extends Error {
  readonly code: string | undefined;

  constructor(
    readonly route: ProxyRoute,
    readonly target: URL,
    cause: NodeJS.ErrnoException & { statusCode?: number },
  ) {
    super(`the proxy ${displayProxy(route.url)} (${route.variable}) failed the request to ${target.host}`, { cause });
    this.name = 'ProxyFailure';
    this.code = cause.code;
  }

  /** The status the proxy answered the tunnel's CONNECT with, if it answered one. */
  get status(): number | undefined {
    return (this.cause as { statusCode?: number }).statusCode;
  }
}
