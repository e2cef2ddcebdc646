import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (measured with `--reporter=json`, docs/development.md).
 * Without an earlier run's timings (a clean clone, CI) vitest starts the largest files first, the binary
 * tier's before the in-process tier's; these are small files that wait on slow work (packing, a matrix,
 * a rate-limit window, connection deadlines): started last, they alone made the run's last minutes. A
 * file not listed only starts later.
 */
const LONGEST_FIRST = [
  'test/ci/gitlab-job.test.ts',
  'test/conformance/accuracy-1.test.ts',
  'test/conformance/accuracy-2.test.ts',
  'test/conformance/accuracy-4.test.ts',
  'test/packaging/self-contained.test.ts',
  'test/conformance/accuracy-3.test.ts',
  'test/conformance/kept-answers.test.ts',
  'test/conformance/sandbox.test.ts',
  'test/ci/github-action.test.ts',
  'test/conformance/shared-workspace.test.ts',
  'test/e2e/kit-width.test.ts',
  'test/e2e/examples.test.ts',
  'test/conformance/receiver-evidence.test.ts',
  'test/conformance/shared-subscription.test.ts',
  'test/sandbox/slow-connections.test.ts',
  'test/sandbox/hostile-uploads.test.ts',
  'test/commands/webhooks/listen.test.ts',
  'test/commands/contract/verify.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const missing = LONGEST_FIRST.filter((file) => !existsSync(`${root}/${file}`));
    if (missing.length) throw new Error(`test/setup/longest-first.ts lists files that are not there: ${missing.join(', ')}`);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(relative(root, spec.moduleId));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    return (await super.sort(files))
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
