import { readFileSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANG_MS } from '../helpers/hang.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';

// Deadlines short enough for a test; the defaults are for real use.
const DEADLINES = { handshakeMs: 500, headersMs: 1000, requestMs: 2000, keepAliveMs: 500 };
const IDLE_CONNECTIONS = 500;

let sandbox: InProcessSandbox;
let ca: string;
beforeAll(async () => {
  sandbox = await startSandboxInProcess({ plan: 'enterprise', connectionDeadlines: DEADLINES });
  ca = readFileSync(sandbox.caCert, 'utf8');
});
afterAll(async () => {
  await sandbox.stop();
});

/** What the sandbox sent on the connection until it closed it. */
function untilClosed(socket: Socket): Promise<string> {
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}

interface Target {
  port: number;
  ca: string;
}

function tcp(target: Target = { port: sandbox.port, ca }): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(target.port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A connection whose TLS handshake is done, on which nothing has been sent yet. */
function tls(target: Target = { port: sandbox.port, ca }): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connectTls({ host: '127.0.0.1', port: target.port, ca: target.ca, servername: 'localhost' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Writes one byte of `text` every 100 ms, never the end, for as long as the connection is open. */
function trickle(socket: Socket, text: string): void {
  let next = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || next >= text.length) return clearInterval(timer);
    socket.write(text.charAt(next++));
  }, 100);
  socket.once('close', () => clearInterval(timer));
}

describe('slow and idle connections are closed on a deadline', () => {
  it('a connection that sends nothing', async () => {
    expect(await untilClosed(await tcp())).toBe('');
  });

  it('a connection that stops in the middle of its TLS handshake', async () => {
    const socket = await tcp();
    const closed = untilClosed(socket);
    socket.write(Buffer.from([0x16, 0x03, 0x01]));
    expect(await closed).toBe('');
  });

  it('a TLS connection that sends no request, answered 408', async () => {
    expect(await untilClosed(await tls())).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a slowloris sending its headers a byte at a time, answered 408 while still sending them', async () => {
    const socket = await tls();
    const closed = untilClosed(socket);
    trickle(socket, `GET /v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${sandbox.keys.test}\r\nX-Padding: ${'a'.repeat(10_000)}`);
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a request whose body comes a byte at a time, answered 408 while still sending it', async () => {
    const socket = await tls();
    const closed = untilClosed(socket);
    const body = JSON.stringify({ given_names: 'Anna', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE', occupation: 'x'.repeat(1000) });
    socket.write(
      `POST /v1/applicants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${sandbox.keys.test}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    trickle(socket, body);
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a keep-alive connection left idle after its answer', async () => {
    const socket = await tls();
    const closed = untilClosed(socket);
    socket.write(`GET /v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${sandbox.keys.test}\r\n\r\n`);
    const received = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toMatch(/\r\nConnection: keep-alive\r\n/i);
  });
});

describe(`${IDLE_CONNECTIONS} idle connections`, () => {
  // Deadlines long enough for all of them to be open while the request is answered, however slowly a
  // loaded machine opens 500 connections (5 s did not suffice at a load average of 20).
  let patient: InProcessSandbox;
  beforeAll(async () => {
    const deadline = HANG_MS / 2;
    patient = await startSandboxInProcess({ plan: 'enterprise', connectionDeadlines: { handshakeMs: deadline, headersMs: deadline, requestMs: deadline } });
  });
  afterAll(async () => {
    await patient.stop();
  });

  it(
    'do not stop the sandbox from answering, and are closed',
    async () => {
      const target = { port: patient.port, ca: readFileSync(patient.caCert, 'utf8') };
      const idle = await Promise.all(Array.from({ length: IDLE_CONNECTIONS }, (_, index) => (index % 2 === 0 ? tcp(target) : tls(target))));
      const closed = Promise.all(idle.map(untilClosed));
      const response = await patient.fetch('/v1/reports');
      expect(response.status).toBe(200);
      expect(((await response.json()) as { object: string }).object).toBe('list');
      expect(idle.filter((socket) => socket.destroyed)).toHaveLength(0);
      await closed;
    },
    4 * HANG_MS,
  );
});
