// Bytes that many readers share: the answers of the API nodes of every execution a local server
// runs are read into memory and held until their execution ends. Each answer is capped on its own;
// the budget caps them together, counted as the bytes arrive (reserving each answer's cap up front
// would refuse runs that never come near it).

/** A limit on the bytes held by all readers together. */
export class ByteBudget {
  private used = 0;

  /**
   * @param limit the most bytes held at once.
   * @param exceeded what to tell a reader that would pass it: why, and what to do.
   */
  constructor(
    readonly limit: number,
    readonly exceeded: string,
  ) {}

  /** Takes `bytes`, or takes nothing and answers false when that would pass the limit. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** One reader's part of a budget (an execution's answers): what it took, given back at once. */
export class BudgetShare {
  private taken = 0;

  constructor(private readonly budget: ByteBudget) {}

  get exceeded(): string {
    return this.budget.exceeded;
  }

  take(bytes: number): boolean {
    if (!this.budget.take(bytes)) return false;
    this.taken += bytes;
    return true;
  }

  /** Gives back everything this share took. */
  releaseAll(): void {
    this.budget.release(this.taken);
    this.taken = 0;
  }
}
