import { formatDuration } from '../core/duration.js';
import type { Io } from './io.js';
import { terminalText } from './terminal-text.js';

const KIB = 1024;
const MIB = 1024 * KIB;

export interface Progress {
  update: (done: number, total: number) => void;
  /** Ends the bar, leaving one line that says what was done; `completed` false leaves none. */
  stop: (completed: boolean) => void;
}

function bytes(count: number): string {
  if (count >= MIB) return `${(count / MIB).toFixed(1)} MiB`;
  return count >= KIB ? `${(count / KIB).toFixed(0)} KiB` : `${count} B`;
}

/**
 * A progress bar on stderr with the bytes sent and the rate, for an upload over 1 MiB watched at a
 * terminal (a smaller one is over before a bar could say anything); otherwise none. Each update may
 * correct the total (a file's size becomes that of the request that carries it).
 */
export async function uploadProgress(io: Io, filename: string, total: number): Promise<Progress | undefined> {
  if (!io.showsLiveProgress || total <= MIB) return undefined;
  const { SingleBar, Presets } = (await import('cli-progress')).default;
  const started = performance.now();
  const rate = (done: number) => `${bytes(done / Math.max(0.001, (performance.now() - started) / 1000))}/s`;
  const bar = new SingleBar(
    {
      stream: io.stderr.stream,
      format: 'Uploading {file} [{bar}] {sent} of {size} · {rate}',
      barsize: 20,
      clearOnComplete: true,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0, { file: terminalText(filename), sent: bytes(0), size: bytes(total), rate: '…' });
  let sent = 0;
  return {
    update(done, newTotal) {
      sent = done;
      bar.setTotal(newTotal);
      bar.update(done, { sent: bytes(done), size: bytes(newTotal), rate: rate(done) });
    },
    stop(completed) {
      bar.stop();
      if (completed) io.stderr.write(`Uploaded ${terminalText(filename)}: ${bytes(sent)} in ${formatDuration(performance.now() - started)} (${rate(sent)})\n`);
    },
  };
}
