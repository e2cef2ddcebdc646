import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { findProblems } from '../../../src/api/validate.js';
import { EVENT_SCHEMAS, EVENT_TYPES } from '../../../src/webhooks/envelope.js';
import { verifySignature } from '../../../src/webhooks/signature.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { eventsOf } from '../../helpers/receiver.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_commands0123456789abcdefghijklmnop';

const { recorder } = stoppedAfterEachTest(SECRET, startListenInProcess);

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
