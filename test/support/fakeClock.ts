// A clock for code that paces itself (the batch scheduler): time moves only when the test moves it,
// so waits of minutes take no real time.
import type { SchedulerClock } from '../../src/core/batch/scheduler';

export class FakeClock implements SchedulerClock {
  private time: number;
  private nextId = 1;
  private readonly timers = new Map<number, { readonly at: number; readonly callback: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time to the earliest timer and fires it; false when there is none. */
  fireNext(): boolean {
    let first: [number, { readonly at: number; readonly callback: () => void }] | undefined;
    for (const entry of this.timers) if (!first || entry[1].at < first[1].at) first = entry;
    if (!first) return false;
    this.timers.delete(first[0]);
    this.time = Math.max(this.time, first[1].at);
    first[1].callback();
    return true;
  }
}

/**
 * Runs `work` while moving `clock` on whenever it waits and `idle()` says nothing else is under way
 * (no request in flight): virtual time, as fast as the real work allows.
 */
export async function withVirtualTime<T>(clock: FakeClock, idle: () => boolean, work: Promise<T>): Promise<T> {
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!done && clock.pending > 0 && idle()) clock.fireNext();
  }
  return finished;
}
