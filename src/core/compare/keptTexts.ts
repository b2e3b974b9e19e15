// The texts of the read-only documents Compare opens, kept until the editor reads them: bounded by
// count and by characters, the oldest let go first. Each text may be megabytes (an execution's
// outputs), so a count alone would let 40 of them hold hundreds of MB.

export class KeptTexts {
  private readonly texts = new Map<string, string>();
  private chars = 0;

  constructor(
    private readonly maxTexts: number,
    private readonly maxChars: number,
    /** The newest texts kept whatever their size (a comparison's two sides): the editor is about to read them. */
    private readonly minKept = 2,
  ) {}

  get(key: string): string | undefined {
    return this.texts.get(key);
  }

  get size(): number {
    return this.texts.size;
  }

  /** Characters of the texts kept. */
  get keptChars(): number {
    return this.chars;
  }

  set(key: string, text: string): void {
    this.delete(key);
    this.texts.set(key, text);
    this.chars += text.length;
    while (this.texts.size > this.minKept && (this.texts.size > this.maxTexts || this.chars > this.maxChars))
      this.delete(this.texts.keys().next().value!);
  }

  private delete(key: string): void {
    const text = this.texts.get(key);
    if (text === undefined) return;
    this.texts.delete(key);
    this.chars -= text.length;
  }
}
