import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { freePort } from './helpers/server.js';

it("gives ports outside the kernel's ephemeral range, free, and never the same one twice", async () => {
  const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const ports: number[] = [];
  for (let index = 0; index < 50; index++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(50);
  for (const port of ports) expect(port).toBeLessThan(ephemeralStart);
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
  await new Promise((resolve) => server.close(resolve));
});
