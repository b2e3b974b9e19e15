// JSON bodies pretty-printed for the exchange view by re-indenting the text token by token, in one
// pass that checks it as it writes (what it wrote is dropped when the text turns out not to be
// JSON). No JSON.parse (a parsed 10 MiB body
// is many times its size in objects) and no string per token: the text is scanned in place and
// written as UTF-8 into one reused 1 MiB buffer, each full buffer turned into one piece of the
// result. So the work holds little more than the result, and a piece with only ASCII in it is a
// one-byte string (half the memory of a two-byte one) even when the body has other characters.

export type PrettyJson =
  /** `shownChars`: when the text stopped at `maxLines`, how many characters of the body it shows. */
  | { readonly kind: 'pretty'; readonly text: string; readonly shownChars?: number }
  /** Not JSON: the offset (in characters) of the first character that is not. */
  | { readonly kind: 'invalid'; readonly offset: number }
  /** Pretty it would pass `maxChars`. */
  | { readonly kind: 'too-large'; readonly maxChars: number };

export interface PrettyJsonOptions {
  /** The text is the start of a longer body: ending inside a value is not an error. */
  readonly partial?: boolean;
  /** Spaces per level (2). */
  readonly indent?: number;
  /** Characters the pretty text may take; past it the caller shows the text as it is (default 3x + 64 Ki). */
  readonly maxChars?: number;
  /**
   * Lines the text may take: past them it stops at the next value of an array or object, writes
   * `// ` and the note (given the characters of the body shown) and closes what is open, so the
   * text stays JSON with comments. An editor shows a short text at once and folds it; a body of a
   * million lines takes it seconds and it turns folding off.
   */
  readonly maxLines?: number;
  readonly cutNote?: (shownChars: number) => string;
}

const enum Expect {
  Value,
  Key,
  Colon,
  CommaOrClose,
  End,
}

const OBJECT = 1;
const ARRAY = 2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;
const SPACE = 0x20;

const CHUNK_BYTES = 1024 * 1024;

export function prettyJson(text: string, options: PrettyJsonOptions = {}): PrettyJson {
  const maxChars = options.maxChars ?? text.length * 3 + 64 * 1024;
  const writer = new ChunkWriter();
  const result = reindent(text, writer, options, maxChars);
  if (typeof result !== 'number') return result;
  return result < 0 ? { kind: 'pretty', text: writer.finish() } : { kind: 'pretty', text: writer.finish(), shownChars: result };
}

/**
 * Whether the text is one JSON value exactly as JSON.parse reads it (no byte order mark), found
 * by the same scan without writing anything: no objects, no copy of the text.
 */
export function isJson(text: string): boolean {
  return reindent(text, NO_OUTPUT, { strict: true }, Infinity) === -1;
}

/** Where reindent writes. */
interface PrettyOutput {
  room(bytes: number): void;
  byte(value: number): void;
  newline(spaces: number): void;
  copy(text: string, start: number, end: number): void;
}

/** Writes nothing: reindent then only checks the text. */
const NO_OUTPUT: PrettyOutput = { room() {}, byte() {}, newline() {}, copy() {} };

/**
 * The pretty text as pieces of at most CHUNK_BYTES of UTF-8, each decoded once: latin1 (a plain
 * copy) when it holds only ASCII.
 */
class ChunkWriter implements PrettyOutput {
  private readonly chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;
  private ascii = true;
  private text = '';

  /** Room for `bytes` more (at most CHUNK_BYTES). */
  room(bytes: number): void {
    if (this.at + bytes > CHUNK_BYTES) this.flush();
  }

  /** An ASCII byte; room() was asked for it. */
  byte(value: number): void {
    this.chunk[this.at++] = value;
  }

  newline(spaces: number): void {
    this.room(1);
    this.chunk[this.at++] = NEWLINE;
    // Most indents are a few spaces: a loop costs less than a call of fill.
    if (spaces <= 64 && this.at + spaces <= CHUNK_BYTES) {
      for (const end = this.at + spaces; this.at < end;) this.chunk[this.at++] = SPACE;
      return;
    }
    while (spaces > 0) {
      this.room(1);
      const run = Math.min(spaces, CHUNK_BYTES - this.at);
      this.chunk.fill(SPACE, this.at, this.at + run);
      this.at += run;
      spaces -= run;
    }
  }

  /** Characters of `text` as they are, in UTF-8. */
  copy(text: string, start: number, end: number): void {
    for (let i = start; i < end; i++) {
      if (this.at + 4 > CHUNK_BYTES) this.flush();
      const code = text.charCodeAt(i);
      if (code < 0x80) {
        this.chunk[this.at++] = code;
        continue;
      }
      this.ascii = false;
      if (code < 0x800) {
        this.chunk[this.at++] = 0xc0 | (code >> 6);
        this.chunk[this.at++] = 0x80 | (code & 0x3f);
        continue;
      }
      let point = code;
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < end) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          point = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          i++;
        }
      }
      if (point >= 0xd800 && point <= 0xdfff) point = 0xfffd; // a lone surrogate
      if (point >= 0x10000) {
        this.chunk[this.at++] = 0xf0 | (point >> 18);
        this.chunk[this.at++] = 0x80 | ((point >> 12) & 0x3f);
      } else {
        this.chunk[this.at++] = 0xe0 | (point >> 12);
      }
      this.chunk[this.at++] = 0x80 | ((point >> 6) & 0x3f);
      this.chunk[this.at++] = 0x80 | (point & 0x3f);
    }
  }

  finish(): string {
    this.flush();
    return this.text;
  }

  private flush(): void {
    if (this.at === 0) return;
    this.text += this.chunk.toString(this.ascii ? 'latin1' : 'utf8', 0, this.at);
    this.at = 0;
    this.ascii = true;
  }
}

/**
 * Writes the pretty text to `out`; returns -1, or the characters of the text shown when it stopped
 * at `maxLines`, or where the text is not JSON. One loop over the characters; a token is written
 * as a range of the text.
 */
function reindent(
  text: string,
  out: PrettyOutput,
  options: PrettyJsonOptions & { readonly strict?: boolean },
  maxChars: number,
): number | PrettyJson {
  const indent = options.indent ?? 2;
  const partial = options.partial === true;
  const length = text.length;
  let stack = new Uint8Array(64);
  let depth = 0;
  let expect = Expect.Value;
  let written = 0;
  const maxLines = options.maxLines ?? Infinity;
  let lines = 1;
  // A byte order mark is shown past; JSON.parse (strict) takes none.
  let i = text.charCodeAt(0) === 0xfeff && options.strict !== true ? 1 : 0;

  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === SPACE || code === NEWLINE || code === 0x09 || code === 0x0d) {
      i++;
      continue;
    }
    let end: number;
    switch (code) {
      case OPEN_BRACE:
      case OPEN_BRACKET: {
        if (expect !== Expect.Value) return { kind: 'invalid', offset: i };
        const close = code === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
        let next = i + 1;
        while (next < length && isWhitespace(text.charCodeAt(next))) next++;
        if (text.charCodeAt(next) === close) {
          out.room(2);
          out.byte(code);
          out.byte(close);
          written += 2;
          i = next + 1;
          expect = depth === 0 ? Expect.End : Expect.CommaOrClose;
          continue;
        }
        if (depth === stack.length) {
          const grown = new Uint8Array(stack.length * 2);
          grown.set(stack);
          stack = grown;
        }
        stack[depth++] = code === OPEN_BRACE ? OBJECT : ARRAY;
        out.room(1);
        out.byte(code);
        out.newline(depth * indent);
        written += 2 + depth * indent;
        lines++;
        if (written > maxChars) return { kind: 'too-large', maxChars };
        expect = code === OPEN_BRACE ? Expect.Key : Expect.Value;
        i = next;
        continue;
      }
      case CLOSE_BRACE:
      case CLOSE_BRACKET: {
        if (expect !== Expect.CommaOrClose || stack[depth - 1] !== (code === CLOSE_BRACE ? OBJECT : ARRAY))
          return { kind: 'invalid', offset: i };
        depth--;
        out.newline(depth * indent);
        out.room(1);
        out.byte(code);
        written += 2 + depth * indent;
        lines++;
        i++;
        expect = depth === 0 ? Expect.End : Expect.CommaOrClose;
        continue;
      }
      case COMMA: {
        if (expect !== Expect.CommaOrClose) return { kind: 'invalid', offset: i };
        if (lines >= maxLines) {
          closeAfterNote(out, stack, depth, indent, options.cutNote?.(i) ?? '');
          return i;
        }
        out.room(1);
        out.byte(COMMA);
        out.newline(depth * indent);
        written += 2 + depth * indent;
        lines++;
        if (written > maxChars) return { kind: 'too-large', maxChars };
        expect = stack[depth - 1] === OBJECT ? Expect.Key : Expect.Value;
        i++;
        continue;
      }
      case COLON: {
        if (expect !== Expect.Colon) return { kind: 'invalid', offset: i };
        out.room(2);
        out.byte(COLON);
        out.byte(SPACE);
        written += 2;
        expect = Expect.Value;
        i++;
        continue;
      }
      case QUOTE: {
        if (expect !== Expect.Value && expect !== Expect.Key) return { kind: 'invalid', offset: i };
        end = stringEnd(text, i);
        if (end < 0) {
          if (end !== -1) return { kind: 'invalid', offset: -end - 2 };
          if (!partial) return { kind: 'invalid', offset: length };
          end = length;
          expect = Expect.End;
        } else {
          expect = expect === Expect.Key ? Expect.Colon : depth === 0 ? Expect.End : Expect.CommaOrClose;
        }
        break;
      }
      default: {
        if (expect !== Expect.Value) return { kind: 'invalid', offset: i };
        end = i;
        while (end < length && isLiteralCode(text.charCodeAt(end))) end++;
        // A body cut inside a number or `true` is still the start of JSON.
        if (end === i || (!isLiteral(text, i, end) && !(end === length && partial))) return { kind: 'invalid', offset: i };
        expect = depth === 0 ? Expect.End : Expect.CommaOrClose;
      }
    }
    // A string or a literal: written as it is.
    out.copy(text, i, end);
    written += end - i;
    i = end;
  }
  if (expect === Expect.End || partial) return -1;
  return { kind: 'invalid', offset: length };
}

/** A `//` line with the note, then each open array and object closed on a line of its own. */
function closeAfterNote(out: PrettyOutput, stack: Uint8Array, depth: number, indent: number, note: string): void {
  out.newline(depth * indent);
  out.room(3);
  out.byte(0x2f);
  out.byte(0x2f);
  out.byte(SPACE);
  // A note of one line: a line break in it would end the comment.
  const line = note.replace(/[\r\n\u2028\u2029]/g, ' ');
  out.copy(line, 0, line.length);
  for (let level = depth - 1; level >= 0; level--) {
    out.newline(level * indent);
    out.room(1);
    out.byte(stack[level] === OBJECT ? CLOSE_BRACE : CLOSE_BRACKET);
  }
}

function isWhitespace(code: number): boolean {
  return code === SPACE || code === NEWLINE || code === 0x09 || code === 0x0d;
}

/**
 * The offset after the closing quote of the string that starts at `start`; -1 when the text
 * ends inside it; -2 - offset for what a JSON string may not hold (a raw control character, an
 * escape other than \" \\ \/ \b \f \n \r \t \uXXXX).
 */
function stringEnd(text: string, start: number): number {
  const length = text.length;
  let i = start + 1;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    if (code === BACKSLASH) {
      const escaped = validEscape(text, i);
      if (escaped === 0) return -2 - i;
      i += escaped;
    } else if (code < 0x20) return -2 - i;
    else i++;
  }
  return -1;
}

/** The characters of the escape at `at` (a backslash), 0 when it is not one JSON allows; one cut by the text's end counts as whole. */
function validEscape(text: string, at: number): number {
  const code = text.charCodeAt(at + 1);
  if (at + 1 >= text.length) return 2;
  if (code !== 0x75 /* u */) return ESCAPED.includes(code) ? 2 : 0;
  for (let k = at + 2; k < at + 6 && k < text.length; k++) if (!isHexDigit(text.charCodeAt(k))) return 0;
  return 6;
}

/** The characters after a backslash that JSON allows, but for `u`. */
const ESCAPED = [QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74];

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

function isLiteralCode(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a) || code === 0x2d || code === 0x2b || code === 0x2e || code === 0x45
  );
}

/** `true`, `false`, `null` or a JSON number. */
function isLiteral(text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start);
  if (first === 0x74 || first === 0x66 || first === 0x6e) {
    return isWord(text, start, end, 'true') || isWord(text, start, end, 'false') || isWord(text, start, end, 'null');
  }
  let i = start;
  if (text.charCodeAt(i) === 0x2d) i++;
  if (text.charCodeAt(i) === 0x30) i++;
  else if (isDigit(text.charCodeAt(i))) while (i < end && isDigit(text.charCodeAt(i))) i++;
  else return false;
  if (i < end && text.charCodeAt(i) === 0x2e) {
    i++;
    if (i >= end || !isDigit(text.charCodeAt(i))) return false;
    while (i < end && isDigit(text.charCodeAt(i))) i++;
  }
  if (i < end && (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45)) {
    i++;
    if (i < end && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
    if (i >= end || !isDigit(text.charCodeAt(i))) return false;
    while (i < end && isDigit(text.charCodeAt(i))) i++;
  }
  return i === end;
}

function isWord(text: string, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (text.charCodeAt(start + k) !== word.charCodeAt(k)) return false;
  return true;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
