import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { isLoopbackHost } from '../api/base-url.js';
import { SvcError } from '../core/errors.js';

/** Where the sandbox listens (`--host`): an IP address of this machine, or every interface of a family (0.0.0.0, ::). */
export interface ListenAddress {
  /** The address as the system writes it (`::1`, never `0:0:0:0:0:0:0:1`). */
  host: string;
  /** 0.0.0.0 or ::: every interface. */
  everyInterface: boolean;
  /** Reachable from other machines: every interface, or an address that is not loopback. */
  beyondLoopback: boolean;
}

/** The sandbox's listening address from `--host`: an IP address, checked and written as the system writes it. */
export function listenAddress(host: string): ListenAddress {
  const family = isIP(host);
  let normalised: string | undefined;
  try {
    normalised = family === 0 ? undefined : new URL(`https://${family === 6 ? `[${host}]` : host}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    // An address URL cannot carry (an IPv6 zone): refused below.
  }
  if (normalised === undefined) {
    throw new SvcError(
      'usage',
      'invalid_host',
      `--host ${host} is not an IP address`,
      'give 127.0.0.1 or ::1 (loopback), an address of this machine, or 0.0.0.0 or :: (every interface)',
    );
  }
  const everyInterface = normalised === '0.0.0.0' || normalised === '::';
  return { host: normalised, everyInterface, beyondLoopback: everyInterface || !isLoopbackHost(normalised) };
}

/** The base URL by which a client on this machine reaches the sandbox: its address, or loopback of its family where it listens on every interface. */
export function localBaseUrl(address: ListenAddress, port: number): string {
  const host = address.everyInterface ? (address.host === '::' ? '::1' : '127.0.0.1') : address.host;
  return `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * The names the sandbox's certificate carries: loopback's (localhost, 127.0.0.1, ::1) always, the
 * address it listens on, and, where other machines may reach it, this machine's name (a container's
 * `--hostname`), by which they may.
 */
export function certificateNames(address: ListenAddress): string[] {
  const names = ['localhost', '127.0.0.1', '::1', ...(address.everyInterface ? [] : [address.host]), ...(address.beyondLoopback ? [hostname()] : [])];
  return [...new Set(names)];
}
