import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { newId } from '../../../src/core/ids.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { type ListenLine, startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { SIGNATURE_FORMS, type SignatureForm, signIn } from '../../helpers/signature-forms.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

// The events part 6 allows and openapi.yaml's schemas do not describe: svc must take them from any
// implementation, the real service first, and refuse them only when asked to (--strict-schema).

const SECRET = 'whsec_statedenvelope0123456789abcdefghij';
const FORGER = 'whsec_forgedenvelope0123456789abcdefghij';

const { listen, recorder } = stoppedAfterEachTest(SECRET, startListenInProcess);

interface Delivery {
  body: Buffer;
  headers: Record<string, string>;
}

const now = () => Math.floor(Date.now() / 1000);

/** A delivery as part 6 describes it: signed with `secret` at `t` (in `form`, else by svc), with its Service-Event header. */
function signed(value: unknown, options: { secret?: string; t?: number; serviceEvent?: string; form?: SignatureForm } = {}): Delivery {
  const body = Buffer.isBuffer(value) ? value : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
  const type = (value as { type?: unknown }).type;
  const serviceEvent = options.serviceEvent ?? (typeof type === 'string' ? type : 'report.completed');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'service-event': serviceEvent,
      'service-signature': options.form
        ? signIn(options.form, options.secret ?? SECRET, body, options.t ?? now())
        : signatureHeader(options.secret ?? SECRET, body, options.t ?? now()),
    },
  };
}

/** The three deliveries of the issue, each with the notes the listener must give it. */
function differentEvents() {
  const short = { id: newId('evt'), type: 'report.completed', data: { report_id: newId('rep'), risk_score: 40 } };
  const created = { id: newId('evt'), type: 'report.created', created_at: new Date().toISOString(), data: { id: newId('rep') } };
  const archived = { id: newId('evt'), type: 'report.archived', data: { id: newId('rep') } };
  return [
    { event: short, resourceId: short.data.report_id, notes: ['created_at: is required (openapi.yaml ReportCompletedEvent)'] },
    {
      event: created,
      resourceId: created.data.id,
      notes: [expect.stringMatching(/^data: object, applicant_id, destination, .* are required \(openapi\.yaml ReportCreatedEvent\)$/)],
    },
    {
      event: archived,
      resourceId: archived.data.id,
      notes: [
        expect.stringMatching(/^type: "report\.archived" is not a kind openapi\.yaml lists \(report\.created, .*\)$/),
        'created_at: is required (openapi.yaml EventEnvelope)',
      ],
    },
  ];
}

async function post(url: string, delivery: Delivery): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/hooks`, { method: 'POST', headers: delivery.headers, body: delivery.body });
  return { status: response.status, body: await response.json() };
}

function storedRows(store: string): Array<{ event_id: string | null; type: string | null; status: string; reason: string | null; duplicates: number }> {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return db.prepare('SELECT event_id, type, status, reason, duplicates FROM events ORDER BY seq').all() as never;
  } finally {
    db.close();
  }
}

const deliveries = (lines: ListenLine[], result: string) => lines.filter((line) => line.event === 'delivery' && line.result === result);

describe('svc webhooks listen: an authentic event is taken whatever openapi.yaml says of its data', () => {
  it('answers 200, stores once and forwards once the short report.completed, a report.created with only an id and a kind openapi.yaml does not list, each with its schema notes', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url]);
    const cases = differentEvents();
    const sent = cases.map(({ event }) => signed(event));
    for (const delivery of sent) expect(await post(running.url, delivery)).toEqual({ status: 200, body: { received: true } });
    await running.waitFor((lines) => deliveries(lines, 'accepted').filter((line) => line.forward !== null).length === 3);
    for (const { event, resourceId, notes } of cases) {
      expect(running.lines.find((line) => line.event_id === event.id)).toMatchObject({
        result: 'accepted',
        type: event.type,
        resource_id: resourceId,
        status: 200,
        reason: null,
        forward: { status: 200, error: null },
        schema_notes: notes,
      });
    }

    // The sender's retries are acknowledged, neither stored nor forwarded again.
    for (const delivery of sent) expect(await post(running.url, delivery)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    await running.waitFor((lines) => deliveries(lines, 'duplicate').length === 3);
    for (const { event, notes } of cases)
      expect(deliveries(running.lines, 'duplicate').find((line) => line.event_id === event.id)).toMatchObject({ forward: null, schema_notes: notes });
    expect(app.received.map((received) => received.body).sort()).toEqual(sent.map((delivery) => delivery.body.toString()).sort());
    expect(storedRows(running.store)).toEqual(
      cases.map(({ event }) => ({ event_id: event.id, type: event.type, status: 'accepted', reason: null, duplicates: 1 })),
    );

    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const stored = JSON.parse((await svcInProcess(['webhooks', 'events', '--store', running.store, '--json'], { env })).stdout) as Array<{
      event_id: string;
      schema_notes: string[];
    }>;
    for (const { event, notes } of cases) expect(stored.find((item) => item.event_id === event.id)).toMatchObject({ status: 'accepted', schema_notes: notes });
    const table = await svcInProcess(['webhooks', 'events', '--store', running.store], { env });
    expect(table.stdout).toMatch(/\treport\.archived\t.*\taccepted, 1 repeat, 2 schema notes\t/);

    // Kinds openapi.yaml does not list are filtered and replayed as any other.
    const archived = cases[2]!.event;
    const filtered = JSON.parse((await svcInProcess(['webhooks', 'events', '--store', running.store, '--type', 'report.archived', '--json'], { env })).stdout);
    expect(filtered.map((item: { event_id: string }) => item.event_id)).toEqual([archived.id]);
    const replayed = await svcInProcess(['webhooks', 'replay', archived.id, '--store', running.store, '--forward-to', app.url, '--json'], { env });
    expect(replayed.code).toBe(0);
    expect(JSON.parse(app.received.at(-1)!.body)).toEqual(archived);
  });

  it('takes an event whose Service-Event header names another kind, noting it; the signed body decides its kind', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url, '--events', 'report.completed']);
    const event = sampleEvent('report.completed');
    expect((await post(running.url, signed(event, { serviceEvent: 'report.failed' }))).status).toBe(200);
    await running.waitFor((lines) => deliveries(lines, 'accepted').some((line) => line.forward !== null));
    expect(running.lines[0]).toMatchObject({
      type: 'report.completed',
      forward: { status: 200 },
      schema_notes: ['Service-Event header: "report.failed", but the signed body\'s type is "report.completed"'],
    });
    expect(app.received.map((received) => JSON.parse(received.body).id)).toEqual([event.id]);
  });

  it('forwards and shows the kinds given with --events, also one openapi.yaml does not list, and says that it does not list it', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url, '--events', 'report.archived']);
    expect(running.stderr()).toMatch(/report\.archived is not a kind openapi\.yaml lists: only events of exactly that kind are forwarded/);
    const [short, , archived] = differentEvents();
    expect((await post(running.url, signed(short!.event))).status).toBe(200);
    expect((await post(running.url, signed(archived!.event))).status).toBe(200);
    await running.waitFor((lines) => lines.some((line) => line.forward !== null));
    expect(running.lines.map((line) => line.event_id)).toEqual([archived!.event.id]);
    expect(app.received.map((received) => JSON.parse(received.body).id)).toEqual([archived!.event.id]);
    expect(storedRows(running.store).map((row) => row.event_id)).toEqual([short!.event.id, archived!.event.id]);

    const empty = await svcInProcess(['webhooks', 'listen', '--port', '0', '--events', 'report.completed,,report.failed'], {
      env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }),
    });
    expect(empty.code).toBe(ExitCode.usage);
    expect(empty.stderr).toMatch(/an empty event kind[\s\S]*give kinds separated by commas/);
  });
});

/** Writes raw bytes and resolves with what comes back before the connection closes. */
function raw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

describe.each(SIGNATURE_FORMS)('svc webhooks listen, signatures in $name: what part 6 does not allow is still refused', (form) => {
  const signedIn = (value: unknown, options: { secret?: string; t?: number } = {}) => signed(value, { ...options, form });

  it('refuses forged, changed, unsigned, stale, future-dated and malformed deliveries with their reasons, stores none as accepted and forwards none', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url, '--max-body', '4096', ...form.args]);
    const valid = () => ({ id: newId('evt'), type: 'report.completed', data: { report_id: newId('rep'), risk_score: 40 } });
    const changed = signedIn(valid());
    changed.body = Buffer.from(changed.body.toString().replace('40', '41'));
    const noHeader = signedIn(valid());
    delete noHeader.headers['service-signature'];
    const noV1 = signedIn(valid());
    noV1.headers['service-signature'] = `t=${now()}`;
    const millis = signedIn(valid());
    millis.headers['service-signature'] = millis.headers['service-signature']!.replace(/^t=(\d+)/, 't=$1000');
    const { id: _id, ...withoutId } = valid();
    const { type: _type, ...withoutType } = valid();
    const notUtf8 = Buffer.concat([Buffer.from('{"id":"evt_1","type":"report.completed","data":{"note":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);

    const cases: Array<[string, Delivery, string]> = [
      ['signed with another secret', signedIn(valid(), { secret: FORGER }), 'signature_mismatch'],
      ['changed after signing', changed, 'signature_mismatch'],
      ['no signature header', noHeader, 'missing_header'],
      ['t= in milliseconds', millis, 'malformed_header'],
      ['no v1', noV1, 'no_v1'],
      ['signed an hour ago', signedIn(valid(), { t: now() - 3600 }), 'timestamp_too_old'],
      ['signed an hour ahead', signedIn(valid(), { t: now() + 3600 }), 'timestamp_in_future'],
      ['not JSON', signedIn('{"id":"evt_1",'), 'body_not_json'],
      ['not UTF-8', signedIn(notUtf8), 'body_not_json'],
      ['a JSON array', signedIn([valid()]), 'envelope_invalid'],
      ['an id without evt_', signedIn({ ...valid(), id: 'rep_1' }), 'envelope_invalid'],
      ['no id', signedIn(withoutId), 'envelope_invalid'],
      ['no type', signedIn(withoutType), 'envelope_invalid'],
      ['data that is not an object', signedIn({ ...valid(), data: 'rep_1' }), 'envelope_invalid'],
    ];
    for (const [name, delivery, reason] of cases) {
      const answer = await post(running.url, delivery);
      expect(answer, name).toMatchObject({ status: 400, body: { error: { code: reason } } });
    }
    // Too large: refused on its declared length, before anything of it is read.
    const large = signedIn({ ...valid(), data: { report_id: 'rep_1', risk_score: 40, padding: 'x'.repeat(5000) } });
    const head = Object.entries(large.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    expect(
      await raw(running.url, `POST /hooks HTTP/1.1\r\nHost: x\r\n${head}Content-Length: ${large.body.length}\r\n\r\n${large.body.subarray(0, 100).toString()}`),
    ).toMatch(/^HTTP\/1\.1 413 /);

    await running.waitFor((lines) => lines.length === cases.length + 1);
    expect(deliveries(running.lines, 'rejected').map((line) => [line.reason, line.status, line.forward, line.schema_notes])).toEqual(
      cases.map(([, , reason]) => [reason, 400, null, []]),
    );
    expect(running.lines.filter((line) => line.event === 'refused').map((line) => line.status)).toEqual([413]);
    const rows = storedRows(running.store);
    expect(rows.filter((row) => row.status !== 'rejected')).toEqual([]);
    expect(rows.map((row) => row.reason)).toEqual(cases.map(([, , reason]) => reason));
    // The valid event behind these is taken: the refusals are for what was done to it.
    expect((await post(running.url, signedIn(valid()))).status).toBe(200);
    await running.waitFor((lines) => deliveries(lines, 'accepted').length === 1 && lines.at(-1)!.forward !== null);
    expect(app.received).toHaveLength(1);
  });
});

describe('svc webhooks listen --strict-schema', () => {
  it('refuses with envelope_invalid the events that differ from openapi.yaml, their notes as the reason, and takes those that match', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url, '--strict-schema']);
    const cases = differentEvents();
    for (const { event } of cases) {
      const answer = await post(running.url, signed(event));
      expect(answer).toMatchObject({ status: 400, body: { error: { code: 'envelope_invalid' } } });
    }
    const mismatched = sampleEvent('report.completed');
    expect((await post(running.url, signed(mismatched, { serviceEvent: 'report.failed' }))).status).toBe(400);
    const matching = sampleEvent('report.completed');
    expect((await post(running.url, signed(matching))).status).toBe(200);

    await running.waitFor((lines) => lines.length === 5 && lines.at(-1)!.forward !== null);
    for (const { event, notes } of cases) {
      const line = running.lines.find((item) => item.event_id === event.id)!;
      expect(line).toMatchObject({ result: 'rejected', reason: 'envelope_invalid', status: 400, forward: null, schema_notes: notes });
      expect(line.detail).toBe(line.schema_notes!.join('; '));
    }
    expect(running.lines.at(-1)).toMatchObject({ result: 'accepted', event_id: matching.id, schema_notes: [] });
    expect(app.received.map((received) => JSON.parse(received.body).id)).toEqual([matching.id]);
    const rows = storedRows(running.store);
    expect(rows.filter((row) => row.status === 'accepted').map((row) => row.event_id)).toEqual([matching.id]);
  });
});

describe('svc webhooks verify and schema notes', () => {
  it('exits 0 with schema notes for the same deliveries, 16 with --strict-schema', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    for (const { event, notes } of differentEvents()) {
      const delivery = signed(event);
      const args = ['webhooks', 'verify', '--header', delivery.headers['service-signature']!, '--event-type', event.type, '--json'];
      const noted = await svcInProcess(args, { env, input: delivery.body.toString() });
      expect(noted.code, event.type).toBe(0);
      expect(JSON.parse(noted.stdout)).toMatchObject({ ok: true, reason: null, schema_notes: notes });
      const strict = await svcInProcess([...args, '--strict-schema'], { env, input: delivery.body.toString() });
      expect(strict.code, event.type).toBe(ExitCode.verificationFailed);
      expect(JSON.parse(strict.stdout)).toMatchObject({ ok: false, reason: 'envelope_invalid', schema_notes: notes });
    }
  });

  it('shows each note to people under the schema step, and still calls a body without an evt_ id invalid', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const [short] = differentEvents();
    const delivery = signed(short!.event);
    const shown = await svcInProcess(['webhooks', 'verify', '--header', delivery.headers['service-signature']!], { env, input: delivery.body.toString() });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^envelope +ok +a report\.completed event \(evt_\w+\), as part 6 states the envelope$/m);
    expect(shown.stdout).toMatch(
      /^schema +noted +differs from openapi\.yaml in 1 way: notes, not a refusal \(--strict-schema refuses\)\n +- created_at: is required \(openapi\.yaml ReportCompletedEvent\)$/m,
    );
    expect(shown.stdout.trim().split('\n').at(-1)).toBe('valid, with 1 schema note');

    const noPrefix = signed({ ...short!.event, id: '1234' });
    const refused = await svcInProcess(['webhooks', 'verify', '--header', noPrefix.headers['service-signature']!], { env, input: noPrefix.body.toString() });
    expect(refused.code).toBe(ExitCode.verificationFailed);
    expect(refused.stdout).toMatch(/^envelope +failed +id: "1234" is not evt_ followed by the event's identifier \(part 6\) \[envelope_invalid\]$/m);
    expect(refused.stdout.trim().split('\n').at(-1)).toBe('invalid: envelope_invalid');
  });
});

describe('an event store made before schema notes were kept', () => {
  it('is read as it is, and keeps the notes of the events received from then on', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'svc-old-store-')), 'events.db');
    const db = new DatabaseSync(store);
    db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, event_id TEXT, type TEXT, resource_id TEXT, status TEXT NOT NULL, reason TEXT, detail TEXT,
      received_at INTEGER NOT NULL, duplicates INTEGER NOT NULL DEFAULT 0, headers TEXT NOT NULL, body BLOB NOT NULL, forward_url TEXT, forward_status INTEGER,
      forward_error TEXT, forwarded_at INTEGER);
      CREATE UNIQUE INDEX accepted_event_id ON events (event_id) WHERE status = 'accepted';`);
    db.prepare("INSERT INTO events (event_id, type, status, received_at, headers, body) VALUES ('evt_old1', 'report.failed', 'accepted', ?, '{}', '{}')").run(
      Date.now(),
    );
    db.close();

    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const running = await listen([], env, store);
    const [short] = differentEvents();
    expect((await post(running.url, signed(short!.event))).status).toBe(200);
    await running.waitFor((lines) => lines.length === 1);
    const stored = JSON.parse((await svcInProcess(['webhooks', 'events', '--store', store, '--json'], { env })).stdout);
    expect(stored.map((item: { event_id: string; schema_notes: string[] }) => [item.event_id, item.schema_notes])).toEqual([
      [short!.event.id, short!.notes],
      ['evt_old1', []],
    ]);
  });
});
