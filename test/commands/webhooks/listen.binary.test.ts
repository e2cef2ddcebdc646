/**
 * What only a process of its own shows of `svc webhooks listen`: kill -9 in the middle of a burst,
 * SIGTERM's drain, and that a killed listener leaves no record of itself for `webhooks trigger`. Its other behaviour is tested in the test's process (listen.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { type ListenLine, stoppedAfterEachTest } from '../../helpers/listen.js';
import { eventsOf } from '../../helpers/receiver.js';
import { atScale } from '../../helpers/scale.js';
import { isolatedEnv, runSvc } from '../../helpers/svc.js';
import { burst, delivery, raw, SECRET, send, storedRows } from './fixtures.js';

const { listen, recorder } = stoppedAfterEachTest(SECRET);

describe('svc webhooks listen under load, with a forward target and kill -9', () => {
  it(
    'stores every acknowledged event exactly once, forwards each new event once and nothing forged, across kill -9 and a restart',
    // 17,000 deliveries at full scale (test:scale), verified, stored and forwarded: a minute's work on a loaded machine.
    { timeout: 300_000, tags: ['scale'] },
    async () => {
      const app = await recorder();
      const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
      const first = await listen(['--forward-to', app.url], env);

      // Burst 1: 10,000 deliveries at full scale.
      const duplicatesOne = atScale(600);
      const invalidOne = atScale(400);
      const one = burst(atScale(9000), duplicatesOne, invalidOne);
      const statuses = await send(`${first.url}/hooks`, one);
      one.forEach((item, index) => expect(statuses[index], `${item.kind} ${item.id}`).toBe(item.kind === 'invalid' ? 400 : 200));
      const validOne = new Set(one.filter((item) => item.kind === 'valid').map((item) => item.id));
      await app.waitFor((received) => received.length >= validOne.size);

      let rows = storedRows(first.store);
      const accepted = rows.filter((row) => row.status === 'accepted');
      expect(accepted).toHaveLength(validOne.size);
      expect(new Set(accepted.map((row) => row.event_id))).toEqual(validOne);
      expect(accepted.reduce((sum, row) => sum + row.duplicates, 0)).toBe(duplicatesOne);
      const rejected = rows.filter((row) => row.status === 'rejected');
      expect(rejected).toHaveLength(invalidOne);
      expect(
        Object.fromEntries(
          ['signature_mismatch', 'timestamp_too_old', 'body_not_json'].map((reason) => [reason, rejected.filter((row) => row.reason === reason).length]),
        ),
      ).toEqual({
        // The forgeries take turns: another secret, another body, an old timestamp, a body cut short.
        signature_mismatch: invalidOne / 2,
        timestamp_too_old: invalidOne / 4,
        body_not_json: invalidOne / 4,
      });
      const forwardedOne = eventsOf(app.received).map((event) => event.id);
      expect(forwardedOne).toHaveLength(validOne.size);
      expect(new Set(forwardedOne)).toEqual(validOne);
      // Raw body and original headers.
      const sample = one.find((item) => item.id === forwardedOne[0] && item.kind === 'valid')!;
      expect(app.received[0]!.body).toBe(sample.body);
      expect(app.received[0]!.headers).toMatchObject({
        'service-signature': sample.headers['service-signature'],
        'service-event': sample.headers['service-event'],
      });
      await first.waitFor((lines) => lines.filter((line) => line.event === 'delivery').length === one.length);
      expect(first.lines.filter((line) => line.result === 'accepted').every((line) => line.forward?.status === 200)).toBe(true);

      // Burst 2: the listener is killed with SIGKILL after a third of its deliveries are acknowledged, mid-burst.
      const two = burst(atScale(3000), atScale(300), atScale(200));
      const killAt = atScale(1000);
      const acknowledged = new Set<string>();
      // The deliveries cut short may all be answered before the kill's exit is seen.
      const exited = new Promise((resolve) => first.process.once('exit', resolve));
      const killed = send(`${first.url}/hooks`, two, {
        onAnswer: (count) => {
          if (count === killAt) first.process.kill('SIGKILL');
        },
      });
      const before = await killed;
      await exited;
      two.forEach((item, index) => {
        if (before[index] === 200) acknowledged.add(item.id);
      });
      expect(first.process.signalCode).toBe('SIGKILL');
      expect(before.filter((status) => status === 200).length).toBeGreaterThanOrEqual(killAt);
      expect(before.filter((status) => status === null).length).toBeGreaterThan(0);
      rows = storedRows(first.store);
      const storedIds = rows.filter((row) => row.status === 'accepted').map((row) => row.event_id!);
      for (const id of acknowledged)
        expect(
          storedIds.filter((stored) => stored === id),
          id,
        ).toHaveLength(1);

      // Restart on the same store; the sender retries the whole burst, as part 6's retries would.
      const second = await listen(['--forward-to', app.url], env, first.store);
      const after = await send(`${second.url}/hooks`, two);
      two.forEach((item, index) => expect(after[index], `${item.kind} ${item.id}`).toBe(item.kind === 'invalid' ? 400 : 200));
      const validTwo = new Set(two.filter((item) => item.kind === 'valid').map((item) => item.id));
      await second.waitFor((lines) => lines.filter((line) => line.event === 'delivery').length === two.length);
      await new Promise((resolve) => setTimeout(resolve, 200));

      rows = storedRows(first.store);
      const finalIds = rows.filter((row) => row.status === 'accepted').map((row) => row.event_id!);
      expect(finalIds).toHaveLength(validOne.size + validTwo.size);
      expect(new Set(finalIds)).toEqual(new Set([...validOne, ...validTwo]));
      const forwarded = eventsOf(app.received).map((event) => event.id);
      expect(new Set(forwarded).size, 'no event forwarded twice').toBe(forwarded.length);
      const invalidIds = new Set([...one, ...two].filter((item) => item.kind === 'invalid').map((item) => item.id));
      expect(
        forwarded.filter((id) => invalidIds.has(id)),
        'no rejected event forwarded',
      ).toEqual([]);
      const redelivered = second.lines.filter((line: ListenLine) => line.result === 'duplicate').map((line) => line.event_id);
      for (const id of acknowledged) expect(redelivered).toContain(id);
    },
  );
});

describe('svc webhooks listen stopped by SIGTERM', () => {
  it('on SIGTERM answers the delivery under way, closing its connection, so that a busy sender does not keep it running', async () => {
    const running = await listen(['--delay', '2s']);
    const item = delivery('valid', 'report.completed');
    const headers = Object.entries(item.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const answered = raw(
      running.url,
      `POST /hooks HTTP/1.1\r\nHost: x\r\n${headers}content-length: ${Buffer.byteLength(item.body)}\r\n\r\n${item.body}`,
      20_000,
    );
    // Stored, then held back by --delay: the delivery is under way.
    while (storedRows(running.store).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const exited = running.stop('SIGTERM');
    const answer = await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(await exited).toBe(0);
    expect(storedRows(running.store)).toEqual([{ event_id: item.id, status: 'accepted', reason: null, duplicates: 0 }]);
  });

  it('is where webhooks trigger sends by default while it runs, and no longer once it is killed with SIGKILL', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const running = await listen([], env);
    const sent = await runSvc(['webhooks', 'trigger', 'report.created', '--json'], { env });
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)[0]).toMatchObject({ url: running.url, status: 200 });
    await running.waitFor((lines) => lines.length === 1);
    await running.stop('SIGKILL');
    const after = await runSvc(['webhooks', 'trigger', 'report.created', '--json'], { env });
    expect(after.code).toBe(2);
    expect(JSON.parse(after.stdout).error.code).toBe('no_receiver');
  });
});
