import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { HANG_MS } from './hang.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides each answer; 200 unless changed. */
  answer: (delivery: Received, response: ServerResponse) => void;
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A webhook subscriber on 127.0.0.1 that records every delivery as raw bytes. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: (_delivery, response) => response.writeHead(200).end(),
    async waitFor(predicate, timeoutMs = HANG_MS) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`timed out; received ${receiver.received.map((item) => item.body).join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
      receiver.received.push(delivery);
      receiver.answer(delivery, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

export function eventsOf(received: Received[]): Array<{ id: string; type: string; data: Record<string, unknown> }> {
  return received.map((delivery) => JSON.parse(delivery.body));
}

/** The application a threaded recorder stands for: it answers 200 at once and posts each body's event id. */
const RECORDER_THREAD = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(200).end();
    let id = '';
    try { id = String(JSON.parse(Buffer.concat(chunks).toString('utf8')).id); } catch {}
    parentPort.postMessage({ id });
  });
});
parentPort.on('message', (message) => message === 'flush' && parentPort.postMessage({ flushed: true }));
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

export interface ThreadedRecorder {
  url: string;
  /** The event ids received, in order, once every delivery answered so far is counted. */
  ids(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * An application that records the event id of each delivery from a thread of its own: it answers
 * however far behind a busy test's own thread falls (a sender's answer timeout never runs out on it).
 */
export async function startThreadedRecorder(): Promise<ThreadedRecorder> {
  const thread = new Worker(RECORDER_THREAD, { eval: true });
  const ids: string[] = [];
  const flushes: Array<() => void> = [];
  thread.on('message', (message: { id?: string; port?: number; flushed?: boolean }) => {
    if (message.id !== undefined) ids.push(message.id);
    if (message.flushed) flushes.shift()?.();
  });
  const port = await new Promise<number>((resolve, reject) => {
    thread.once('error', reject);
    thread.on('message', (message: { port?: number }) => message.port !== undefined && resolve(message.port));
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    async ids() {
      // Messages arrive in order: past the flush's answer, every id posted before it is counted.
      await new Promise<void>((resolve) => {
        flushes.push(resolve);
        thread.postMessage('flush');
      });
      return [...ids];
    },
    close: async () => void (await thread.terminate()),
  };
}
