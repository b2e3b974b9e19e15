// A memo keyed by strings that stays bounded by entries and by the characters of its keys. Past
// either bound it starts over: cheaper than least-recently-used bookkeeping on the hot paths that
// use it (validation on every keystroke), and the work it saves is redone at most once.

export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  private keyChars = 0;

  constructor(
    private readonly maxEntries: number,
    /** A key longer than this alone is never kept. */
    private readonly maxKeyChars: number,
  ) {}

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyChars) return;
    if (this.entries.size >= this.maxEntries || this.keyChars + key.length > this.maxKeyChars) {
      this.entries.clear();
      this.keyChars = 0;
    }
    this.entries.set(key, value);
    this.keyChars += key.length;
  }
}
