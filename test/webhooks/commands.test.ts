import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { findProblems } from '../../src/api/validate.js';
import { EVENT_SCHEMAS, EVENT_TYPES } from '../../src/webhooks/envelope.js';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { signatureHeader, verifySignature } from '../../src/webhooks/signature.js';
import { stoppedAfterEachTest } from '../helpers/listen.js';
import { eventsOf } from '../helpers/receiver.js';
import { startServer } from '../helpers/server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';
import { HANG_MS } from '../helpers/hang.js';

const SECRET = 'whsec_commands0123456789abcdefghijklmnop';

const { listen, recorder, stopAfterTest } = stoppedAfterEachTest(SECRET);

describe('svc webhooks trigger', () => {
  it('sends a signed, schema-valid sample of each of the six kinds, with the headers of part 6', async () => {
    const receiver = await recorder();
    const result = await svcInProcess(['webhooks', 'trigger', 'all', '--to', receiver.url, '--json'], { env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }) });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).map((sent: { status: number }) => sent.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const events = eventsOf(receiver.received);
    expect(events.map((event) => event.type)).toEqual(EVENT_TYPES);
    for (const [index, delivery] of receiver.received.entries()) {
      const event = events[index]!;
      expect(findProblems(EVENT_SCHEMAS[event.type as keyof typeof EVENT_SCHEMAS], event)).toEqual([]);
      expect(delivery.headers).toMatchObject({ 'content-type': 'application/json', 'service-event': event.type });
      expect(verifySignature(delivery.headers['service-signature'] as string, delivery.body, { secrets: [SECRET] })).toMatchObject({ ok: true });
    }
  });

  it("pairs the report.completed sample's score with the band the sandbox gives it, and prints duration_ms in snake_case", async () => {
    const receiver = await recorder();
    const result = await svcInProcess(['webhooks', 'trigger', 'report.completed', '--to', receiver.url, '--json'], {
      env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }),
    });
    expect(result.code).toBe(0);
    const [sent] = JSON.parse(result.stdout);
    expect(Object.keys(sent).sort()).toEqual(['duration_ms', 'error', 'event', 'status', 'url']);
    expect(sent.duration_ms).toEqual(expect.any(Number));
    // The sandbox's bands, as openapi.yaml's x-lowest-score gives them: low from 0, medium from 25, high from 50, very_high from 75.
    const { risk_score, risk_band } = eventsOf(receiver.received)[0]!.data as { risk_score: number; risk_band: string };
    const band = risk_score >= 75 ? 'very_high' : risk_score >= 50 ? 'high' : risk_score >= 25 ? 'medium' : 'low';
    expect(risk_band).toBe(band);
  });

  it('warns that --secret is visible in the process list and never prints the secret', async () => {
    const receiver = await recorder();
    receiver.answer = (_delivery, response) => response.writeHead(500).end();
    const result = await svcInProcess(['webhooks', 'trigger', 'report.failed', '--to', receiver.url, '--secret', SECRET], { env: isolatedEnv() });
    expect(result.code).toBe(ExitCode.verificationFailed);
    expect(result.stderr).toMatch(/visible to other local users in the process list; prefer SVC_WEBHOOK_SECRET/);
    expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
    expect(verifySignature(receiver.received[0]!.headers['service-signature'] as string, receiver.received[0]!.body, { secrets: [SECRET] }).ok).toBe(true);
  });

  it('sends a kind openapi.yaml does not list as the least part 6 describes, saying so; refuses a kind that cannot be a header', async () => {
    const receiver = await recorder();
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const result = await svcInProcess(['webhooks', 'trigger', 'applicant.updated', '--to', receiver.url, '--json'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/applicant\.updated is not a kind openapi\.yaml lists: sending the minimal sample \{id, type, created_at, data: \{id\}\}/);
    const [event] = eventsOf(receiver.received);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'applicant.updated',
      created_at: expect.any(String),
      data: { id: expect.stringMatching(/^app_\w+$/) },
    });
    expect(receiver.received[0]!.headers['service-event']).toBe('applicant.updated');
    const spaced = await svcInProcess(['webhooks', 'trigger', 'report completed', '--to', receiver.url], { env });
    expect(spaced.code).toBe(ExitCode.usage);
    expect(spaced.stderr).toMatch(
      /"report completed" cannot be sent as an event kind: it goes into the Service-Event header\n.*visible ASCII characters without spaces/,
    );
    expect(receiver.received).toHaveLength(1);
  });

  it('exits 8 when the receiver cannot be reached, 10 without a secret', async () => {
    const unreachable = await svcInProcess(['webhooks', 'trigger', 'report.created', '--to', 'http://127.0.0.1:9/hooks'], {
      env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }),
    });
    expect(unreachable.code).toBe(ExitCode.network);
    const noSecret = await svcInProcess(['webhooks', 'trigger', 'report.created', '--to', 'http://127.0.0.1:9/hooks'], { env: isolatedEnv() });
    expect(noSecret.code).toBe(ExitCode.config);
    expect(noSecret.stderr).toMatch(/SVC_WEBHOOK_SECRET/);
  });
});

describe('svc webhooks listen with trigger, events and replay', () => {
  it('verifies, stores and forwards what trigger sends; --events filters what is forwarded and shown', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url, '--events', 'report.completed,report.failed']);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    expect((await svcInProcess(['webhooks', 'trigger', 'all', '--to', `${running.url}/hooks`], { env })).code).toBe(0);
    await app.waitFor((received) => received.length === 2);
    await running.waitFor((lines) => lines.length === 2);
    expect(
      eventsOf(app.received)
        .map((event) => event.type)
        .sort(),
    ).toEqual(['report.completed', 'report.failed']);
    expect(running.lines.map((line) => [line.type, line.result, line.forward?.status])).toEqual(
      expect.arrayContaining([
        ['report.completed', 'accepted', 200],
        ['report.failed', 'accepted', 200],
      ]),
    );
    const stored = JSON.parse((await svcInProcess(['webhooks', 'events', '--store', running.store, '--json'], { env })).stdout);
    expect(stored.map((event: { type: string }) => event.type).sort()).toEqual([...EVENT_TYPES].sort());
    const filtered = JSON.parse(
      (await svcInProcess(['webhooks', 'events', '--store', running.store, '--type', 'report.failed', '--since', '5m', '--json'], { env })).stdout,
    );
    expect(filtered).toHaveLength(1);
    expect(filtered[0]).toMatchObject({ type: 'report.failed', status: 'accepted', forward: { status: 200 } });
    expect(JSON.parse(filtered[0].body)).toMatchObject({ type: 'report.failed' });
    const future = await svcInProcess(['webhooks', 'events', '--store', running.store, '--since', '2999-01-01T00:00:00Z', '--json'], { env });
    expect(JSON.parse(future.stdout)).toEqual([]);

    // A forged delivery is shown whatever kind it claims to be.
    const forged = JSON.stringify(sampleEvent('document.parsed'));
    const refused = await fetch(`${running.url}/hooks`, {
      method: 'POST',
      headers: { 'service-signature': signatureHeader('whsec_forged0123456789abcdefghijklmnopqr', forged) },
      body: forged,
    });
    expect(refused.status).toBe(400);
    await running.waitFor((lines) => lines.some((line) => line.result === 'rejected' && line.type === 'document.parsed'));
  });

  it('replays a stored event to --forward-to: raw body, original headers, re-signed when a secret is given', async () => {
    const running = await listen();
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const sent = JSON.parse((await svcInProcess(['webhooks', 'trigger', 'document.rejected', '--to', `${running.url}/hooks`, '--json'], { env })).stdout)[0];
    await running.waitFor((lines) => lines.length === 1);
    const app = await recorder();
    const replayed = await svcInProcess(['webhooks', 'replay', sent.event.id, '--store', running.store, '--forward-to', app.url, '--json'], { env });
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ event_id: sent.event.id, status: 200, resigned: true });
    expect(JSON.parse(app.received[0]!.body)).toEqual(sent.event);
    expect(app.received[0]!.headers['service-event']).toBe('document.rejected');
    expect(verifySignature(app.received[0]!.headers['service-signature'] as string, app.received[0]!.body, { secrets: [SECRET] }).ok).toBe(true);

    const unsigned = await svcInProcess(['webhooks', 'replay', sent.event.id, '--store', running.store, '--forward-to', app.url, '--json'], {
      env: isolatedEnv(),
    });
    expect(JSON.parse(unsigned.stdout)).toMatchObject({ status: 200, resigned: false });
    const missing = await svcInProcess(['webhooks', 'replay', 'evt_nothere', '--store', running.store, '--forward-to', app.url], { env });
    expect(missing.code).toBe(ExitCode.notFound);
  });

  it('replay refuses to send an event in clear text to a host that is not loopback, before it looks the event up', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const refused = await svcInProcess(
      ['webhooks', 'replay', 'evt_nothere', '--store', join(env.HOME!, 'events.db'), '--forward-to', 'http://192.0.2.10/hooks', '--json'],
      { env },
    );
    expect(refused.code).toBe(ExitCode.usage);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'insecure_forward_url',
      message: 'refusing --forward-to http://192.0.2.10: events would travel unencrypted to a host that is not this machine',
    });
    expect(refused.stderr).toContain('use https://');
  });

  it("exits with the reason when --store lies under /proc, where Node's recursive mkdir spins forever", async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const result = await runSvc(['webhooks', 'events', '--store', '/proc/no-such-dir/events.db', '--json'], { env, killAfterMs: HANG_MS });
    expect(result.code).toBe(ExitCode.config);
    expect(JSON.parse(result.stdout).error.message).toContain("ENOENT: no such file or directory, mkdir '/proc/no-such-dir'");
  });

  it('injects faults: --respond answers that status and stores nothing; --delay holds every answer back', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const failing = await listen(['--respond', '503']);
    const refused = await svcInProcess(['webhooks', 'trigger', 'report.created', '--to', `${failing.url}/hooks`, '--json'], { env });
    expect(refused.code).toBe(ExitCode.verificationFailed);
    expect(JSON.parse(refused.stdout)[0].status).toBe(503);
    await failing.waitFor((lines) => lines.length === 1);
    expect(failing.lines[0]).toMatchObject({ result: 'injected', status: 503 });
    expect(JSON.parse((await svcInProcess(['webhooks', 'events', '--store', failing.store, '--json'], { env })).stdout)).toEqual([]);

    const slow = await listen(['--delay', '400ms']);
    const delayed = JSON.parse((await svcInProcess(['webhooks', 'trigger', 'report.created', '--to', `${slow.url}/hooks`, '--json'], { env })).stdout)[0];
    expect(delayed.status).toBe(200);
    expect(delayed.duration_ms).toBeGreaterThanOrEqual(400);
  });

  it('listens with TLS when given --cert and --key; trigger and check trust that certificate only with --ca-cert', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    const { cert, key } = await makeCertificate();
    writeFileSync(join(dir, 'cert.pem'), cert);
    writeFileSync(join(dir, 'key.pem'), key);
    const running = await listen(['--cert', join(dir, 'cert.pem'), '--key', join(dir, 'key.pem')]);
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const untrusted = await svcInProcess(['webhooks', 'trigger', 'report.created', '--to', `${running.url}/hooks`], { env });
    expect(untrusted.code).toBe(ExitCode.network);
    expect(untrusted.stdout).toMatch(/its TLS certificate is not trusted \(\w+\): give its CA certificate with --ca-cert/);
    const trusted = await svcInProcess(['webhooks', 'trigger', 'report.created', '--to', `${running.url}/hooks`, '--ca-cert', join(dir, 'cert.pem')], { env });
    expect(trusted.code).toBe(0);
    await running.waitFor((lines) => lines.some((line) => line.result === 'accepted'));
    const checked = await svcInProcess(['webhooks', 'check', `${running.url}/hooks`, '--ca-cert', join(dir, 'cert.pem'), '--json'], { env });
    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.stdout).passed).toBe(true);

    // A second listener forwards to the first over TLS, trusting it through --ca-cert.
    const front = await listen(['--forward-to', `${running.url}/hooks`, '--ca-cert', join(dir, 'cert.pem')]);
    const sent = JSON.parse((await svcInProcess(['webhooks', 'trigger', 'report.failed', '--to', `${front.url}/hooks`, '--json'], { env })).stdout)[0];
    await front.waitFor((lines) => lines.some((line) => line.forward?.status === 200));
    expect(front.lines.find((line) => line.event_id === sent.event.id)).toMatchObject({ result: 'accepted', forward: { status: 200, error: null } });
    await running.waitFor((lines) => lines.some((line) => line.event_id === sent.event.id && line.result === 'accepted'));
  });

  it('says which file is wrong when --ca-cert is no certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    writeFileSync(join(dir, 'not-a-cert.pem'), 'hello');
    const result = await svcInProcess(
      ['webhooks', 'trigger', 'report.created', '--to', 'https://127.0.0.1:9/hooks', '--ca-cert', join(dir, 'not-a-cert.pem')],
      {
        env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }),
      },
    );
    expect(result.code).toBe(ExitCode.config);
    expect(result.stderr).toContain(`${join(dir, 'not-a-cert.pem')} holds no PEM certificate`);
  });
});

describe('svc webhooks check', () => {
  it('passes svc webhooks listen, one line per verdict', async () => {
    const running = await listen();
    const result = await svcInProcess(['webhooks', 'check', `${running.url}/hooks`], { env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }) });
    expect(result.code).toBe(0);
    const verdicts = result.stdout.trim().split('\n');
    expect(verdicts.map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'PASS accepts_valid_event',
      'PASS accepts_several_v1',
      'PASS accepts_short_completed',
      'PASS accepts_unlisted_kind',
      'PASS rejects_bad_signature',
      'PASS rejects_missing_signature',
      'PASS rejects_stale_timestamp',
      'PASS rejects_future_timestamp',
      'PASS acknowledges_duplicate',
    ]);
  });

  it('fails an endpoint that accepts everything, and one that only looks at the first v1', async () => {
    const lax = await startServer((_request, response) => response.writeHead(200).end());
    stopAfterTest(() => lax.close());
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const result = await svcInProcess(['webhooks', 'check', lax.url, '--json'], { env });
    expect(result.code).toBe(ExitCode.verificationFailed);
    const graded = JSON.parse(result.stdout);
    expect(graded.passed).toBe(false);
    expect(Object.fromEntries(graded.verdicts.map((verdict: { check: string; passed: boolean }) => [verdict.check, verdict.passed]))).toEqual({
      accepts_valid_event: true,
      accepts_several_v1: true,
      accepts_short_completed: true,
      accepts_unlisted_kind: true,
      rejects_bad_signature: false,
      rejects_missing_signature: false,
      rejects_stale_timestamp: false,
      rejects_future_timestamp: false,
      acknowledges_duplicate: true,
    });

    // Checks the timestamp and the first v1 only.
    const firstOnly = await startServer((request, response) => {
      const [t = '', v1 = ''] = String(request.headers['service-signature'] ?? '').split(',');
      const timestamp = Number(t.slice(2));
      const fresh = Math.abs(Date.now() / 1000 - timestamp) <= 300;
      response.writeHead(fresh && signatureHeader(SECRET, request.raw, timestamp).endsWith(v1.slice(3)) && v1 !== '' ? 200 : 400).end();
    });
    stopAfterTest(() => firstOnly.close());
    const rotation = JSON.parse((await svcInProcess(['webhooks', 'check', firstOnly.url, '--json'], { env })).stdout);
    expect(rotation.verdicts.find((verdict: { check: string }) => verdict.check === 'accepts_several_v1')).toMatchObject({ passed: false });
  });

  it('skips the refusal checks when the endpoint does not accept a valid event', async () => {
    const down = await startServer((_request, response) => response.writeHead(500).end());
    stopAfterTest(() => down.close());
    const result = await svcInProcess(['webhooks', 'check', down.url], { env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }) });
    expect(result.code).toBe(ExitCode.verificationFailed);
    expect(result.stdout).toMatch(/^FAIL {2}accepts_valid_event +answered 500/m);
    expect(result.stdout.match(/^SKIP/gm)).toHaveLength(8);
  });

  it('fails a receiver that refuses a kind openapi.yaml does not list, unless --strict-schema; --event-type takes any kind', async () => {
    const strict = await listen(['--strict-schema']);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const graded = await svcInProcess(['webhooks', 'check', `${strict.url}/hooks`, '--json'], { env });
    expect(graded.code).toBe(ExitCode.verificationFailed);
    const failed = JSON.parse(graded.stdout).verdicts.filter((verdict: { passed: boolean }) => !verdict.passed);
    expect(failed).toEqual([
      {
        check: 'accepts_unlisted_kind',
        passed: false,
        detail: expect.stringMatching(/^a report\.archived event, a kind part 6 does not list: answered 400 in \d+ ms; expected a 2xx$/),
      },
    ]);
    const asked = await svcInProcess(['webhooks', 'check', `${strict.url}/hooks`, '--strict-schema', '--json'], { env });
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout).verdicts.map((verdict: { check: string }) => verdict.check)).not.toContain('accepts_unlisted_kind');

    const tolerant = await listen();
    const unlisted = await svcInProcess(['webhooks', 'check', `${tolerant.url}/hooks`, '--event-type', 'document.archived'], { env });
    expect(unlisted.code).toBe(0);
    expect(unlisted.stderr).toMatch(/document\.archived is not a kind openapi\.yaml lists: the samples are the least part 6 describes/);
    await tolerant.waitFor((lines) => lines.some((line) => line.type === 'document.archived' && line.result === 'duplicate'));
  });
});

describe('svc webhooks sign and verify', () => {
  it('signs a file and verifies it back, and exits 16 with a diagnosis when the body changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sign-'));
    const file = join(dir, 'event.json');
    const body = JSON.stringify(sampleEvent('report.completed'));
    writeFileSync(file, body);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const header = (await svcInProcess(['webhooks', 'sign', '--payload-file', file], { env })).stdout.trim();
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const valid = await svcInProcess(['webhooks', 'verify', '--header', header, '--payload-file', file], { env });
    expect(valid.code).toBe(0);
    expect(valid.stdout).toMatch(/^signature +ok +the v1 value matches the secret whsec_…mnop: HMAC-SHA256 over <t>\.<raw body>, in hex$/m);
    expect(valid.stdout.trim().split('\n').at(-1)).toBe('valid');

    writeFileSync(file, `${JSON.stringify(JSON.parse(body), null, 2)}\n`);
    const changed = await svcInProcess(['webhooks', 'verify', '--header', header, '--payload-file', file], { env });
    expect(changed.code).toBe(ExitCode.verificationFailed);
    expect(changed.stdout).toMatch(/re-serialised as compact JSON/);
    expect(changed.stdout.trim().split('\n').at(-1)).toBe('invalid: signature_mismatch');
  });

  it('checks an old capture as of when it arrived with --at', async () => {
    const body = JSON.stringify(sampleEvent('report.created'));
    const header = signatureHeader(SECRET, body, 1_767_225_600);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const now = await svcInProcess(['webhooks', 'verify', '--header', header, '--json'], { env, input: body });
    expect(JSON.parse(now.stdout)).toMatchObject({ ok: false, reason: 'timestamp_too_old' });
    const then = await svcInProcess(['webhooks', 'verify', '--header', header, '--at', '2026-01-01T00:01:00Z', '--json'], { env, input: body });
    expect(JSON.parse(then.stdout)).toMatchObject({ ok: true });
  });
});
