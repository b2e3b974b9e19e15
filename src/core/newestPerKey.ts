// Which call for a key (a document's URI) started last. A check that waits for something (the
// environments file) before it reaches a queue where the newest text of a document replaces older
// ones must still be the newest when it gets there: else an older check that waited longer
// replaces a newer one, whose result is then dropped as stale and the older one's too.
export class NewestPerKey {
  private readonly newest = new Map<string, number>();
  private started = 0;

  /** Starts a call for `key`; the function returned says whether no call for `key` has started since. */
  start(key: string): () => boolean {
    const mine = ++this.started;
    this.newest.set(key, mine);
    return () => this.newest.get(key) === mine;
  }
}
