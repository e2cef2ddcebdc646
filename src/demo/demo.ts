import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient } from '../api/client.js';
import { idOf } from '../api/answer.js';
import { networkOf } from '../api/network.js';
import type { ApplicantInput, ReportAnswer } from '../api/types.js';
import { SvcError } from '../core/errors.js';
import { randomToken } from '../core/ids.js';
import { SAMPLE_APPLICANT } from '../conformance/samples.js';
import { buildMrz } from '../sandbox/mrz.js';
import { startSandbox } from '../sandbox/server.js';
import { upsertApplicant } from '../services/applicants.js';
import { uploadDocument } from '../services/documents.js';
import { createReport, getReport } from '../services/reports.js';
import { verifySignature } from '../webhooks/signature.js';

const EVENT_TIMEOUT_MS = 30_000;

export type DemoStep = { step: string; detail: string };

interface VerifiedEvent {
  id: string;
  type: string;
  data: { id?: string };
}

/** A webhook subscriber on 127.0.0.1 that accepts only deliveries whose signature verifies. */
async function startSubscriber(secret: string): Promise<{ url: string; server: Server; next(type: string, resourceId: string): Promise<VerifiedEvent> }> {
  const received = new Map<string, VerifiedEvent>();
  const waiting = new Map<string, (event: VerifiedEvent) => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const check = verifySignature(request.headers['service-signature'] as string | undefined, body, { secrets: [secret] });
      response.writeHead(check.ok ? 204 : 400).end();
      if (!check.ok) return;
      const event = JSON.parse(body.toString('utf8')) as VerifiedEvent;
      const name = `${event.type} ${event.data.id}`;
      received.set(name, event);
      waiting.get(name)?.(event);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    server,
    next: (type, resourceId) =>
      new Promise((resolve, reject) => {
        const name = `${type} ${resourceId}`;
        const arrived = received.get(name);
        if (arrived) return resolve(arrived);
        const timer = setTimeout(
          () => reject(new SvcError('failure', 'event_missing', `no verified ${type} event for ${resourceId} within ${EVENT_TIMEOUT_MS / 1000} s`)),
          EVENT_TIMEOUT_MS,
        );
        waiting.set(name, (event) => {
          clearTimeout(timer);
          resolve(event);
        });
      }),
  };
}

function yearsFromNow(years: number): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() + years);
  return date.toISOString().slice(0, 10);
}

/** The kit's sample applicant, with a passport that stays valid for the demo's sake. */
const APPLICANT: ApplicantInput = { ...SAMPLE_APPLICANT, passport_expiry: yearsFromNow(6) };

function samplePassport(): Uint8Array {
  const { line1, line2 } = buildMrz({
    document_number: APPLICANT.passport_number!,
    nationality: APPLICANT.nationality!,
    surname: APPLICANT.surname!,
    given_names: APPLICANT.given_names!,
    date_of_birth: APPLICANT.date_of_birth!,
    expiry_date: APPLICANT.passport_expiry!,
    sex: 'F',
  });
  return new TextEncoder().encode(`PASSPORT — KINGDOM OF SWEDEN (sample)\n\n${line1}\n${line2}\n`);
}

/**
 * The whole path of the API on a fresh machine: an embedded sandbox on a free port, an applicant,
 * a passport, a report, and its `report.completed` webhook received and verified. Leaves nothing
 * behind: the sandbox, the subscriber and their temporary files are gone when it returns.
 */
export async function runDemo(onStep: (step: DemoStep) => void): Promise<ReportAnswer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-demo-'));
  const secret = `whsec_${randomToken(32)}`;
  const subscriber = await startSubscriber(secret);
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  try {
    // Every request of the demo goes between its own processes on loopback, where no proxy could reach: none is used.
    sandbox = await startSandbox({ dataDir, port: 0, webhookUrls: [subscriber.url], webhookSecret: secret, analysisDelayMs: 300, network: networkOf({}) });
    onStep({ step: 'sandbox', detail: `started on ${sandbox.url}, events to ${subscriber.url}` });
    const key = sandbox.store.sandboxKeys().find((stored) => stored.role === 'test')!.secret!;
    const client = createApiClient({
      baseUrl: new URL(sandbox.url),
      key,
      network: networkOf({}, { caCert: { path: sandbox.certPath, source: "the demo's sandbox" }, caCertOnly: true }),
    });

    const applicant = await upsertApplicant(client, APPLICANT);
    const applicantId = idOf(applicant, 'POST /v1/applicants');
    onStep({ step: 'applicant', detail: `${applicantId} (${applicant.given_names} ${applicant.surname}, ${applicant.nationality})` });

    const document = await uploadDocument(client, {
      type: 'passport',
      applicantId,
      file: { filename: 'passport.txt', contentType: 'text/plain', bytes: samplePassport() },
    });
    const documentId = idOf(document, 'POST /v1/documents');
    const processed = await subscriber.next('document.processed', documentId);
    const flags = (processed.data as { red_flags?: unknown[] }).red_flags?.length ?? 0;
    onStep({
      step: 'document',
      detail: `passport ${documentId} uploaded; document.processed ${processed.id} verified, ${flags} red flag${flags === 1 ? '' : 's'}`,
    });

    const report = await createReport(client, {
      applicant_id: applicantId,
      destination: 'DE',
      visa_type: 'tourist',
      purpose: 'Two weeks of holiday in Berlin and Munich, visiting museums',
    });
    const reportId = idOf(report, 'POST /v1/reports');
    onStep({ step: 'report', detail: `${reportId} created (${report.status})` });
    const completed = await subscriber.next('report.completed', reportId);
    onStep({ step: 'webhook', detail: `report.completed ${completed.id} received, signature verified` });
    return await getReport(client, reportId);
  } finally {
    await sandbox?.close();
    await new Promise((resolve) => subscriber.server.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}
