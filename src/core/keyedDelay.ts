// Work done once things settle, per key (a document's URI): each call for a key restarts its wait,
// so a burst of edits is checked once, after the last. What validation as you type does in the
// extension, its browser build and the language server; it takes a Clock so its tests need no wait.
import { SYSTEM_CLOCK } from './clock';
import type { Clock } from './clock';

export class KeyedDelay {
  /** The timer of each key waiting: as many as documents being edited. */
  private readonly waiting = new Map<string, unknown>();

  constructor(private readonly clock: Clock = SYSTEM_CLOCK) {}

  /** Runs `task` `delayMs` after the last call for `key`; an earlier wait for it is dropped. */
  schedule(key: string, delayMs: number, task: () => void): void {
    this.cancel(key);
    this.waiting.set(
      key,
      this.clock.setTimeout(() => {
        this.waiting.delete(key);
        task();
      }, delayMs),
    );
  }

  /** Drops the wait for `key`, if any: its task does not run. */
  cancel(key: string): void {
    const timer = this.waiting.get(key);
    if (timer === undefined) return;
    this.clock.clearTimeout(timer);
    this.waiting.delete(key);
  }

  /** Drops every wait. */
  cancelAll(): void {
    for (const timer of this.waiting.values()) this.clock.clearTimeout(timer);
    this.waiting.clear();
  }

  /** Keys waiting. */
  get size(): number {
    return this.waiting.size;
  }
}
