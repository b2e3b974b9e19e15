// Which call for a key (a document's URI) started last. A check that waits for something (the
// environments file) before it reaches a queue where the newest text of a document replaces older
// ones must still be the newest when it gets there: else an older check that waited longer
// replaces a newer one, whose result is then dropped as stale and the older one's too.

/** One call's place among the calls for its key. */
export interface Turn {
  /** True while no call for the key has started since this one. */
  readonly isNewest: () => boolean;
  /** The call ended: once the newest has, the key is forgotten (the map holds only calls under way). */
  readonly end: () => void;
}

export class NewestPerKey {
  private readonly newest = new Map<string, number>();
  private started = 0;

  /** Starts a call for `key`. */
  start(key: string): Turn {
    const mine = ++this.started;
    this.newest.set(key, mine);
    const isNewest = (): boolean => this.newest.get(key) === mine;
    return {
      isNewest,
      end: () => {
        if (isNewest()) this.newest.delete(key);
      },
    };
  }

  /** Keys with a call under way. */
  get size(): number {
    return this.newest.size;
  }
}
