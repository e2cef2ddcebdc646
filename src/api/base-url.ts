import { BlockList, isIP } from 'node:net';
import { ConfigError } from '../core/errors.js';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether a URL's host is this machine's loopback: `localhost`, 127.0.0.0/8 or ::1 (an IPv4-mapped
 * ::ffff:127.x.y.z too), as Go's net/http tells it (httpproxy's useProxy: `host == "localhost"`,
 * `ip.IsLoopback()`). Other names are not resolved to find out: what a name resolves to may change.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Parses a base URL and enforces HTTPS (spec part 5.2). Plain HTTP is let through only for
 * loopback hosts, where local sandboxes and test servers live.
 */
export function parseBaseUrl(value: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('invalid_base_url', `the base URL from ${source} ("${value}") is not a URL`, 'give an absolute URL such as https://api.example.com');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(
      'insecure_base_url',
      `refusing the plain HTTP base URL ${url.origin} from ${source}: the service accepts HTTPS only`,
      'use https:// (plain http:// is allowed only for loopback hosts: 127.0.0.0/8, ::1, localhost)',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError('invalid_base_url', `the base URL from ${source} uses ${url.protocol} — only https: is supported`, 'give an https:// URL');
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      'invalid_base_url',
      `the base URL from ${source} carries credentials, a query or a fragment`,
      'give only scheme, host, port and an optional path prefix',
    );
  }
  if (/\/v1\/?$/.test(url.pathname)) {
    const without = `${url.origin}${url.pathname.replace(/\/v1\/?$/, '')}`;
    throw new ConfigError(
      'invalid_base_url',
      `the base URL from ${source} (${url.href}) ends in /v1, which svc adds to every path itself (/v1/reports)`,
      `drop /v1: give ${without}`,
    );
  }
  return url;
}
