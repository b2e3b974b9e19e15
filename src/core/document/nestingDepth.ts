// How deeply a YAML text nests, found by one linear scan before parsing: the YAML parser (and every
// recursive walk after it) needs time, memory and stack in proportion to the depth, so 1 MB of "["
// took 951 MB and 6 s, and deeper still overflowed the stack. An agent file nests a few levels; a
// text nesting deeper than the limit is reported instead of parsed.
//
// The scan knows just enough YAML to count only real nesting: block levels by indentation (plus
// "- " entries on one line), flow brackets opened where a value starts or inside a flow collection,
// and it skips quoted strings, comments and block scalars, whose brackets are text. It may count a
// little more than the parser would, never less in the shapes that make the parser deep.

/** The deepest nesting of lists and mappings an agent file may have. */
export const MAX_NESTING_DEPTH = 100;

/** The offset where the text first nests deeper than `max` levels, or undefined. */
export function excessiveNestingOffset(text: string, max = MAX_NESTING_DEPTH): number | undefined {
  const length = text.length;
  const indents: number[] = [];
  let flow = 0;
  /** The indentation of the line that opened a block scalar, while inside one; -1 otherwise. */
  let blockScalarParent = -1;
  let i = 0;
  while (i < length) {
    let lineEnd = endOfLine(text, i);
    let indent = 0;
    while (i + indent < lineEnd && text.charCodeAt(i + indent) === SPACE) indent++;
    const first = i + indent;
    const blank = first >= lineEnd || text.charCodeAt(first) === HASH || text.charCodeAt(first) === CR;
    if (blockScalarParent >= 0) {
      if (blank || indent > blockScalarParent) {
        i = lineEnd + 1;
        continue;
      }
      blockScalarParent = -1;
    }
    if (blank && flow === 0) {
      i = lineEnd + 1;
      continue;
    }
    let extra = 0;
    if (flow === 0) {
      while (indents.length > 0 && (indents[indents.length - 1] as number) >= indent) indents.pop();
      indents.push(indent);
      if (indents.length > max) return first;
    }
    // `scalarStart` is true where a new value may begin: a "[" opens a list there, a quote a string.
    let scalarStart = true;
    let j = first;
    while (j < lineEnd) {
      const c = text.charCodeAt(j);
      if (isBlank(c)) {
        j++;
        continue;
      }
      if (c === HASH && isBlank(text.charCodeAt(j - 1))) break;
      if (scalarStart && (c === QUOTE_DOUBLE || c === QUOTE_SINGLE)) {
        const close = closingQuote(text, j, c);
        // An unclosed quote runs to the end: the parser reads the rest as text, cheaply.
        if (close === -1) return undefined;
        // A string over several lines: the scan goes on after it, on the line where it ends.
        if (close > lineEnd) lineEnd = endOfLine(text, close);
        j = close + 1;
        scalarStart = false;
        continue;
      }
      if (flow > 0) {
        if (c === OPEN_SQUARE || c === OPEN_CURLY) {
          flow++;
          if (indents.length + extra + flow > max) return j;
          scalarStart = true;
        } else if (c === CLOSE_SQUARE || c === CLOSE_CURLY) {
          flow--;
          scalarStart = false;
        } else {
          scalarStart = c === COMMA || (c === COLON && isBlank(text.charCodeAt(j + 1)));
        }
        j++;
        continue;
      }
      if (scalarStart) {
        if ((c === DASH || c === QUESTION) && isBlank(text.charCodeAt(j + 1))) {
          extra++;
          if (indents.length + extra > max) return j;
          j++;
          continue;
        }
        if (c === OPEN_SQUARE || c === OPEN_CURLY) {
          flow = 1;
          if (indents.length + extra + flow > max) return j;
          j++;
          continue;
        }
        if (c === PIPE || c === GREATER) {
          blockScalarParent = indent;
          break;
        }
        if (c === AMPERSAND || c === BANG) {
          // An anchor or a tag comes before the value it names.
          while (j < lineEnd && !isBlank(text.charCodeAt(j))) j++;
          continue;
        }
        scalarStart = false;
      }
      // Plain text: ": " starts a value again.
      if (c === COLON && isBlank(text.charCodeAt(j + 1))) scalarStart = true;
      j++;
    }
    i = lineEnd + 1;
  }
  return undefined;
}

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const HASH = 0x23;
const QUOTE_DOUBLE = 0x22;
const QUOTE_SINGLE = 0x27;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;
const DASH = 0x2d;
const QUESTION = 0x3f;
const PIPE = 0x7c;
const GREATER = 0x3e;
const AMPERSAND = 0x26;
const BANG = 0x21;
const COLON = 0x3a;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === CR || c === 0x0a || Number.isNaN(c);
}

function endOfLine(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

/** The offset of the quote closing the string opened at `open`, or -1. */
function closingQuote(text: string, open: number, quote: number): number {
  for (let k = open + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (quote === QUOTE_DOUBLE && c === BACKSLASH) {
      k++;
      continue;
    }
    if (c === quote) {
      if (quote === QUOTE_SINGLE && text.charCodeAt(k + 1) === QUOTE_SINGLE) {
        k++;
        continue;
      }
      return k;
    }
  }
  return -1;
}
