/**
 * What the contract kit lends to others while it runs, through the real binary against the real
 * sandbox: a listener on the target's plain-HTTP port, another process on the machine that finds
 * the Pact forwarder, the Pact verifier's own process and the CI's PACT_* variables, the network
 * the webhook receiver listens on.
 */
import { request as plainRequest } from 'node:http';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACT_KEYS } from '../../src/conformance/contract-terms.js';
import { childrenOf, environmentOf, listeningSockets, runsParentProgram } from '../helpers/processes.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort, startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

async function sandbox(): Promise<RunningSandbox> {
  const started = await startSandboxProcess(['--quiet']);
  closers.push(() => started.stop());
  return started;
}

function kitEnv(target: RunningSandbox, extra: Record<string, string> = {}): Record<string, string> {
  return isolatedEnv({ SVC_API_KEY: target.keys.test, SVC_ADMIN_KEY: target.keys.admin, ...extra });
}

/**
 * A front on one port, as a load balancer that passes TLS on to the sandbox and keeps a log of
 * whatever arrives in plain HTTP: the request heads it saw.
 */
async function frontOf(target: RunningSandbox): Promise<{ port: number; plainHeads: string[] }> {
  const plainHeads: string[] = [];
  const sockets = new Set<Socket>();
  const server: NetServer = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      if (first[0] === 0x16) {
        const upstream = connect(target.port, '127.0.0.1', () => {
          upstream.write(first);
          socket.pipe(upstream).pipe(socket);
        });
        upstream.on('error', () => socket.destroy());
        return;
      }
      let head = first.toString('latin1');
      const answer = () => {
        plainHeads.push(head.slice(0, head.indexOf('\r\n\r\n')));
        socket.end('HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\ncontent-length: 21\r\n\r\nThis port speaks TLS.');
      };
      if (head.includes('\r\n\r\n')) return answer();
      socket.on('data', (more: Buffer) => {
        head += more.toString('latin1');
        if (head.includes('\r\n\r\n')) answer();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A passed-on connection can be left half-open when the sandbox closed its side first (the pipe stops reading): close them all.
  closers.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, plainHeads };
}

/** A request another user of the machine could make to a port it found. */
function attack(port: number, method: string, path: string, authorization: string, body?: unknown): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = plainRequest(
      { host: '127.0.0.1', port, method, path, headers: { authorization, 'content-type': 'application/json' }, timeout: 5_000 },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    outgoing.on('error', () => resolve(0));
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Every 10 ms while `svc` runs: what it listens on, and the environments of its children. */
function watch(
  onPort: (port: number, address: string) => void,
  onChild: (environment: Record<string, string>) => void,
): { onSpawn: (pid: number) => void; stop: () => void } {
  const seenPorts = new Set<number>();
  const seenChildren = new Set<number>();
  let pid: number | undefined;
  const timer = setInterval(() => {
    if (pid === undefined) return;
    try {
      for (const socket of listeningSockets(pid)) {
        if (seenPorts.has(socket.port)) continue;
        seenPorts.add(socket.port);
        onPort(socket.port, socket.address);
      }
      for (const child of childrenOf(pid)) {
        if (seenChildren.has(child) || runsParentProgram(child, pid)) continue;
        seenChildren.add(child);
        onChild(environmentOf(child));
      }
    } catch {
      // The process ended between two reads.
    }
  }, 10);
  return { onSpawn: (spawned) => void (pid = spawned), stop: () => clearInterval(timer) };
}

describe('the contract kit lends no secret', () => {
  it("shows a listener on the target's plain-HTTP port no key that works", async () => {
    const target = await sandbox();
    const front = await frontOf(target);
    const result = await runSvc(
      ['contract', 'verify', '--base-url', `https://127.0.0.1:${front.port}`, '--ca-cert', target.caCert, '--only', 'transport.https-only', '--json'],
      { env: kitEnv(target) },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).checks[0]).toMatchObject({ id: 'transport.https-only', status: 'passed' });
    // The probe did reach the plain listener, so what it sent there is known.
    expect(front.plainHeads).toHaveLength(1);
    const authorization = /^authorization: (.*)$/im.exec(front.plainHeads[0]!)?.[1];
    for (const key of Object.values(target.keys)) expect(front.plainHeads[0]).not.toContain(key);
    if (authorization) {
      const tried = await target.fetch('/v1/reports', { headers: { authorization } });
      expect(tried.status).toBe(401);
    }
  });

  it('lends the admin key to no other process that finds the Pact forwarder', async () => {
    const target = await sandbox();
    const attempts: Array<Promise<number>> = [];
    const watcher = watch(
      (port) => {
        attempts.push(attack(port, 'POST', '/v1/keys', `Bearer ${CONTRACT_KEYS.admin}`, { name: 'made through the forwarder', environment: 'live' }));
        attempts.push(attack(port, 'GET', '/v1/reports', `Bearer ${CONTRACT_KEYS.api}`));
      },
      () => undefined,
    );
    const result = await runSvc(
      ['contract', 'verify', '--base-url', target.url, '--ca-cert', target.caCert, '--only', 'applicants.create,reports.get,keys.revoke', '--json'],
      { env: kitEnv(target), onSpawn: watcher.onSpawn },
    );
    watcher.stop();
    expect(result.code, result.stderr).toBe(0);
    // The forwarder was found and tried while it ran; it forwarded nothing of it.
    const statuses = await Promise.all(attempts);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((status) => status === 403 || status === 0)).toBe(true);
    expect(statuses).toContain(403);
    const keys = (await (await target.fetch('/v1/keys?limit=100', { key: target.keys.admin })).json()) as { data: Array<{ name: string | null }> };
    expect(keys.data.map((key) => key.name)).not.toContain('made through the forwarder');
  });

  it("gives the Pact verifier's process no key and none of the CI's PACT_* variables", async () => {
    const target = await sandbox();
    const broker: TestServer = await startServer((_request, response) => response.writeHead(404).end());
    closers.push(() => broker.close());
    const environments: Array<Record<string, string>> = [];
    const watcher = watch(
      () => undefined,
      (environment) => environments.push(environment),
    );
    const result = await runSvc(
      ['contract', 'verify', '--base-url', target.url, '--ca-cert', target.caCert, '--only', 'applicants.create,reports.get', '--json'],
      {
        env: kitEnv(target, {
          PACT_BROKER_BASE_URL: broker.url,
          PACT_BROKER_TOKEN: 'the organisation broker token',
          PACT_DESCRIPTION: 'an interaction of the organisation',
          PACT_PROVIDER_STATE: 'a state of the organisation',
        }),
        onSpawn: watcher.onSpawn,
      },
    );
    watcher.stop();
    expect(result.code, result.stderr).toBe(0);
    // Not filtered by PACT_DESCRIPTION / PACT_PROVIDER_STATE: both interactions were verified.
    expect(JSON.parse(result.stdout).checks.map((check: { status: string }) => check.status)).toEqual(['passed', 'passed']);
    // The organisation's broker was never asked for its pacts.
    expect(broker.requests).toEqual([]);
    expect(environments.length).toBeGreaterThanOrEqual(1);
    for (const environment of environments) {
      expect(Object.keys(environment).filter((name) => name.startsWith('SVC_') || (name.startsWith('PACT_') && name !== 'PACT_DO_NOT_TRACK'))).toEqual([]);
      for (const key of Object.values(target.keys)) expect(Object.values(environment).join('\n')).not.toContain(key);
    }
  });
});

describe("the contract kit's webhook receiver", () => {
  async function receiverAddress(args: string[], target: RunningSandbox): Promise<{ addresses: string[]; stderr: string }> {
    const port = await freePort();
    const addresses: string[] = [];
    const watcher = watch(
      (listening, address) => listening === port && addresses.push(address),
      () => undefined,
    );
    // No delivery comes (the sandbox has no webhook URL): the run waits out a short --event-timeout for its report's
    // report.completed (events.envelope alone waits for nothing, and the receiver could close before the watcher saw it).
    const result = await runSvc(
      [
        'contract',
        'verify',
        '--base-url',
        target.url,
        '--ca-cert',
        target.caCert,
        '--only',
        'events.report-completed-fields',
        '--webhook-port',
        String(port),
        '--event-timeout',
        '3s',
        '--json',
        ...args,
      ],
      { env: kitEnv(target), onSpawn: watcher.onSpawn },
    );
    watcher.stop();
    return { addresses, stderr: result.stderr };
  }

  it('listens on loopback by default, and on the address of --webhook-host, with a warning for plain HTTP there', async () => {
    const target = await sandbox();
    const byDefault = await receiverAddress([], target);
    expect(byDefault.addresses, byDefault.stderr).toEqual(['127.0.0.1']);
    const everywhere = await receiverAddress(['--webhook-host', '0.0.0.0'], target);
    expect(everywhere.addresses, everywhere.stderr).toEqual(['0.0.0.0']);
    expect(everywhere.stderr).toContain('the receiver on 0.0.0.0 takes deliveries in plain HTTP, readable on the network: --webhook-tls makes it HTTPS');
    expect(byDefault.stderr).not.toContain('readable on the network');
  });
});
