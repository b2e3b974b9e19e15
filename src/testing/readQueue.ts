// The test files waiting to be read for the Test Explorer: a few are read at a time (each read
// holds the file's text until the worker answers, and discovery asks for up to 2,000 at once), and a
// file already waiting is read once, for all who asked, at its newest text (the read starts later).

export class ReadQueue<T extends { toString(): string }> {
  /** Waiting reads, one entry per file, in the order asked. */
  private readonly waiting = new Map<
    string,
    { readonly file: T; readonly done: Promise<boolean>; readonly resolve: (read: boolean) => void }
  >();
  /** Files being read now. */
  private readonly reading = new Set<string>();

  constructor(
    /** Reads a file; whether it could be read. Never rejects. */
    private readonly readFile: (file: T) => Promise<boolean>,
    private readonly maxReads: number,
  ) {}

  /** Reads a file once a place is free (joining a read of it that is waiting); whether it could be read. */
  read(file: T): Promise<boolean> {
    const key = file.toString();
    const waiting = this.waiting.get(key);
    if (waiting) return waiting.done;
    let resolve!: (read: boolean) => void;
    const done = new Promise<boolean>((settle) => (resolve = settle));
    this.waiting.set(key, { file, done, resolve });
    this.start();
    return done;
  }

  /** Starts waiting reads, at most maxReads at once and one per file. */
  private start(): void {
    for (const [key, entry] of this.waiting) {
      if (this.reading.size >= this.maxReads) return;
      if (this.reading.has(key)) continue;
      this.waiting.delete(key);
      this.reading.add(key);
      void this.readFile(entry.file).then((readable) => {
        this.reading.delete(key);
        entry.resolve(readable);
        this.start();
      });
    }
  }
}
