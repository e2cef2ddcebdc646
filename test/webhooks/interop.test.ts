import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { signatureHeader, verifySignature } from '../../src/webhooks/signature.js';
import { verifyDelivery } from '../../src/webhooks/verify.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';

// Stripe's library verifies headers of exactly this form (`t=…,v1=…`, HMAC-SHA256 over `<t>.<body>`,
// hex): an independent, widely used implementation of the scheme openapi.yaml assumes.
const stripe = new Stripe('sk_test_interop_only_never_sent');
const SECRET = 'whsec_interop0123456789abcdefghijklmnopq';
const OTHER = 'whsec_rotated0123456789abcdefghijklmnopq';

describe('the signature scheme is the conventional one (checked against the Stripe library)', () => {
  it("Stripe's verifier accepts svc's signatures, and rejects them for a changed body or another secret", () => {
    const body = JSON.stringify(sampleEvent('report.completed'));
    const header = signatureHeader(SECRET, body);
    expect(stripe.webhooks.constructEvent(body, header, SECRET).id).toBe(JSON.parse(body).id);
    expect(() => stripe.webhooks.constructEvent(`${body} `, header, SECRET)).toThrow(/signature/i);
    expect(() => stripe.webhooks.constructEvent(body, header, OTHER)).toThrow(/signature/i);
  });

  it("Stripe's verifier accepts svc's header with one v1 per secret during a rotation", () => {
    const body = JSON.stringify(sampleEvent('document.processed'));
    const header = signatureHeader([OTHER, SECRET], body);
    expect(stripe.webhooks.constructEvent(body, header, SECRET).id).toBe(JSON.parse(body).id);
    expect(stripe.webhooks.constructEvent(body, header, OTHER).id).toBe(JSON.parse(body).id);
  });

  it("Stripe's verifier applies the same tolerance to svc's timestamps", () => {
    const body = JSON.stringify(sampleEvent('report.failed'));
    const stale = signatureHeader(SECRET, body, Math.floor(Date.now() / 1000) - 301);
    expect(() => stripe.webhooks.constructEvent(body, stale, SECRET, 300)).toThrow(/tolerance/i);
  });

  it("svc verifies Stripe's test headers, under either header name", () => {
    const event = sampleEvent('report.created');
    const body = JSON.stringify(event);
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET });
    expect(verifySignature(header, body, { secrets: [SECRET] })).toMatchObject({ ok: true });
    for (const name of ['service-signature', 'x-service-signature']) {
      expect(verifyDelivery({ [name]: header, 'service-event': event.type }, Buffer.from(body), { secrets: [SECRET] })).toMatchObject({
        ok: true,
        event: { id: event.id },
      });
    }
    expect(verifySignature(header, `${body}\n`, { secrets: [SECRET] })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(verifySignature(header, body, { secrets: [OTHER] })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it("svc rejects Stripe's headers signed outside the tolerance, either way", () => {
    const body = JSON.stringify(sampleEvent('report.created'));
    const now = Math.floor(Date.now() / 1000);
    const old = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: now - 301 });
    const future = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: now + 301 });
    expect(verifySignature(old, body, { secrets: [SECRET], now })).toMatchObject({ ok: false, reason: 'timestamp_too_old' });
    expect(verifySignature(future, body, { secrets: [SECRET], now })).toMatchObject({ ok: false, reason: 'timestamp_in_future' });
  });

  it("`svc webhooks sign` makes a header Stripe's verifier accepts, and `svc webhooks verify` accepts Stripe's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-interop-'));
    const file = join(dir, 'event.json');
    const body = JSON.stringify(sampleEvent('report.completed'));
    writeFileSync(file, body);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const signed = await svcInProcess(['webhooks', 'sign', '--payload-file', file], { env });
    expect(signed.code).toBe(0);
    expect(stripe.webhooks.constructEvent(body, signed.stdout.trim(), SECRET).id).toBe(JSON.parse(body).id);

    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET });
    const verified = await svcInProcess(['webhooks', 'verify', '--header', header, '--json'], { env, input: body });
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, reason: null, matched: { secret: 0, v1: 0 } });
  });
});
