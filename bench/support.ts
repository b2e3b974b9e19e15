// Shared helpers for benchmarks: repeat a measurement and report the median.

export interface Timing {
  readonly medianMs: number;
  readonly minMs: number;
  readonly runs: number;
}

export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '))
    .join('\n');
}

/**
 * Measures two pieces of work in alternation (a, b, a, b, …) so that both see the same machine:
 * a slow spell (another process, a collection) lands on both sides instead of skewing the ratio.
 */
export function measurePair(a: () => unknown, b: () => unknown, runs: number, warmup = 2): { a: Timing; b: Timing } {
  for (let i = 0; i < warmup; i++) {
    a();
    b();
  }
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const [side, work] of [
      [0, a],
      [1, b],
    ] as const) {
      const start = process.hrtime.bigint();
      work();
      times[side].push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  const timing = (durations: number[]): Timing => {
    durations.sort((x, y) => x - y);
    return { medianMs: durations[Math.floor(durations.length / 2)] as number, minMs: durations[0] as number, runs };
  };
  return { a: timing(times[0]), b: timing(times[1]) };
}
