import { randomBytes } from 'node:crypto';
import { systemClock } from '../../core/clock.js';
import type { KitContext } from '../context.js';
import { sendWithKey } from '../requests.js';
import type { Exchange } from '../http.js';
import { statedWait } from '../stated-wait.js';
import { CheckSkipped, Findings, isSuccess, shown } from '../outcome.js';
import { plainHttpAnswer } from './plain-http.js';
import type { ProbeSet } from './types.js';

function expectRemaining(findings: Findings, answers: readonly Exchange[]): void {
  for (const exchange of answers) {
    const value = exchange.headers['x-ratelimit-remaining'];
    findings.expect(value !== undefined && value.trim() !== '', 'an X-RateLimit-Remaining header', `${exchange.status} without it`, exchange);
  }
}

/**
 * Error answers the run would not otherwise see, provoked so that "every response" (part 8) is
 * checked where an implementation is most likely to forget it: answers its router or its front
 * gives before the API code runs.
 */
async function provokeErrors(context: KitContext): Promise<void> {
  const purpose = 'limits.remaining-header-errors';
  const unknown = randomBytes(8).toString('hex');
  await sendWithKey(context, 'GET', `/v1/reports/rep_svckit${unknown}`, { role: 'api', purpose });
  await sendWithKey(context, 'GET', `/v1/svc-kit-no-such-path-${unknown}`, { role: 'api', purpose });
  await sendWithKey(context, 'PATCH', '/v1/reports', { role: 'api', purpose, json: {} });
}

/** The most requests the kit spends provoking a 429: twice the Pro plan's 120 a minute (part 8). */
const MAX_REQUESTS_FOR_429 = 240;
/** The longest the kit waits, after its 429, for the window it used up to pass. */
const MAX_WINDOW_WAIT_S = 120;

/**
 * "Returned on every response" covers the answer to a request over the limit. Asked to (the check
 * runs only then), the kit provokes a 429 with the key given for it alone (`--rate-limit-key`), else
 * with the test key (`--provoke-429`): reads of a report that does not exist (no report made, no
 * quota spent), sent without pacing until one comes or MAX_REQUESTS_FOR_429 were sent, then waits
 * out the window it used up (Retry-After or X-RateLimit-Reset, else a minute), so that the
 * implementation is left as it was found. The 429 and what it cost; skipped when none could be
 * provoked, saying why.
 */
async function provoke429(context: KitContext): Promise<{ answer: Exchange; cost: string; keyName: string }> {
  const purpose = 'limits.remaining-header-429';
  const role = context.keys.rateLimit ? 'rateLimit' : 'api';
  const keyName = role === 'rateLimit' ? 'the rate-limit key' : 'the test key';
  const latest = context.client.exchanges.findLast(
    (exchange) => exchange.role === role && /^\d+$/.test(exchange.headers['x-ratelimit-remaining']?.trim() ?? ''),
  );
  const remaining = latest ? Number(latest.headers['x-ratelimit-remaining']!.trim()) : undefined;
  if (remaining !== undefined && remaining >= MAX_REQUESTS_FOR_429)
    throw new CheckSkipped(`no 429 provoked: X-RateLimit-Remaining was ${remaining}, more than the ${MAX_REQUESTS_FOR_429} requests the kit spends on it`);
  const unknown = randomBytes(8).toString('hex');
  const started = Date.now();
  for (let sent = 1; sent <= MAX_REQUESTS_FOR_429; sent++) {
    const answer = await context.client.sendUnpaced({
      method: 'GET',
      path: `/v1/reports/rep_svckit${unknown}`,
      authorization: `Bearer ${context.keys.rateLimit ?? context.keys.api}`,
      role,
      purpose,
    });
    if (answer.status !== 429) continue;
    const burst = ((Date.now() - started) / 1000).toFixed(1);
    const clock = context.clock ?? systemClock;
    const stated = statedWait(answer.headers, clock.now());
    const waitS = Math.min(MAX_WINDOW_WAIT_S, stated ? Math.ceil(stated.ms / 1000) : 60);
    await context.client.waitAsked(
      waitS * 1000,
      'the 429 provoked',
      `limits.remaining-header-429: a 429 after ${sent} requests; waiting ${waitS} s for ${keyName}'s rate-limit window to pass`,
    );
    return { answer, cost: `${sent} requests in ${burst} s, then ${waitS} s waited for the window to pass`, keyName };
  }
  throw new CheckSkipped(`no 429 within ${MAX_REQUESTS_FOR_429} requests with ${keyName} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

export const limitProbes: ProbeSet = {
  probes: {},
  final: {
    'limits.remaining-header': async (context) => {
      const answers = context.client.exchanges.filter((exchange) => isSuccess(exchange.status));
      if (answers.length === 0) throw new CheckSkipped('no successful answer during the run');
      const findings = new Findings();
      expectRemaining(findings, answers);
      findings.done();
      return `${answers.length} answers`;
    },

    'limits.remaining-header-errors': async (context) => {
      await provokeErrors(context);
      const plain = await plainHttpAnswer(context);
      const findings = new Findings();
      const answers = context.client.exchanges.filter((exchange) => !isSuccess(exchange.status));
      expectRemaining(findings, answers);
      const plainAnswered = !('refused' in plain);
      if (plainAnswered)
        findings.expect(plain.headers['x-ratelimit-remaining'] !== undefined, 'an X-RateLimit-Remaining header on the answer to plain HTTP', shown(plain), {
          method: 'GET',
          path: plain.url,
          role: 'none',
        });
      findings.done();
      return `${answers.length} error answers${plainAnswered ? ' and the answer to plain HTTP' : ''}`;
    },

    // Last of the probes that send: it leaves the test key's window used up until it has waited it out.
    'limits.remaining-header-429': async (context) => {
      const { answer, cost, keyName } = await provoke429(context);
      const findings = new Findings();
      expectRemaining(findings, [answer]);
      findings.done();
      return `a 429 provoked with ${keyName}: ${cost}`;
    },
  },
};
