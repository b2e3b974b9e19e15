// A value as pretty JSON, written only up to a size: a tooltip or a document that shows a value must
// not cost its whole pretty text first. An output nested 256 levels deep with many values in it is a
// few MB as JSON but hundreds of MB pretty (each line indented by its depth), so the text is built
// piece by piece and stops once past its size, instead of being made whole and then cut.

export interface BoundedJson {
  readonly text: string;
  /** True when the text stopped before the end of the value. */
  readonly cut: boolean;
}

export interface BoundedJsonOptions {
  readonly maxChars: number;
  /** Said in the comment where the text stops. */
  readonly cutNote: string;
  /** Spaces per level (2). */
  readonly indent?: number;
  /** Each object's keys in sorted order (as normalizedJson writes them for a diff), without a sorted copy of the value. */
  readonly sortKeys?: boolean;
}

/** Characters of a long string kept at a cut even when less room is left (a string's start says what it is). */
const MIN_STRING_CHARS = 200;

/**
 * The value as `JSON.stringify(value, null, indent)` writes it (`String(value)` when that writes
 * nothing), exactly while it fits `maxChars`. Past it the text stops at the next value (a long
 * string is cut, its start kept, ending in `…`), writes `// ` and `cutNote` on a line, and closes
 * what is open: it stays JSON with comments, at most a few times `maxChars` long (the closing of
 * each level open costs as much as its opening did).
 */
export function boundedPrettyJson(value: unknown, options: BoundedJsonOptions): BoundedJson {
  const writer = new Writer(options.maxChars, options.cutNote, ' '.repeat(options.indent ?? 2), options.sortKeys ?? false);
  const top = writer.value(jsonOf(value, ''), '');
  if (!top) return { text: String(value), cut: false };
  return { text: writer.parts.join(''), cut: writer.stopped };
}

class Writer {
  readonly parts: string[] = [];
  stopped = false;
  private length = 0;

  constructor(
    private readonly maxChars: number,
    private readonly cutNote: string,
    private readonly step: string,
    private readonly sortKeys: boolean,
  ) {}

  /** Writes a value (already given to toJSON) at `pad`; false when JSON has no text for it. */
  value(value: unknown, pad: string): boolean {
    switch (typeof value) {
      case 'string':
        this.string(value, pad);
        return true;
      case 'number':
        this.write(Number.isFinite(value) ? String(value) : 'null');
        return true;
      case 'boolean':
        this.write(String(value));
        return true;
      case 'bigint':
        // As JSON.stringify does.
        throw new TypeError('Do not know how to serialize a BigInt');
      case 'object':
        if (value === null) this.write('null');
        else if (Array.isArray(value)) this.array(value, pad);
        else this.object(value as Record<string, unknown>, pad);
        return true;
      default:
        return false;
    }
  }

  private array(items: readonly unknown[], pad: string): void {
    if (items.length === 0) return this.write('[]');
    const inner = pad + this.step;
    this.write('[');
    for (let i = 0; i < items.length; i++) {
      if (this.full(inner)) break;
      this.write(`${i > 0 ? ',' : ''}\n${inner}`);
      if (!this.value(jsonOf(items[i], String(i)), inner)) this.write('null');
      if (this.stopped) break;
    }
    this.close(']', pad);
  }

  private object(object: Record<string, unknown>, pad: string): void {
    const inner = pad + this.step;
    let first = true;
    this.write('{');
    const keys = Object.keys(object);
    for (const key of this.sortKeys ? keys.sort() : keys) {
      const item = jsonOf(object[key], key);
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      if (this.full(inner, key.length)) break;
      this.write(`${first ? '' : ','}\n${inner}${JSON.stringify(key)}: `);
      first = false;
      this.value(item, inner);
      if (this.stopped) break;
    }
    if (first && !this.stopped) return this.write('}');
    this.close('}', pad);
  }

  private string(text: string, pad: string): void {
    const room = Math.max(this.maxChars - this.length, MIN_STRING_CHARS);
    if (text.length <= room) return this.write(JSON.stringify(text));
    // Never half a surrogate pair at the cut.
    const end = /[\ud800-\udbff]/.test(text.charAt(room - 1)) ? room - 1 : room;
    this.write(JSON.stringify(`${text.slice(0, end)}…`));
    this.stop(pad);
  }

  /** Whether the text is past its size before the next value (of `more` characters) at `pad`: if so it stops. */
  private full(pad: string, more = 0): boolean {
    if (this.stopped) return true;
    if (this.length + more < this.maxChars) return false;
    this.write(`\n${pad}`);
    this.stop(pad);
    return true;
  }

  private stop(pad: string): void {
    if (this.stopped) return;
    this.stopped = true;
    // After a value the note goes on a line of its own; after a fresh line it goes on it.
    const last = this.parts[this.parts.length - 1] ?? '';
    this.write(last.endsWith(`\n${pad}`) ? `// ${this.cutNote}` : `\n${pad}// ${this.cutNote}`);
  }

  private close(bracket: string, pad: string): void {
    this.write(`\n${pad}${bracket}`);
  }

  private write(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }
}

/** What JSON.stringify writes for a value: its toJSON's answer when it has one. */
function jsonOf(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return (value as { toJSON: (key: string) => unknown }).toJSON(key);
  return value;
}
