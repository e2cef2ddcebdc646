/**
 * Part 6 states HMAC with SHA-256 and no more: the real `svc webhooks listen` and `svc webhooks
 * verify` take a signature in every form an implementation may choose (the forged, changed,
 * unsigned and stale deliveries of each form are in stated-envelope.test.ts), and the real
 * `svc webhooks trigger` signs in them too.
 */
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { SIGNATURE_FORMS, signIn } from '../../helpers/signature-forms.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_signatureforms0123456789abcdefghij';

const { listen, recorder } = stoppedAfterEachTest(SECRET, startListenInProcess);

const now = () => Math.floor(Date.now() / 1000);

async function post(url: string, body: string, signature: string): Promise<{ status: number; body: unknown }> {
  const headers = { 'content-type': 'application/json', 'service-event': JSON.parse(body).type, 'service-signature': signature };
  const response = await fetch(`${url}/hooks`, { method: 'POST', headers, body });
  return { status: response.status, body: await response.json() };
}

function storedRows(store: string): Array<{ event_id: string | null; status: string; reason: string | null; duplicates: number }> {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return db.prepare('SELECT event_id, status, reason, duplicates FROM events ORDER BY seq').all() as never;
  } finally {
    db.close();
  }
}

describe.each(SIGNATURE_FORMS)('a delivery signed in $name', (form) => {
  it('is stored and forwarded exactly once by svc webhooks listen; a captured copy sent again is at most a duplicate', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url, ...form.args]);
    const body = JSON.stringify(sampleEvent('report.completed'));
    const header = signIn(form, SECRET, body, now() - 60);
    expect(await post(running.url, body, header)).toEqual({ status: 200, body: { received: true } });
    expect(await post(running.url, body, header)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    // The captured delivery with a fresh t: <t>.<body> binds t, the body alone does not, and then the event id is all that is left.
    const replay = await post(running.url, body, header.replace(/^t=\d+/, `t=${now()}`));
    if (form.signedPayload === 'timestamped') expect(replay).toMatchObject({ status: 400, body: { error: { code: 'signature_mismatch' } } });
    else expect(replay).toEqual({ status: 200, body: { received: true, duplicate: true } });

    // The accepted delivery is reported once forwarded, so perhaps after the others.
    await running.waitFor((lines) => lines.length === 3 && lines.some((line) => line.result === 'accepted' && line.forward !== null));
    expect(running.lines.map((line) => line.result).sort()).toEqual(
      ['accepted', 'duplicate', form.signedPayload === 'timestamped' ? 'rejected' : 'duplicate'].sort(),
    );
    expect(app.received.map((received) => received.body)).toEqual([body]);
    const id = JSON.parse(body).id;
    expect(storedRows(running.store)).toEqual([
      { event_id: id, status: 'accepted', reason: null, duplicates: form.signedPayload === 'timestamped' ? 1 : 2 },
      ...(form.signedPayload === 'timestamped' ? [{ event_id: id, status: 'rejected', reason: 'signature_mismatch', duplicates: 0 }] : []),
    ]);
  });

  it('is valid to svc webhooks verify, whose diagnosis names its encoding and what was signed', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const body = JSON.stringify(sampleEvent('report.completed', 1_767_225_600_000));
    const header = signIn(form, SECRET, body, 1_767_225_600);
    const args = ['webhooks', 'verify', '--header', header, '--at', '2026-01-01T00:00:00Z', ...form.args];
    const people = await svcInProcess(args, { env, input: body });
    expect(people.code, people.stdout + people.stderr).toBe(0);
    const signed = form.signedPayload === 'timestamped' ? '<t>.<raw body>' : 'the raw body alone';
    expect(people.stdout).toMatch(
      new RegExp(`^signature +ok +the v1 value matches the secret whsec_…ghij: HMAC-SHA256 over ${signed}, in ${form.encoding}\\b`, 'm'),
    );
    const json = await svcInProcess([...args, '--json'], { env, input: body });
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      matched: { secret: 0, v1: 0, encoding: form.encoding, signed_payload: form.signedPayload },
    });
  });
});

describe('what is taken is what the user says', () => {
  it('svc webhooks listen --signature-encoding takes that encoding only', async () => {
    const [hex, base64] = [SIGNATURE_FORMS[0]!, SIGNATURE_FORMS[2]!];
    const running = await listen(['--signature-encoding', 'base64']);
    const body = () => JSON.stringify(sampleEvent('report.created'));
    const inBase64 = body();
    expect((await post(running.url, inBase64, signIn(base64, SECRET, inBase64, now()))).status).toBe(200);
    const inHex = body();
    expect(await post(running.url, inHex, signIn(hex, SECRET, inHex, now()))).toMatchObject({
      status: 400,
      body: { error: { code: 'signature_mismatch', message: expect.stringMatching(/\(HMAC-SHA256 over <t>\.<raw body>, in base64\)$/) } },
    });
  });

  it('svc webhooks listen --signed-payload body warns at start that only its duplicate-id check keeps a replay out', async () => {
    const running = await listen(['--signed-payload', 'body']);
    expect(running.stderr()).toMatch(
      /--signed-payload body: a signature of the body alone does not bind t, so a captured delivery verifies again with a fresh t; only the store's duplicate-id check/,
    );
  });

  it('a body signed alone is invalid to svc webhooks verify unless --signed-payload body, which the diagnosis names', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const body = JSON.stringify(sampleEvent('report.completed', 1_767_225_600_000));
    const header = signIn(SIGNATURE_FORMS[5]!, SECRET, body, 1_767_225_600);
    const refused = await svcInProcess(['webhooks', 'verify', '--header', header, '--at', '2026-01-01T00:00:00Z'], { env, input: body });
    expect(refused.code).toBe(ExitCode.verificationFailed);
    expect(refused.stdout).toMatch(/→ a v1 value is the signature of the body alone signed, not `<t>\.<body>` \(.*--signed-payload body takes it/);
  });

  it('svc webhooks sign gives the known answers (openssl, as in signature.test.ts) in each encoding and over each signed string', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: 'whsec_knownanswer6123456789abcdefghijklm' });
    const sign = async (...args: string[]) =>
      (await svcInProcess(['webhooks', 'sign', '--timestamp', '1700000000', ...args], { env, input: '{"id":"evt_1"}' })).stdout.trim();
    expect(await sign()).toBe('t=1700000000,v1=ae36c9a6cf0ed43b67e4c0ff17f48b41832eb9e971f98eb2a9da355387d64592');
    expect(await sign('--signature-encoding', 'base64')).toBe('t=1700000000,v1=rjbJps8O1Dtn5MD/F/SLQYMuuelx+Y6yqdo1U4fWRZI=');
    expect(await sign('--signed-payload', 'body')).toBe('t=1700000000,v1=26c288e06cd749cc0c16b734ae1756777c4680b19f4c408b0ab6bc27ae1719fb');
    expect(await sign('--signed-payload', 'body', '--signature-encoding', 'base64')).toBe('t=1700000000,v1=JsKI4GzXScwMFrc0rhdWd3xGgLGfTECLCra8J64XGfs=');
  });

  it('svc webhooks trigger signs in base64 or over the body alone, and svc webhooks listen takes each when told to', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const trigger = (url: string, ...args: string[]) => svcInProcess(['webhooks', 'trigger', 'report.completed', '--to', `${url}/hooks`, ...args], { env });
    const either = await listen();
    const hexOnly = await listen(['--signature-encoding', 'hex']);
    const bodyAlone = await listen(['--signed-payload', 'body']);
    expect((await trigger(either.url, '--signature-encoding', 'base64')).code).toBe(0);
    expect((await trigger(hexOnly.url, '--signature-encoding', 'base64')).code).toBe(ExitCode.verificationFailed);
    expect((await trigger(hexOnly.url)).code).toBe(0);
    expect((await trigger(either.url, '--signed-payload', 'body')).code).toBe(ExitCode.verificationFailed);
    expect((await trigger(bodyAlone.url, '--signed-payload', 'body', '--signature-encoding', 'base64')).code).toBe(0);
    expect((await trigger(bodyAlone.url)).code).toBe(ExitCode.verificationFailed);
  });
});
