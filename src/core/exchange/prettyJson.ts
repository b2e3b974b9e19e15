// JSON bodies pretty-printed for the exchange view by re-indenting the text token by token: one
// pass to check it and measure the result, one to write it into a buffer of that exact size. No
// JSON.parse (a parsed 10 MiB body is many times its size in objects) and no string per token.
// Structural characters are ASCII and never occur inside a UTF-8 multi-byte sequence, so the
// scan works on the body's UTF-8 bytes.

export type PrettyJson =
  | { readonly kind: 'pretty'; readonly text: string }
  /** Not JSON (the offset of the first byte that is not), or pretty it would pass `maxBytes`. */
  | { readonly kind: 'invalid'; readonly offset: number }
  | { readonly kind: 'too-large'; readonly bytes: number };

export interface PrettyJsonOptions {
  /** The text is the start of a longer body: ending inside a value is not an error. */
  readonly partial?: boolean;
  /** Spaces per level (2). */
  readonly indent?: number;
  /** Bytes the pretty text may take; past it the caller shows the text as it is (default 3x + 64 KiB). */
  readonly maxBytes?: number;
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

export function prettyJson(text: string, options: PrettyJsonOptions = {}): PrettyJson {
  // ASCII text (most API answers) takes the fast latin1 copies both ways; UTF-8 otherwise.
  const ascii = Buffer.byteLength(text, 'utf8') === text.length;
  const encoding = ascii ? 'latin1' : 'utf8';
  const bytes = Buffer.from(text, encoding);
  const maxBytes = options.maxBytes ?? bytes.length * 3 + 64 * 1024;
  const measured = reindent(bytes, undefined, options);
  if (typeof measured !== 'number') return measured;
  if (measured > maxBytes) return { kind: 'too-large', bytes: measured };
  const out = Buffer.allocUnsafe(measured);
  reindent(bytes, out, options);
  return { kind: 'pretty', text: out.toString(encoding) };
}

/**
 * Writes into `out` when given; returns the length of the pretty text, or where it is not JSON.
 * One function with no closures over its counters: this loop is the whole cost of the view.
 */
function reindent(input: Buffer, out: Buffer | undefined, options: PrettyJsonOptions): number | PrettyJson {
  const indent = options.indent ?? 2;
  const partial = options.partial === true;
  const writing = out !== undefined;
  const length = input.length;
  let stack = new Uint8Array(64);
  let depth = 0;
  let expect = Expect.Value;
  let written = 0;
  let i = input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf ? 3 : 0;

  while (i < length) {
    const byte = input[i];
    if (byte === SPACE || byte === NEWLINE || byte === 0x09 || byte === 0x0d) {
      i++;
      continue;
    }
    let start = i;
    let end: number;
    switch (byte) {
      case OPEN_BRACE:
      case OPEN_BRACKET: {
        if (expect !== Expect.Value) return { kind: 'invalid', offset: i };
        const close = byte === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
        let next = i + 1;
        while (next < length && isWhitespace(input[next]!)) next++;
        if (input[next] === close) {
          if (writing) {
            out[written] = byte;
            out[written + 1] = close;
          }
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
        stack[depth++] = byte === OPEN_BRACE ? OBJECT : ARRAY;
        if (writing) out[written] = byte;
        written++;
        written = newline(out, written, depth * indent);
        expect = byte === OPEN_BRACE ? Expect.Key : Expect.Value;
        i = next;
        continue;
      }
      case CLOSE_BRACE:
      case CLOSE_BRACKET: {
        if (expect !== Expect.CommaOrClose || stack[depth - 1] !== (byte === CLOSE_BRACE ? OBJECT : ARRAY))
          return { kind: 'invalid', offset: i };
        depth--;
        written = newline(out, written, depth * indent);
        if (writing) out[written] = byte;
        written++;
        i++;
        expect = depth === 0 ? Expect.End : Expect.CommaOrClose;
        continue;
      }
      case COMMA: {
        if (expect !== Expect.CommaOrClose) return { kind: 'invalid', offset: i };
        if (writing) out[written] = COMMA;
        written++;
        written = newline(out, written, depth * indent);
        expect = stack[depth - 1] === OBJECT ? Expect.Key : Expect.Value;
        i++;
        continue;
      }
      case COLON: {
        if (expect !== Expect.Colon) return { kind: 'invalid', offset: i };
        if (writing) {
          out[written] = COLON;
          out[written + 1] = SPACE;
        }
        written += 2;
        expect = Expect.Value;
        i++;
        continue;
      }
      case QUOTE: {
        if (expect !== Expect.Value && expect !== Expect.Key) return { kind: 'invalid', offset: i };
        end = stringEnd(input, i);
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
        while (end < length && isLiteralByte(input[end]!)) end++;
        // A body cut inside a number or `true` is still the start of JSON.
        if (end === i || (!isLiteral(input, i, end) && !(end === length && partial))) return { kind: 'invalid', offset: i };
        expect = depth === 0 ? Expect.End : Expect.CommaOrClose;
      }
    }
    // A string or a literal: copied as it is.
    if (writing) {
      if (end - start > 32) input.copy(out, written, start, end);
      else for (let at = written; start < end; start++, at++) out[at] = input[start]!;
    }
    written += end - i;
    i = end;
  }
  if (expect === Expect.End || partial) return written;
  return { kind: 'invalid', offset: length };
}

/** A line break and `spaces` of indentation at `written`; returns the new length. */
function newline(out: Buffer | undefined, written: number, spaces: number): number {
  if (out) {
    out[written] = NEWLINE;
    // A loop: most indents are a few spaces, shorter than the cost of calling fill.
    if (spaces > 64) out.fill(SPACE, written + 1, written + 1 + spaces);
    else for (let at = written + 1, end = at + spaces; at < end; at++) out[at] = SPACE;
  }
  return written + 1 + spaces;
}

function isWhitespace(byte: number): boolean {
  return byte === SPACE || byte === NEWLINE || byte === 0x09 || byte === 0x0d;
}

/**
 * The offset after the closing quote of the string that starts at `start`; -1 when the input
 * ends inside it; -2 - offset for a byte a JSON string may not hold (a raw control character).
 */
function stringEnd(input: Buffer, start: number): number {
  const length = input.length;
  let i = start + 1;
  while (i < length) {
    const byte = input[i]!;
    if (byte === QUOTE) return i + 1;
    if (byte === BACKSLASH) i += 2;
    else if (byte < 0x20) return -2 - i;
    else i++;
  }
  return -1;
}

function isLiteralByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x45
  );
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/** `true`, `false`, `null` or a JSON number, checked byte by byte. */
function isLiteral(input: Buffer, start: number, end: number): boolean {
  const first = input[start];
  if (first === 0x74) return matches(input, start, end, TRUE);
  if (first === 0x66) return matches(input, start, end, FALSE);
  if (first === 0x6e) return matches(input, start, end, NULL);
  let i = start;
  if (input[i] === 0x2d) i++;
  if (input[i] === 0x30) i++;
  else if (isDigit(input[i])) while (i < end && isDigit(input[i])) i++;
  else return false;
  if (i < end && input[i] === 0x2e) {
    i++;
    if (!isDigit(input[i]) || i >= end) return false;
    while (i < end && isDigit(input[i])) i++;
  }
  if (i < end && (input[i] === 0x65 || input[i] === 0x45)) {
    i++;
    if (i < end && (input[i] === 0x2b || input[i] === 0x2d)) i++;
    if (i >= end || !isDigit(input[i])) return false;
    while (i < end && isDigit(input[i])) i++;
  }
  return i === end;
}

function matches(input: Buffer, start: number, end: number, word: readonly number[]): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (input[start + k] !== word[k]) return false;
  return true;
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}
