// Shared helpers for benchmarks: repeat a measurement and report the median; wait for a child
// process to say it is ready, and read its peak memory.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

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

/**
 * The first line of a child process's stdout that matches `ready` (a port, a URL), once it is
 * written; rejects with `exitedBefore(code)` when the process exits first. Its stdout is read on.
 */
export async function waitForReadyLine(
  child: ChildProcess,
  ready: RegExp,
  exitedBefore: (code: number | null) => string,
): Promise<RegExpExecArray> {
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(exitedBefore(code))));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = ready.exec(line);
      if (found) resolve(found);
    });
  });
  child.stdout!.resume();
  return match;
}

/** Peak resident memory of a process so far, in bytes (Linux: VmHWM); undefined once it has exited. */
export function peakRss(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined; // exited
  }
}
