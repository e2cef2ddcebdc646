// What the start-up benchmarks ask svc reports get for: the embedded sandbox on 127.0.0.1, started in
// its own process, holding one finished report, and the sandbox's test key to read it with.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Starts the sandbox with its data in `dataDir`; `stop()` ends it. */
export async function sandboxWithReport(bin, env, dataDir) {
  const sandbox = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', '--quiet', '--plan', 'enterprise', '--data-dir', dataDir], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    sandbox.kill('SIGTERM');
    if (sandbox.exitCode === null) await new Promise((resolve) => sandbox.once('exit', resolve));
  };
  try {
    const ready = await new Promise((resolve, reject) => {
      createInterface({ input: sandbox.stdout }).once('line', (line) => resolve(JSON.parse(line)));
      sandbox.once('exit', (code) => reject(new Error(`the sandbox exited ${code}`)));
    });
    const svcJson = (args) => JSON.parse(spawnSync(process.execPath, [bin, ...args, '--json'], { env, encoding: 'utf8' }).stdout);
    const applicant = svcJson([
      'applicants',
      'create',
      '--profile',
      ready.profile,
      '--given-names',
      'Anna',
      '--surname',
      'Eriksson',
      '--date-of-birth',
      '1984-08-12',
      '--nationality',
      'SE',
    ]);
    const report = svcJson([
      'reports',
      'create',
      '--profile',
      ready.profile,
      '--applicant',
      applicant.id,
      '--destination',
      'DE',
      '--visa-type',
      'tourist',
      '--purpose',
      'holiday',
      '--wait',
    ]);
    const key = svcJson(['sandbox', 'keys', '--reveal', '--data-dir', dataDir]).find((item) => item.role === 'test').secret;
    return { ready, report, key, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
