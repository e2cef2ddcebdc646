/**
 * The implementation behind a gateway of issue 35, which now and then answers a GET with a
 * transient 503 and a Retry-After date (maintenance blips), as gateways also answer 429, 502 and
 * 504. The kit must wait each out as asked and pass the faithful implementation behind it; a blip
 * that never clears leaves the checks that needed the request inconclusive, naming it, never failed.
 * Its Retry-After and Date come from a clock the kit shares, which moves only when the kit waits:
 * the blips cost the test no time.
 */
import type { Clock } from '../../src/core/clock.js';
import type { ProxiedRequest, ProxyState, Variant } from '../helpers/mutating-implementation.js';
import { GATEWAY } from './gateway.js';
import { steppingClock } from '../helpers/clock.js';

/** One GET in EVERY is answered by the gateway, in turn with each of BLIPS. */
const EVERY = 4;

type Blip = { status: number; headers: (clock: Clock) => Record<string, string> };

const retryAt = (seconds: number) => (clock: Clock) => ({ 'retry-after': new Date(clock.now() + seconds * 1000).toUTCString() });

const BLIPS: Blip[] = [
  { status: 503, headers: retryAt(2) },
  { status: 429, headers: () => ({ 'retry-after': '1' }) },
  { status: 502, headers: retryAt(1) },
  { status: 504, headers: () => ({ 'retry-after': '2' }) },
];

function blipAnswer(blip: Blip, clock: Clock) {
  return {
    status: blip.status,
    headers: { date: new Date(clock.now()).toUTCString(), ...blip.headers(clock) },
    json: { message: 'the service is briefly unavailable: retry after the time given' },
  };
}

function gatewayOf(request: ProxiedRequest, state: ProxyState) {
  return GATEWAY.request!(request, state);
}

/** The faithful gateway implementation, one GET in four blipping; the request's next attempt gets through. */
function blipping(): Variant {
  const clock = steppingClock(Date.now());
  const served: string[] = [];
  const waiting = new Set<string>();
  let gets = 0;
  return {
    ...GATEWAY,
    name: 'gateway-blips',
    change: `${GATEWAY.change}; one GET in ${EVERY} answered 503, 429, 502 or 504 in turn with Retry-After (an HTTP date or seconds), gone on the next attempt`,
    clock,
    served,
    request(request, state) {
      if (request.method !== 'GET') return gatewayOf(request, state);
      const sent = `${request.headers.authorization ?? ''} ${request.path}`;
      if (waiting.delete(sent) || ++gets % EVERY !== 0) return gatewayOf(request, state);
      waiting.add(sent);
      const blip = BLIPS[(gets / EVERY - 1) % BLIPS.length]!;
      served.push(`${blip.status} on GET ${request.path}`);
      return blipAnswer(blip, clock);
    },
  };
}

export const GATEWAY_BLIPS = blipping();

/** Every read of a report answered 503 with a Retry-After date, for ever. */
function neverClearing(): Variant {
  const clock = steppingClock(Date.now());
  return {
    ...GATEWAY,
    name: 'gateway-blip-never-clears',
    change: `${GATEWAY.change}; every GET of a report answered 503 with a Retry-After date, for ever`,
    skips: undefined,
    // Checks of each kind that read a report: a Pact interaction, one waiting on it as a setup, a probe judging the answer.
    only: ['reports.get', 'reports.completes', 'auth.read-only-can-read'],
    inconclusive: ['reports.get', 'reports.completes', 'auth.read-only-can-read'],
    reasons: {
      'reports.get': /503 with Retry-After on GET \/v1\/reports\/rep_\w+, 4 attempts \(\d+ s waited\)$/,
      'reports.completes': /^503 with Retry-After on GET \/v1\/reports\/rep_\w+, 4 attempts \(\d+ s waited\)$/,
      'auth.read-only-can-read': /^503 with Retry-After on GET \/v1\/reports\/rep_\w+, 4 attempts \(\d+ s waited\)$/,
    },
    clock,
    request(request, state) {
      if (request.method === 'GET' && /^\/v1\/reports\/[^/?]+$/.test(request.path)) return blipAnswer(BLIPS[0]!, clock);
      return gatewayOf(request, state);
    },
  };
}

export const GATEWAY_BLIP_NEVER_CLEARS = neverClearing();
