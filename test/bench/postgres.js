// A throwaway PostgreSQL cluster for the benchmarks, as test/helpers/postgres.ts starts one for the
// tests: a temporary folder, a Unix socket only, an unprivileged user (nobody, when run as root), a
// password; fsync on, as a production database has it.
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function binaries() {
  if (process.env.SVC_POSTGRES_BIN) return process.env.SVC_POSTGRES_BIN;
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) && readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error('PostgreSQL server binaries not found: install postgresql, or set SVC_POSTGRES_BIN');
  return join(root, version, 'bin');
}

export function startCluster() {
  const bin = binaries();
  const asRoot = process.getuid?.() === 0;
  const folder = mkdtempSync(join(tmpdir(), 'svc-bench-pg-'));
  const password = `bench_${Math.random().toString(36).slice(2)}`;
  writeFileSync(join(folder, 'password'), password, { mode: 0o600 });
  if (asRoot) for (const path of [folder, join(folder, 'password')]) chownSync(path, 65534, 65534);
  const run = (program, args) => {
    const [command, all] = asRoot
      ? ['setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', join(bin, program), ...args]]
      : [join(bin, program), args];
    const result = spawnSync(command, all, { encoding: 'utf8', cwd: folder, maxBuffer: 1 << 28, env: { ...process.env, LC_ALL: 'C', PGPASSWORD: password } });
    if (result.status !== 0) throw new Error(`${program} failed: ${result.stderr}`);
    return result.stdout;
  };
  const data = join(folder, 'data');
  run('initdb', ['-D', data, '-U', 'svc', `--pwfile=${join(folder, 'password')}`, '--auth=scram-sha-256', '-E', 'UTF8']);
  const options = `-c listen_addresses='' -c unix_socket_directories='${folder}' -c max_connections=100`;
  run('pg_ctl', ['-D', data, '-l', join(folder, 'log'), '-o', options, '-w', 'start']);
  return {
    url: (schema) => `postgres://svc:${password}@localhost/postgres?host=${encodeURIComponent(folder)}&schema=${schema}`,
    psql: (sql) => run('psql', ['-h', folder, '-U', 'svc', '-d', 'postgres', '-X', '-A', '-t', '-c', sql]),
    destroy() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}
