// Shared helpers for benchmarks: repeat a measurement and report the median.

export interface Timing {
  readonly medianMs: number;
  readonly minMs: number;
  readonly runs: number;
}

/** Runs `work` `warmup` times unmeasured, then `runs` times, and returns the median duration. */
export function measure(work: () => unknown, runs: number, warmup = 2): Timing {
  for (let i = 0; i < warmup; i++) work();
  const durations: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    work();
    durations.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  durations.sort((a, b) => a - b);
  return { medianMs: durations[Math.floor(durations.length / 2)] as number, minMs: durations[0] as number, runs };
}

export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')).join('\n');
}
