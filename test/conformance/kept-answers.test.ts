/**
 * Issue 43 item 3: what the kit keeps of a run's answers, for the checks that read them after the
 * fact, is bounded for the whole run. An implementation answers everything with some 60 KB of gzip
 * that decodes to 60 MiB; the kit, a real process, is measured at its peak (its maxRSS, written as it
 * exits by a module it loads first) against a budget, bodies past what it keeps are dropped and
 * counted in the run record, and the strict checks that needed them are inconclusive, saying why.
 * Before, every answer was kept whole, its text and its parsed copy: the run went past 3 GiB.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import type { ConformanceJson } from '../../src/conformance/report.js';
import { HANG_MS } from '../helpers/hang.js';
import { startServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';

const API_KEY = `svc_test_${'c'.repeat(32)}`;
/** What one answer decodes to. */
const DECODED_BYTES = 60 * 1024 * 1024;
/**
 * The kit's peak memory allowed for the run: its own (about 150 MiB) and the few hostile answers it
 * reads at once (the bytes, the text and the parsed copy of each, up to 64 MiB decoded), some 700 MiB
 * measured. Before, the run kept some 120 MiB for each answer, and went past 3 GiB within 25 requests.
 */
const PEAK_BUDGET_MIB = 1280;

/** A module loaded before svc: at exit, it writes the process's peak resident memory to SVC_TEST_PEAK_FILE. */
const PEAK_MODULE = `import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(process.env.SVC_TEST_PEAK_FILE, String(process.resourceUsage().maxRSS)));
`;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A JSON body padded to DECODED_BYTES, gzipped: some 60 KB on the wire. */
function bomb(body: Record<string, unknown>): Buffer {
  const text = JSON.stringify({ ...body, padding: '' });
  return gzipSync(`${text.slice(0, -2)}${'a'.repeat(DECODED_BYTES - text.length)}"}`, { level: 9 });
}

// A hang guard, never a measure: the Pact verifier reads the same answers for some 80 s on a quiet machine.
describe('what the kit keeps of the answers of a run', () => {
  it(
    'stays within its budget against answers of 60 KB of gzip decoding to 60 MiB: bodies dropped and counted, the strict checks that needed them inconclusive',
    async () => {
      const list = bomb({ data: [], has_more: false });
      const notFound = bomb({ error: { code: 'not_found', message: 'no such thing' } });
      expect(list.length).toBeLessThan(80 * 1024);
      const certificate = await makeCertificate();
      const server = await startServer((request, response) => {
        const listed = request.method === 'GET' && request.path.startsWith('/v1/reports') && !request.path.startsWith('/v1/reports/');
        response.writeHead(listed ? 200 : 404, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-ratelimit-remaining': '500' });
        response.end(listed ? list : notFound);
      }, certificate);
      closers.push(() => server.close());
      const dir = mkdtempSync(join(tmpdir(), 'svc-kept-answers-'));
      const caCert = join(dir, 'ca.pem');
      writeFileSync(caCert, certificate.cert);
      const peakModule = join(dir, 'peak.mjs');
      writeFileSync(peakModule, PEAK_MODULE);
      const peakFile = join(dir, 'peak');
      const junit = join(dir, 'contract.xml');

      // Without the generated checks: they would send more of the same answers, each decoded, for nothing this test looks at.
      const result = await runSvc(
        [
          'contract',
          'verify',
          '--base-url',
          server.url,
          '--ca-cert',
          caCert,
          '--level',
          'strict',
          '--fast',
          '--exclude',
          'generated.*',
          '--json',
          '--junit',
          junit,
        ],
        {
          env: isolatedEnv({
            SVC_API_KEY: API_KEY,
            SVC_TEST_PEAK_FILE: peakFile,
            NODE_OPTIONS: `--import=${pathToFileURL(peakModule).href}`,
          }),
        },
      );

      const peakMiB = Number(readFileSync(peakFile, 'utf8')) / 1024;
      console.log(
        `kept-answers: ${server.requests.length} hostile answers, the kit's peak resident memory ${peakMiB.toFixed(0)} MiB (budget ${PEAK_BUDGET_MIB} MiB)`,
      );
      // A verdict (the implementation answers without a key: the auth checks fail), and a JUnit report.
      expect(result.code, result.stderr.slice(-2000)).toBe(ExitCode.nonConformant);
      // A verdict, from 20 answers or more: kept whole, as text and as parsed JSON, they would take 2.4 GiB.
      expect(server.requests.length).toBeGreaterThanOrEqual(20);
      expect(peakMiB).toBeLessThan(PEAK_BUDGET_MIB);

      const output = JSON.parse(result.stdout) as ConformanceJson;
      const kept = output.run.budgets.kept_answers;
      expect(kept.limit_bytes).toBe(64 * 1024 * 1024);
      expect(kept.bytes).toBeLessThanOrEqual(kept.limit_bytes);
      // Each answer decodes past the budget on its own: none of their bodies is kept.
      expect(kept.bodies_dropped).toBe(server.requests.length);
      const dropped =
        /^the bodies of (\d+) of the \1 answers it reads were not kept: the kit keeps at most 64 MiB of a run's answers \(each counted with its text and its parsed JSON\), and this run's answers came to more \(\d+ bodies dropped\)$/;
      for (const id of ['strict.error-bodies', 'strict.report-resource']) {
        const check = output.checks.find((entry) => entry.id === id);
        expect({ id, status: check?.status }).toEqual({ id, status: 'inconclusive' });
        expect(check?.detail).toMatch(dropped);
      }
      expect(readFileSync(junit, 'utf8')).toContain(`<property name="budgets.kept_answers.bodies_dropped" value="${kept.bodies_dropped}"/>`);
    },
    5 * HANG_MS,
  );
});
