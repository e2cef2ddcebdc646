import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { Applicant } from '../../../src/api/types.js';
import { ExitCode } from '../../../src/core/errors.js';
import { EVENT_TYPES } from '../../../src/webhooks/envelope.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { eventsOf } from '../../helpers/receiver.js';
import { startSandboxInProcess } from '../../helpers/sandbox.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { makeCertificate } from '../../helpers/tls.js';
import { delivery, post, raw, SECRET, storedRows } from './fixtures.js';

const { listen, recorder, stopAfterTest } = stoppedAfterEachTest(SECRET, startListenInProcess);

describe('svc webhooks listen against bad input', () => {
  it('answers 413 to a body over --max-body without reading it, declared or chunked, and keeps serving', async () => {
    const running = await listen(['--max-body', '2048']);
    const declared = await raw(running.url, `POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{"id":`);
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    expect(declared).toMatch(/connection: close/i);
    const chunk = 'a'.repeat(1500);
    const chunked = await raw(
      running.url,
      `POST /hooks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${(1500).toString(16)}\r\n${chunk}\r\n${(1500).toString(16)}\r\n${chunk}\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
    expect((await post(running.url, delivery('valid', 'report.created'))).status).toBe(200);
    await running.waitFor((lines) => lines.filter((line) => line.event === 'refused' && line.status === 413).length === 2);
  });

  it('answers 431 to oversized headers, 400 to junk, 405 to other methods, and keeps serving', async () => {
    const running = await listen();
    expect(await raw(running.url, `POST /hooks HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 /);
    expect(await raw(running.url, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a]))).toMatch(
      /^HTTP\/1\.1 400 /,
    );
    expect(await raw(running.url, 'hello there\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect((await fetch(`${running.url}/hooks`)).status).toBe(405);
    expect((await post(running.url, delivery('valid', 'report.created'))).status).toBe(200);
  });

  it('answers others while a client sends its headers slowly, and cuts that client off', async () => {
    const running = await listen();
    const { hostname, port } = new URL(running.url);
    const slow = connect({ host: hostname, port: Number(port) });
    slow.on('error', () => undefined);
    // Flowing, so that the server's FIN is read and the socket closes.
    slow.resume();
    slow.write('POST /hooks HTTP/1.1\r\nHost: x\r\n');
    const dripping = setInterval(() => slow.write('X-Slow: 1\r\n'), 500);
    const closed = new Promise<void>((resolve) => slow.once('close', () => resolve()));
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(running.url, delivery('valid', 'report.completed'))));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      // Still dripping: only the listener's header timeout ends this connection.
      await closed;
      expect((await post(running.url, delivery('valid', 'report.completed'))).status).toBe(200);
    } finally {
      clearInterval(dripping);
      slow.destroy();
    }
  });

  it('answers 400 with the reason to a delivery that fails verification, keeps it as rejected, and forwards nothing', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url]);
    const forged = delivery('invalid', 'report.failed', 'secret');
    const response = await fetch(`${running.url}/hooks`, { method: 'POST', headers: forged.headers, body: forged.body });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'signature_mismatch' } });
    await running.waitFor((lines) => lines.some((line) => line.result === 'rejected'));
    expect(running.lines[0]).toMatchObject({
      event: 'delivery',
      result: 'rejected',
      reason: 'signature_mismatch',
      event_id: forged.id,
      status: 400,
      forward: null,
    });
    expect(storedRows(running.store)).toEqual([{ event_id: forged.id, status: 'rejected', reason: 'signature_mismatch', duplicates: 0 }]);
    expect(app.received).toEqual([]);
  });

  it('answers 503 and acknowledges nothing while another writer holds the store, then takes the retry once', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url]);
    const event = delivery('valid', 'report.completed');
    const other = new DatabaseSync(running.store);
    other.exec('BEGIN IMMEDIATE');
    try {
      const refused = await fetch(`${running.url}/hooks`, { method: 'POST', headers: event.headers, body: event.body });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: { code: 'store_failed' } });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await running.waitFor((lines) => lines.some((line) => line.result === 'store_failed'));
    expect(running.lines[0]).toMatchObject({ event: 'delivery', result: 'store_failed', event_id: event.id, status: 503, forward: null });
    const retried = await fetch(`${running.url}/hooks`, { method: 'POST', headers: event.headers, body: event.body });
    expect(retried.status).toBe(200);
    await running.waitFor((lines) => lines.some((line) => line.result === 'accepted' && line.forward !== null));
    expect(storedRows(running.store)).toEqual([{ event_id: event.id, status: 'accepted', reason: null, duplicates: 0 }]);
    expect(eventsOf(app.received).map((received) => received.id)).toEqual([event.id]);
  });

  it("warns when a forward's outcome cannot be recorded, another writer holding the store meanwhile, and leaves the forward shown as unfinished", async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url]);
    const event = delivery('valid', 'report.completed');
    const other = new DatabaseSync(running.store);
    try {
      // The application takes the store's write lock before it answers: the event is stored, its forward's outcome cannot be.
      app.answer = (_received, response) => {
        other.exec('BEGIN IMMEDIATE');
        response.writeHead(200).end();
      };
      const answer = await fetch(`${running.url}/hooks`, { method: 'POST', headers: event.headers, body: event.body });
      expect(answer.status).toBe(200);
      await running.waitFor(() => running.stderr().includes('could not record'));
    } finally {
      if (other.isTransaction) other.exec('ROLLBACK');
      other.close();
    }
    expect(running.stderr()).toContain(
      `Warning: could not record in the event store what became of forwarding ${event.id} to ${app.url} (200): database is locked; the store still shows that forward as unfinished`,
    );
    await running.waitFor((lines) => lines.some((line) => line.result === 'accepted'));
    expect(running.lines).toEqual([
      expect.objectContaining({ event: 'delivery', result: 'accepted', event_id: event.id, forward: expect.objectContaining({ status: 200 }) }),
    ]);
    const db = new DatabaseSync(running.store, { readOnly: true });
    try {
      expect(db.prepare('SELECT forward_url, forward_status, forwarded_at FROM events').all()).toEqual([
        { forward_url: app.url, forward_status: null, forwarded_at: null },
      ]);
    } finally {
      db.close();
    }
  });

  it('refuses plain HTTP on a non-loopback address', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    await expect(startListenInProcess(['--host', '0.0.0.0'], env)).rejects.toThrow(/exited 2[\s\S]*--cert and --key/);
  });

  it('refuses at startup to forward events in clear text to a host that is not loopback; https and loopback http are taken', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    // Refused before listening, so nothing is ever sent there.
    await expect(listen(['--forward-to', 'http://192.0.2.10:8080/hooks'], env)).rejects.toThrow(
      /exited 2[\s\S]*refusing --forward-to http:\/\/192\.0\.2\.10:8080: events would travel unencrypted[\s\S]*use https:\/\//,
    );
    await expect(listen(['--forward-to', 'ftp://127.0.0.1/hooks'], env)).rejects.toThrow(/exited 2[\s\S]*--forward-to uses ftp:/);
    await expect(listen(['--forward-to', 'hooks'], env)).rejects.toThrow(/exited 2[\s\S]*--forward-to hooks is not a URL/);
    for (const url of ['https://192.0.2.10/hooks', 'http://localhost:3000/hooks', 'http://127.0.0.2:3000/hooks', 'http://[::1]:3000/hooks']) {
      const running = await listen(['--forward-to', url], env);
      await running.stop();
    }
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
});

describe('svc webhooks listen --json across versions', () => {
  it("prints 0.1.0's kind beside event on every line until 0.3.0, and warns of it on stderr", async () => {
    const running = await listen();
    expect((await post(running.url, delivery('valid', 'report.completed'))).status).toBe(200);
    expect((await raw(running.url, 'GET /hooks HTTP/1.1\r\nHost: x\r\n\r\n')).startsWith('HTTP/1.1 405')).toBe(true);
    await running.waitFor((lines) => lines.length === 2);
    // What a script written for 0.1.0 counts, and what one written since counts.
    expect(running.lines.filter((line) => line.kind === 'delivery')).toHaveLength(1);
    expect(running.lines.map((line) => [line.event, line.kind])).toEqual([
      ['delivery', 'delivery'],
      ['refused', 'refused'],
    ]);
    expect(running.stderr()).toContain(
      'Warning: webhooks listen --json: `kind` (read `event`), `event` of a takeover line (read `event_id`, `type`, `resource_id`) are deprecated and go in 0.3.0 (docs/json-output.md)',
    );
  });
});

describe('svc webhooks listen with the sandbox as the sender', () => {
  it("verifies and stores the sandbox's events once each, through its retries of deliberately failed answers", async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const app = await recorder();
    // A third of the answers fail on purpose: the sandbox retries them on part 6's schedule, sped up.
    const running = await listen(['--forward-to', app.url, '--fail-rate', '0.3'], env);
    const sandbox = await startSandboxInProcess({ webhookUrls: [`${running.url}/hooks`], webhookSecret: SECRET, timeScale: 10_000 }, env);
    stopAfterTest(() => sandbox.stop());

    const json = { 'content-type': 'application/json' };
    const applicant = (await (
      await sandbox.fetch('/v1/applicants', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ given_names: 'Anna', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE' }),
      })
    ).json()) as Applicant;
    await sandbox.fetch('/v1/reports', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ applicant_id: applicant.id, destination: 'DE', visa_type: 'tourist', purpose: 'holiday' }),
    });
    const form = new FormData();
    form.set('type', 'other');
    form.set('file', new Blob(['A letter of invitation from Berlin.\n'], { type: 'text/plain' }), 'invitation.txt');
    await sandbox.fetch('/v1/documents', { method: 'POST', body: form });

    const wanted = ['report.created', 'report.completed', 'document.processed', 'document.parsed'];
    await running.waitFor((lines) => wanted.every((type) => lines.some((line) => line.type === type && line.result === 'accepted')));
    await app.waitFor((received) => received.length >= wanted.length);
    const accepted = running.lines.filter((line) => line.result === 'accepted');
    expect(accepted.map((line) => line.type).sort()).toEqual([...wanted].sort());
    expect(running.lines.filter((line) => line.result === 'rejected')).toEqual([]);
    for (const line of running.lines.filter((item) => item.result === 'injected')) expect(accepted.map((item) => item.event_id)).toContain(line.event_id);

    const forwarded = eventsOf(app.received).map((event) => event.id);
    expect(forwarded.sort()).toEqual(accepted.map((line) => line.event_id).sort());
    const stored = JSON.parse((await svcInProcess(['webhooks', 'events', '--store', running.store, '--json'], { env })).stdout);
    expect(stored.map((event: { event_id: string }) => event.event_id).sort()).toEqual(accepted.map((line) => line.event_id).sort());
    const delivered = JSON.parse((await svcInProcess(['sandbox', 'deliveries', '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env })).stdout);
    expect(delivered.every((delivery: { status: string }) => delivery.status === 'delivered')).toBe(true);
  });
});
