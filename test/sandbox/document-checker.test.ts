import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { DocumentChecker } from '../../src/sandbox/document-checker.js';
import { SandboxStore } from '../../src/sandbox/database.js';
import { pdfWithLines, pdfWithRepeatedContent, png } from './fixtures.js';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-checker-'));
const store = new SandboxStore(dataDir);
afterAll(() => store.close());

/** A document uploaded and waiting for its check, as the upload route leaves it. */
function stored(content: Uint8Array): string {
  const id = newId('doc');
  store.insertDocument(
    'wks_test',
    {
      id,
      object: 'document',
      type: 'bank_statement',
      status: 'processing',
      red_flags: [],
      applicant_id: null,
      filename: 'statement.pdf',
      size_bytes: content.length,
      content_type: null,
      rejection: null,
      extracted: null,
      created_at: '2026-03-01T00:00:00Z',
    },
    content,
  );
  return id;
}

// These run the worker from the TypeScript sources; the sandbox's own tests run it from dist/.
describe('DocumentChecker', () => {
  it('checks a stored document in a worker thread and hands back what the check found', async () => {
    const checker = new DocumentChecker(dataDir, { timeMs: 20_000, memoryMb: 256 });
    const check = await checker.check(stored(await pdfWithLines(['Kontoauszug', 'Saldo 12.000 EUR'])));
    expect(check).toMatchObject({ ok: true, contentType: 'application/pdf' });
    expect(check.ok && check.text).toContain('Saldo 12.000 EUR');
  });

  it('stops a check at its time budget, rejects the document, then checks the next one', async () => {
    const checker = new DocumentChecker(dataDir, { timeMs: 2_000, memoryMb: 1024 });
    const slow = checker.check(stored(await pdfWithRepeatedContent('q Q\n', 200)));
    const next = checker.check(stored(png()));
    expect(await slow).toEqual({
      ok: false,
      rejection: {
        code: 'check_budget_exceeded',
        message: "checking the document needed more than the sandbox's budget of 2 s of processor time; upload a smaller or simpler file",
      },
    });
    expect(await next).toEqual({ ok: true, contentType: 'image/png', text: undefined });
  });

  it('on stop, ends the check under way and those waiting without running them', async () => {
    const checker = new DocumentChecker(dataDir, { timeMs: 600_000, memoryMb: 1024 });
    const running = checker.check(stored(await pdfWithRepeatedContent('q Q\n', 200)));
    const waiting = checker.check(stored(png()));
    await new Promise(setImmediate); // the first check's worker is started
    await checker.stop();
    expect(await running).toMatchObject({ ok: false, rejection: { code: 'unreadable' } });
    expect(await waiting).toEqual({ ok: false, rejection: { code: 'unreadable', message: 'the document could not be checked: the sandbox is stopping' } });
  });
});
