// Loaded with `--import` into a sandbox built from instrumented sources: when the process exits, it
// writes which mutants the run reached (StrykerJS's coverage counters, `__stryker__.mutantCoverage`)
// to the file named by SVC_MUTANT_COVERAGE.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const coverage = globalThis.__stryker__?.mutantCoverage ?? { static: {}, perTest: {} };
  writeFileSync(process.env.SVC_MUTANT_COVERAGE, JSON.stringify(coverage));
});
