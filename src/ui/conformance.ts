import { partsOf, partTitle, verdictOf } from '../conformance/report.js';
import type { CheckResult, RunResult } from '../conformance/run.js';
import type { Output } from './io.js';
import { hangingLine, renderTable } from './table.js';
import { terminalText } from './terminal-text.js';

const MARK: Record<CheckResult['status'], string> = { passed: 'pass', failed: 'FAIL', skipped: 'skip', inconclusive: 'INCONCLUSIVE' };
const MARK_COLOUR: Record<string, number> = { pass: 32, FAIL: 31, skip: 33, INCONCLUSIVE: 35 };

/** What the result column shows; a detail quotes what the implementation under test answered, so it is escaped. */
function resultText(check: CheckResult): string {
  return check.status === 'passed' ? check.title : terminalText(check.detail);
}

/** What the event verdicts rest on: deliveries authenticated with the webhook secret or not, and the noise set aside. */
function receiverLine(receiver: NonNullable<RunResult['run']['webhook_receiver']>): string {
  const count = (value: number) => value.toLocaleString('en');
  const reasons = Object.entries(receiver.noise_reasons)
    .map(([reason, value]) => `${reason} ${count(value)}`)
    .join(', ');
  const noise = receiver.noise > 0 ? `; ${count(receiver.noise)} set aside as noise, never evidence (${reasons})` : '';
  if (receiver.authenticated) return `Webhook deliveries: ${count(receiver.deliveries)} authenticated with --webhook-secret${noise}`;
  return `Webhook deliveries: ${count(receiver.deliveries)} unauthenticated: without --webhook-secret the kit cannot tell the implementation's deliveries from anyone else's, so its event verdicts are unauthenticated${noise}`;
}

/**
 * For people: one table per part of the specification, each failure with its reason (expected,
 * got, and the request that showed it), then the coverage by clause, what the event verdicts rest
 * on, and the totals.
 */
export function renderForPeople(result: RunResult, out: Output): string {
  const blocks: string[] = [];
  const color = out.color;
  const paint = (code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const markColumn = { title: '', style: (mark: string) => paint(MARK_COLOUR[mark] ?? 0, mark) };
  for (const part of partsOf(result)) {
    const checks = result.checks.filter((check) => check.spec === part);
    if (!out.isTTY) {
      blocks.push([partTitle(part), ...checks.map((check) => [MARK[check.status], check.id, check.level, resultText(check)].join('\t'))].join('\n'));
      continue;
    }
    const rows = checks.map((check) => [MARK[check.status], check.id, check.level, resultText(check)]);
    blocks.push(`${partTitle(part)}\n${renderTable([markColumn, 'check', { title: 'level', leaveOut: 1 }, { title: 'result', freeText: true }], rows, out)}`);
  }
  const coverageLines = result.run.coverage.map((part) =>
    hangingLine(
      `  part ${part.part} `,
      `${part.title}: ${part.with_checks}/${part.stated_rules} stated rules have checks at level ${result.level}, ${part.checked} checked in this run`,
      out,
    ),
  );
  blocks.push(`Coverage by clause\n${coverageLines.join('\n')}`);
  if (result.run.webhook_receiver) blocks.push(hangingLine('', receiverLine(result.run.webhook_receiver), out));
  const { generated } = result.run;
  if (generated)
    blocks.push(
      hangingLine(
        '',
        `Generated checks: seed ${generated.seed} (--seed ${generated.seed} generates the same inputs and sequences again), ${generated.requests.toLocaleString('en')} requests of the ${generated.budget.toLocaleString('en')} allowed`,
        out,
      ),
    );
  const verdict = verdictOf(result);
  const painted = paint({ conforms: 32, 'does not conform': 31, inconclusive: 35 }[verdict], verdict === 'inconclusive' ? 'is not judged in full' : verdict);
  const counts = `${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped${result.inconclusive > 0 ? `, ${result.inconclusive} inconclusive (the kit's own setup could not be done; see each for what to supply)` : ''}`;
  blocks.push(
    hangingLine(
      '',
      `${result.run.base_url} ${painted} at level ${result.level}: ${counts} (${(result.run.duration_ms / 1000).toFixed(1)} s, kit ${result.run.kit_version}, openapi.yaml ${result.run.openapi_sha256.slice(0, 12)})`,
      out,
    ),
  );
  return blocks.join('\n\n');
}
