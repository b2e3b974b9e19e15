// A clock for tests of code that paces itself (src/core/clock.ts: the poller, the batch scheduler):
// time moves only when the test moves it (advance, fireNext, withVirtualTime) or, with autoAdvance,
// straight to each timer as it is set, so waits of minutes take no real time.
import type { Clock } from '../../src/core/clock';

interface Timer {
  readonly at: number;
  readonly callback: () => void;
}

export class FakeClock implements Clock {
  private time: number;
  private readonly timers = new Set<Timer>();
  /** Every wait asked for, in milliseconds, in order. */
  readonly waits: number[] = [];
  private timerSet: (() => void) | undefined;

  constructor(
    start = Date.UTC(2026, 0, 1),
    private readonly options: { readonly autoAdvance?: boolean } = {},
  ) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    // On the whole millisecond, as a real timer fires and Date.now() reads: times stay whole.
    const timer = { at: this.time + Math.max(0, Math.ceil(ms)), callback };
    this.timers.add(timer);
    this.waits.push(ms);
    this.timerSet?.();
    // Jumps to the timer once the code that set it has gone on to wait.
    if (this.options.autoAdvance) setImmediate(() => this.timers.has(timer) && this.advanceTo(timer.at));
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as Timer);
  }

  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time on by `ms`, running the timers that come due, earliest first. */
  advance(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  /** Moves time to the earliest timer and fires it; false when there is none. */
  fireNext(): boolean {
    const first = this.earliest(Infinity);
    if (!first) return false;
    this.fire(first);
    return true;
  }

  /** Resolves when the code sets its next timer: the signal that it is waiting. */
  nextTimer(): Promise<void> {
    return new Promise((resolve) => {
      this.timerSet = () => {
        this.timerSet = undefined;
        resolve();
      };
    });
  }

  private advanceTo(target: number): void {
    for (let next = this.earliest(target); next; next = this.earliest(target)) this.fire(next);
    this.time = Math.max(this.time, target);
  }

  private earliest(until: number): Timer | undefined {
    let first: Timer | undefined;
    for (const timer of this.timers) if (timer.at <= until && (!first || timer.at < first.at)) first = timer;
    return first;
  }

  private fire(timer: Timer): void {
    this.timers.delete(timer);
    this.time = Math.max(this.time, timer.at);
    timer.callback();
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
