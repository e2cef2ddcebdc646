import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** An address in /proc/net/tcp{,6} form (little-endian hex words) as text. */
function addressOf(hex: string): string {
  if (hex.length === 8) return [3, 2, 1, 0].map((index) => parseInt(hex.slice(index * 2, index * 2 + 2), 16)).join('.');
  if (hex === '0'.repeat(32)) return '::';
  if (hex === '00000000000000000000000001000000') return '::1';
  return hex;
}

/** The TCP sockets process `pid` listens on, read from /proc as `ss -ltnp` would (Linux only). */
export function listeningSockets(pid: number): Array<{ address: string; port: number }> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // The descriptor closed while being read.
    }
  }
  const sockets: Array<{ address: string; port: number }> = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // fields: sl local_address rem_address st ... inode (the 10th)
      if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
      const [address, port] = fields[1]!.split(':');
      sockets.push({ address: addressOf(address!), port: parseInt(port!, 16) });
    }
  }
  return sockets;
}

/** The processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields after it are fixed.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return children;
}

/**
 * Whether process `pid` still runs its parent's program: forked but not yet executed its own, it
 * shows its parent's command line and environment, not those it will run with.
 */
export function runsParentProgram(pid: number, parent: number): boolean {
  return readFileSync(`/proc/${pid}/cmdline`, 'latin1') === readFileSync(`/proc/${parent}/cmdline`, 'latin1');
}

/** The environment process `pid` was started with. */
export function environmentOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

/** Whether process `pid` has ended: gone, or a zombie its new parent has not reaped (Linux only). */
export function hasEnded(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return ['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!);
  } catch {
    return true;
  }
}
