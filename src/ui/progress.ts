const MIB = 1024 * 1024;

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/**
 * A progress bar in bytes on stderr, for a transfer over 1 MiB when stderr is a terminal; otherwise
 * none. Each update may correct the total (a file's size becomes that of the request that carries it).
 */
export async function byteProgress(label: string, total: number): Promise<Progress | undefined> {
  if (!process.stderr.isTTY || total <= MIB) return undefined;
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {percentage}% | {value}/{total} MiB`,
      formatValue: (value, _options, type) => (type === 'value' || type === 'total' ? (value / MIB).toFixed(1) : String(value)),
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    update(done, newTotal) {
      bar.setTotal(newTotal);
      bar.update(done);
    },
    stop: () => bar.stop(),
  };
}
