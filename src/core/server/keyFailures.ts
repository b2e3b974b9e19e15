// Slows down clients that keep sending a wrong key to the local server: after `maxFailures` wrong
// keys from one client address within a window, that address's wrong keys are answered 429 (with
// Retry-After) for 1 s, then twice as long after each further wrong key, up to a minute. Only
// wrong keys are counted and held back: every program on this machine shares 127.0.0.1, so a
// request without a key, or the right key, must never wait for what another program sent. The
// table of addresses is bounded (the oldest entry goes first).

const WINDOW_MS = 60_000;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 60_000;
const MAX_ADDRESSES = 10_000;

interface Failures {
  count: number;
  lastAt: number;
  blockedUntil: number;
}

export class KeyFailures {
  private readonly byAddress = new Map<string, Failures>();

  constructor(
    private readonly maxFailures: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds the address must still wait, 0 when it may try a key. */
  waitMs(address: string): number {
    const entry = this.byAddress.get(address);
    return entry ? Math.max(0, entry.blockedUntil - this.now()) : 0;
  }

  /** Records a wrong key; returns how long the address must now wait (0 while under the limit). */
  failed(address: string): number {
    const now = this.now();
    const entry = this.byAddress.get(address);
    const count = entry && now - entry.lastAt < WINDOW_MS ? entry.count + 1 : 1;
    const over = count - this.maxFailures;
    const blockedUntil = over >= 0 ? now + Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(over, 16)) : 0;
    // Re-inserted so the Map's order is the order of last failure: the oldest is dropped when full.
    this.byAddress.delete(address);
    this.byAddress.set(address, { count, lastAt: now, blockedUntil });
    if (this.byAddress.size > MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
    return Math.max(0, blockedUntil - now);
  }

  /** Wrong keys from the address within the window. */
  count(address: string): number {
    const entry = this.byAddress.get(address);
    return entry && this.now() - entry.lastAt < WINDOW_MS ? entry.count : 0;
  }

  get size(): number {
    return this.byAddress.size;
  }
}
