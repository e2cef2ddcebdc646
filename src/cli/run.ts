// The entry bin/run.js loads: oclif, bundled with the commands so that both share one @oclif/core.
// Its index is loaded here, while bin/run.js holds oclif's engine check off, rather than by the
// first command module, after it.
import { Errors, flush, type Interfaces, run, settings } from '@oclif/core';

// svc runs its built commands only: oclif would otherwise look for their TypeScript sources whenever
// NODE_ENV is test or development and a TypeScript runner happens to be installed.
settings.enableAutoTranspile = false;

/**
 * Runs svc as oclif's own execute does, except for an error that no command of svc's printed (an
 * unknown command, a plugin command's, one raised before a command exists): oclif would print it
 * in its own form, which under --json is its whole configuration, environment and keys included.
 */
export async function execute(loadOptions: Interfaces.LoadOptions): Promise<void> {
  const argv = process.argv.slice(2);
  try {
    await run(argv, loadOptions);
    await flush();
  } catch (error) {
    // A command of svc's printed its error and asks for its exit code.
    if (error instanceof Errors.ExitError) process.exit(error.oclif.exit);
    const [{ asSvcError, writeError }, { environmentSecrets }, { processIo }] = await Promise.all([
      import('./error-output.js'),
      import('../config/credentials.js'),
      import('../ui/io.js'),
    ]);
    const failure = asSvcError(error as Error);
    const end = argv.indexOf('--');
    const json = argv.slice(0, end < 0 ? undefined : end).includes('--json');
    const io = processIo();
    const logJson = json ? (value: unknown) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`) : undefined;
    writeError(failure, { logJson, stderr: io.stderr }, environmentSecrets(io.env));
    process.exit(failure.exitCode);
  }
}
