import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from '../../src/api/types.js';
import { eventsOf, type Received, type Receiver, startReceiver } from '../helpers/receiver.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { pdfWithLines, pdfWithRepeatedContent, streamKeywordsPdf } from './fixtures.js';

/** How many requests must be answered while one document is checked. */
const ANSWERED_DURING_CHECK = 50;

async function upload(sandbox: InProcessSandbox, content: Uint8Array, filename = 'statement.pdf'): Promise<Document> {
  const form = new FormData();
  form.set('type', 'bank_statement');
  form.set('file', new Blob([content], { type: 'application/pdf' }), filename);
  const response = await sandbox.fetch('/v1/documents', { method: 'POST', body: form });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as Document;
}

async function getDocument(sandbox: InProcessSandbox, id: string): Promise<Document> {
  const response = await sandbox.fetch(`/v1/documents/${id}`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Document;
}

/** Reads the document back to back until its check is over: every read is a request answered meanwhile. */
async function readUntilChecked(sandbox: InProcessSandbox, id: string): Promise<{ document: Document; answeredWhileChecking: number }> {
  for (let answered = 0; ; answered++) {
    const document = await getDocument(sandbox, id);
    if (document.status !== 'processing') return { document, answeredWhileChecking: answered };
  }
}

describe('uploads that would stall the sandbox (default budgets)', () => {
  let sandbox: InProcessSandbox;
  let subscriber: Receiver;
  beforeAll(async () => {
    subscriber = await startReceiver();
    sandbox = await startSandboxInProcess({ plan: 'enterprise', analysisDelayMs: 0, webhookUrls: [subscriber.url] });
  });
  afterAll(async () => {
    await sandbox.stop();
    await subscriber.close();
  });

  it('answers requests while the crafted 10 MiB PDF is checked, then rejects it as unreadable', async () => {
    const { id } = await upload(sandbox, streamKeywordsPdf());
    const { document } = await readUntilChecked(sandbox, id);
    expect(document).toMatchObject({
      status: 'rejected',
      rejection: { code: 'unreadable', message: 'the PDF could not be opened; it may be damaged or password-protected' },
    });
  });

  it('answers requests while a decompression bomb is checked, and rejects it with document.rejected once it passes the memory budget', async () => {
    const { id } = await upload(sandbox, await pdfWithRepeatedContent(' ', 1024), 'bomb.pdf');
    const { document, answeredWhileChecking } = await readUntilChecked(sandbox, id);
    expect(answeredWhileChecking).toBeGreaterThanOrEqual(ANSWERED_DURING_CHECK);
    const rejection = {
      code: 'check_budget_exceeded',
      message: "checking the document needed more than the sandbox's budget of 256 MiB of memory; upload a smaller or simpler file",
    };
    expect(document).toMatchObject({ status: 'rejected', rejection });
    const announced = (received: Received[]) => eventsOf(received).find((event) => event.type === 'document.rejected' && event.data.id === id);
    await subscriber.waitFor((received) => announced(received) !== undefined);
    expect(announced(subscriber.received)?.data).toEqual({ id, type: 'bank_statement', status: 'rejected', reason: rejection });
  });

  it('checks the next document as before once a check was stopped', async () => {
    const { id } = await upload(sandbox, await pdfWithLines(['Kontoauszug', 'Saldo 12.000 EUR']));
    expect((await readUntilChecked(sandbox, id)).document).toMatchObject({ status: 'analysed', content_type: 'application/pdf', red_flags: [] });
  });
});

describe('a document check past its time budget', () => {
  let sandbox: InProcessSandbox;
  beforeAll(async () => {
    sandbox = await startSandboxInProcess({ plan: 'enterprise', analysisDelayMs: 0, documentCheckBudget: { timeMs: 3000, memoryMb: 1024 } });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it('does not hold back the rejection of a file its first bytes condemn', async () => {
    const slow = await upload(sandbox, await pdfWithRepeatedContent('q Q\n', 200), 'slow.pdf');
    const executable = await upload(sandbox, new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03, ...new Array<number>(500).fill(0)]), 'passport.exe');
    const { document } = await readUntilChecked(sandbox, executable.id);
    expect(document).toMatchObject({
      status: 'rejected',
      rejection: { code: 'unsupported_format', message: 'the file is a Windows executable; only PDF, JPEG, PNG and UTF-8 text are accepted' },
    });
    // The PDF takes 3 s of processor time before its check stops: the executable did not wait for it.
    expect((await getDocument(sandbox, slow.id)).status).toBe('processing');
    await readUntilChecked(sandbox, slow.id);
  });

  it('is stopped and its document rejected, while other requests are answered', async () => {
    // 200 MiB of save and restore operators: little memory, much time.
    const { id } = await upload(sandbox, await pdfWithRepeatedContent('q Q\n', 200), 'slow.pdf');
    const { document, answeredWhileChecking } = await readUntilChecked(sandbox, id);
    expect(answeredWhileChecking).toBeGreaterThanOrEqual(ANSWERED_DURING_CHECK);
    expect(document).toMatchObject({
      status: 'rejected',
      rejection: {
        code: 'check_budget_exceeded',
        message: "checking the document needed more than the sandbox's budget of 3 s of processor time; upload a smaller or simpler file",
      },
    });
  });
});
