// Saving a long run's progress as it goes (a batch's counts in its record): at most one save in
// flight, the saves in order, throttled, and a failed save logged rather than kept: it must not
// keep the final state from being saved, nor reject whoever waits for the saves to settle.

export class ProgressSaves<T> {
  private chain: Promise<void> = Promise.resolve();
  private lastAt = -Infinity;

  constructor(
    private readonly save: (value: T) => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly minIntervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Saves `value` after the saves before it, unless one was made less than minIntervalMs ago (`force`: always). */
  offer(value: T, force = false): void {
    const now = this.now();
    if (!force && now - this.lastAt < this.minIntervalMs) return;
    this.lastAt = now;
    this.chain = this.chain.then(() => this.save(value)).catch((error: unknown) => this.onError(error));
  }

  /** Resolves once every save offered so far has ended, failed ones included; never rejects. */
  settled(): Promise<void> {
    return this.chain;
  }
}
