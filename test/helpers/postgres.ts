import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for a test file: initialised in a temporary folder, listening on a Unix
 * socket only, by an unprivileged user (initdb refuses root: as root the server runs as nobody), with
 * password authentication, so that a connection string carries a password as in production.
 * scripts/test-prerequisites.js makes sure the binaries are there.
 */
export interface TestPostgres {
  /** A connection string of the cluster's superuser, with its password, reaching it by its socket; `schema` adds ?schema=. */
  url(schema?: string): string;
  password: string;
  socketDirectory: string;
  /**
   * Stops the server (fast shutdown: sessions are ended, transactions under way rolled back) and starts it again on the same data, without blocking the event loop;
   * `whileDown` runs between the two.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  stop(): void;
  start(): void;
  /** Runs SQL as the superuser with psql; its output, unaligned. */
  psql(sql: string): string;
  /** A psql session kept open, to hold a lock or a transaction while the test goes on. */
  session(): PsqlSession;
  /** Stops the server and removes its folder. */
  destroy(): void;
}

interface PsqlSession {
  /** Runs SQL in the session; resolves once psql has run it. */
  run(sql: string): Promise<void>;
  /** Ends the session (a transaction left open is rolled back). */
  close(): Promise<void>;
}

/** The folder of PostgreSQL's server binaries: SVC_POSTGRES_BIN, else the newest of Debian's /usr/lib/postgresql/N/bin. */
function postgresBinaries(): string | undefined {
  if (process.env.SVC_POSTGRES_BIN) return process.env.SVC_POSTGRES_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

const NOBODY = 65_534;

export function startPostgres(options: { fsync?: boolean } = {}): TestPostgres {
  const bin = postgresBinaries();
  if (!bin) throw new Error('PostgreSQL server binaries not found: install postgresql (apt-get install postgresql), or set SVC_POSTGRES_BIN');
  const asRoot = process.getuid?.() === 0;
  const folder = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  chmodSync(folder, 0o700);
  if (asRoot) chownSync(folder, NOBODY, NOBODY);
  const data = join(folder, 'data');
  const password = `pg_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const passwordFile = join(folder, 'password');
  writeFileSync(passwordFile, password, { mode: 0o600 });
  if (asRoot) chownSync(passwordFile, NOBODY, NOBODY);
  const commandOf = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ['setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', join(bin, program), ...args]] : [join(bin, program), args];
  const runOptions = { encoding: 'utf8' as const, cwd: folder, env: { ...process.env, LC_ALL: 'C' } };
  const run = (program: string, args: string[]) => {
    const [command, all] = commandOf(program, args);
    const result = spawnSync(command, all, runOptions);
    if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  run('initdb', ['-D', data, '-U', 'svc', `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-sync']);
  const settings = [
    "listen_addresses=''",
    `unix_socket_directories='${folder}'`,
    'unix_socket_permissions=0777',
    'max_connections=100',
    `fsync=${options.fsync ? 'on' : 'off'}`,
  ];
  const serverOptions = settings.map((setting) => `-c ${setting}`).join(' ');
  const startArgs = ['-D', data, '-l', join(folder, 'log'), '-o', serverOptions, '-w', '-t', '60', 'start'];
  const stopArgs = ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop'];
  const start = () => run('pg_ctl', startArgs);
  const stop = () => run('pg_ctl', stopArgs);
  start();
  return {
    url: (schema) => `postgres://svc:${password}@localhost/postgres?host=${encodeURIComponent(folder)}${schema ? `&schema=${schema}` : ''}`,
    password,
    socketDirectory: folder,
    async restart(whileDown) {
      await promisify(execFile)(...commandOf('pg_ctl', stopArgs), runOptions);
      await whileDown?.();
      await promisify(execFile)(...commandOf('pg_ctl', startArgs), runOptions);
    },
    stop,
    start,
    psql: (sql) =>
      execFileSync(join(bin, 'psql'), ['-h', folder, '-U', 'svc', '-d', 'postgres', '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
        encoding: 'utf8',
        env: { ...process.env, PGPASSWORD: password },
      }).trim(),
    session() {
      const child = spawn(join(bin, 'psql'), ['-h', folder, '-U', 'svc', '-d', 'postgres', '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1'], {
        env: { ...process.env, PGPASSWORD: password },
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      let runs = 0;
      return {
        async run(sql) {
          const done = `-- done ${++runs}`;
          child.stdin.write(`${sql}\n\\echo '${done}'\n`);
          while (!output.includes(done)) {
            if (child.exitCode !== null) throw new Error(`psql exited ${child.exitCode}: ${output}`);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        },
        async close() {
          child.stdin.end();
          await exited;
        },
      };
    },
    destroy() {
      try {
        stop();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}
