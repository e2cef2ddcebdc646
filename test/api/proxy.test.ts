import { describe, expect, it } from 'vitest';
import { displayProxy, ProxySettings } from '../../src/api/proxy.js';

const PROXY = 'http://proxy.corp:3128';

/** The proxy a request to `url` goes through under these variables, or 'direct'. */
function route(env: NodeJS.ProcessEnv, url: string): string {
  return new ProxySettings(env).routeFor(new URL(url))?.url.href ?? 'direct';
}

describe('proxy settings, as curl and Go read them', () => {
  it('takes https_proxy for HTTPS, the lower-case form first', () => {
    expect(route({ HTTPS_PROXY: PROXY }, 'https://api.example.com/v1')).toBe('http://proxy.corp:3128/');
    expect(route({ https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' }, 'https://a.example')).toBe('http://lower:1/');
    expect(route({ HTTPS_PROXY: 'proxy.corp:3128' }, 'https://a.example')).toBe('http://proxy.corp:3128/');
    expect(route({}, 'https://a.example')).toBe('direct');
  });

  it.each([
    ['*', 'https://api.example.com', 'direct'],
    ['example.com', 'https://example.com', 'direct'],
    ['example.com', 'https://api.example.com', 'direct'],
    ['example.com', 'https://notexample.com', 'proxy'],
    ['.example.com', 'https://api.example.com', 'direct'],
    ['*.example.com', 'https://api.example.com', 'direct'],
    ['example.com:8443', 'https://example.com:8443', 'direct'],
    ['example.com:8443', 'https://example.com', 'proxy'],
    ['example.com:443', 'https://example.com', 'direct'],
    ['EXAMPLE.com', 'https://Api.Example.COM', 'direct'],
    ['10.0.0.0/8', 'https://10.1.2.3', 'direct'],
    ['10.0.0.0/8', 'https://11.1.2.3', 'proxy'],
    ['192.0.2.7', 'https://192.0.2.7:9443', 'direct'],
    ['192.0.2.7', 'https://192.0.2.8', 'proxy'],
    ['2001:db8::1', 'https://[2001:db8::1]:9443', 'direct'],
    ['[2001:db8::1]:9443', 'https://[2001:db8::1]:9443', 'direct'],
    ['2001:db8::/32', 'https://[2001:db8::7]', 'direct'],
    ['other.org, example.com', 'https://api.example.com', 'direct'],
    ['other.org example.com', 'https://api.example.com', 'direct'],
    ['example.com', 'https://192.0.2.7', 'proxy'],
  ])('NO_PROXY=%s sends %s %s', (noProxy, url, expected) => {
    expect(route({ HTTPS_PROXY: PROXY, NO_PROXY: noProxy }, url)).toBe(expected === 'proxy' ? 'http://proxy.corp:3128/' : 'direct');
  });

  it.each([
    'https://127.0.0.1:8443',
    'https://127.9.8.7',
    'https://localhost:8443',
    'https://LOCALHOST',
    'https://[::1]:8443',
    'https://[::ffff:127.0.0.1]:8443',
    'http://127.0.0.1:8080/hook',
    'http://localhost:3000',
  ])('reaches the loopback host of %s directly, whatever NO_PROXY says (as Go does)', (url) => {
    expect(route({ HTTPS_PROXY: PROXY, HTTP_PROXY: PROXY }, url)).toBe('direct');
    expect(route({ HTTPS_PROXY: PROXY, HTTP_PROXY: PROXY, NO_PROXY: 'example.com' }, url)).toBe('direct');
  });

  it('never hands a plain-HTTP request to a proxy: http_proxy is not read', () => {
    for (const env of [{ HTTP_PROXY: PROXY }, { http_proxy: PROXY, HTTPS_PROXY: PROXY }]) {
      expect(route(env, 'http://hooks.example.com/receive')).toBe('direct');
      expect(route(env, 'http://192.0.2.7:8080/')).toBe('direct');
    }
    expect(() => new ProxySettings({ HTTP_PROXY: 'socks5://127.0.0.1:1080' })).not.toThrow();
    expect(new ProxySettings({ HTTP_PROXY: 'http://ops:secret@proxy.corp:3128' }).secrets).toEqual([]);
  });

  it('refuses a proxy it cannot speak to, naming the variable', () => {
    expect(() => new ProxySettings({ HTTPS_PROXY: 'socks5://127.0.0.1:1080' })).toThrow(
      'HTTPS_PROXY names a socks5 proxy; svc speaks to HTTP and HTTPS proxies only',
    );
    expect(() => new ProxySettings({ https_proxy: 'http://' })).toThrow('https_proxy is not a proxy URL');
  });

  it('shows a proxy URL without its password, and knows the password to redact', () => {
    expect(displayProxy(new URL('http://ops:s%20cret@proxy.corp:3128'))).toBe('http://ops:***@proxy.corp:3128');
    expect(displayProxy(new URL('http://proxy.corp:3128'))).toBe('http://proxy.corp:3128');
    expect(new ProxySettings({ HTTPS_PROXY: 'http://ops:s%20cret@proxy.corp:3128' }).secrets).toEqual(['s%20cret', 's cret']);
  });
});
