/**
 * Where `svc sandbox start --host` listens, and what follows from it: the base URL a client on this
 * machine uses (the profile's), and the names its certificate carries. Every interface is worked out
 * here, as no test listens beyond loopback.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { certificateNames, listenAddress, localBaseUrl } from '../../src/sandbox/listen-address.js';

describe('the sandbox listening address', () => {
  it.each([
    ['127.0.0.1', 'https://127.0.0.1:8443', false],
    ['::1', 'https://[::1]:8443', false],
    ['0:0:0:0:0:0:0:1', 'https://[::1]:8443', false],
    ['127.0.0.2', 'https://127.0.0.2:8443', false],
    ['0.0.0.0', 'https://127.0.0.1:8443', true],
    ['::', 'https://[::1]:8443', true],
    ['192.0.2.10', 'https://192.0.2.10:8443', true],
    ['2001:db8::10', 'https://[2001:db8::10]:8443', true],
  ])('%s: a client here reaches it at %s; beyond loopback: %s', (host, url, beyond) => {
    const address = listenAddress(host);
    expect(localBaseUrl(address, 8443)).toBe(url);
    expect(address.beyondLoopback).toBe(beyond);
  });

  it("names loopback in its certificate always, the address it listens on, and beyond loopback this machine's name", () => {
    expect(certificateNames(listenAddress('127.0.0.1'))).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(certificateNames(listenAddress('::1'))).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(certificateNames(listenAddress('0.0.0.0'))).toEqual(['localhost', '127.0.0.1', '::1', hostname()]);
    expect(certificateNames(listenAddress('192.0.2.10'))).toEqual(['localhost', '127.0.0.1', '::1', '192.0.2.10', hostname()]);
  });

  it.each(['localhost', 'sandbox', '', 'fe80::1%eth0', '300.1.1.1'])('refuses %j, which is no IP address to listen on', (host) => {
    expect(() => listenAddress(host)).toThrow(/is not an IP address/);
  });
});
