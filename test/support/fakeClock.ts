// A clock for tests of code that paces itself (src/core/clock.ts): time moves only when the test
// says, or, with autoAdvance, straight to each timer as it is set, so a wait of minutes takes none.
import type { Clock } from '../../src/core/clock';

interface Timer {
  readonly due: number;
  readonly callback: () => void;
}

export class FakeClock implements Clock {
  private time: number;
  private readonly timers = new Set<Timer>();
  /** Every wait asked for, in milliseconds, in order. */
  readonly waits: number[] = [];
  private timerSet: (() => void) | undefined;

  constructor(
    start = 1_700_000_000_000,
    private readonly options: { readonly autoAdvance?: boolean } = {},
  ) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const timer = { due: this.time + Math.max(0, ms), callback };
    this.timers.add(timer);
    this.waits.push(ms);
    this.timerSet?.();
    // Jumps to the timer once the code that set it has gone on to wait.
    if (this.options.autoAdvance) setImmediate(() => this.timers.has(timer) && this.advanceTo(timer.due));
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as Timer);
  }

  /** Moves time on by `ms`, running the timers that come due, earliest first. */
  advance(ms: number): void {
    this.advanceTo(this.time + ms);
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

  get pending(): number {
    return this.timers.size;
  }

  private advanceTo(target: number): void {
    for (;;) {
      let next: Timer | undefined;
      for (const timer of this.timers) if (timer.due <= target && (!next || timer.due < next.due)) next = timer;
      if (!next) break;
      this.timers.delete(next);
      this.time = Math.max(this.time, next.due);
      next.callback();
    }
    this.time = Math.max(this.time, target);
  }
}
