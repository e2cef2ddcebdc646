import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
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
