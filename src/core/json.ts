// JSON from outside (API and service answers, request bodies, data rows) is walked by recursive code
// once parsed: redaction, expectations, JSON.stringify. A value nested 20,000 levels deep parses, but
// overflows the stack of the first recursive walk and crashes the process. No real document nests
// anywhere near MAX_JSON_DEPTH, so deeper ones are refused before they are parsed.

/** The deepest nesting of arrays and objects read from outside. */
export const MAX_JSON_DEPTH = 256;

/** JSON nested deeper than MAX_JSON_DEPTH; the message completes "The answer …", "Line 3 …". */
export class JsonTooDeepError extends Error {
  override readonly name = 'JsonTooDeepError';
  constructor(readonly maxDepth: number) {
    super(`nests arrays and objects deeper than ${maxDepth} levels, more than is read`);
  }
}

/** JSON.parse, refusing a value nested deeper than `maxDepth` (JsonTooDeepError). Linear in the text. */
export function parseJson(text: string, maxDepth: number = MAX_JSON_DEPTH): unknown {
  if (nestsDeeperThan(text, maxDepth)) throw new JsonTooDeepError(maxDepth);
  return JSON.parse(text) as unknown;
}

/** Whether the brackets outside strings nest deeper than `maxDepth` (the text need not be valid JSON). */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  // Most texts have fewer opening brackets in all than the limit: counted natively (indexOf), they
  // need no walk character by character (a tenth of the time, for lines of a few hundred bytes).
  if (openingBrackets(text, maxDepth + 1) <= maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c /* \ */) i++;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) depth--;
  }
  return false;
}

/** The opening brackets (`{` and `[`) of a text, counted up to `stop`. */
function openingBrackets(text: string, stop: number): number {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1 && count < stop; at = text.indexOf(bracket, at + 1)) count++;
  }
  return count;
}

/**
 * The top-level fields named of a JSON object's text, read from its start as far as the text goes:
 * the text may be the start of a line too long to keep whole. Each named field whose value ends
 * within the text is parsed (parseJson), the others are skipped unparsed; the scan stops at the
 * end of the text or at the first thing that is not JSON. One pass, linear in the text; a name met
 * twice keeps its last value, as JSON.parse does.
 */
export function leadingFields(text: string, names: ReadonlySet<string>): Map<string, unknown> {
  const found = new Map<string, unknown>();
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b /* { */) return found;
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === 0x22 /* " */) {
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1) break;
    const rawKey = text.slice(i, keyEnd);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a /* : */) break;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (end === -1) break;
    const key = rawKey.includes('\\') ? keyText(rawKey) : rawKey.slice(1, -1);
    if (key !== undefined && names.has(key)) {
      try {
        found.set(key, parseJson(text.slice(start, end)));
      } catch {
        break;
      }
    }
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c /* , */) break;
    i = skipSpace(text, i + 1);
  }
  return found;
}

function keyText(raw: string): string | undefined {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

function skipSpace(text: string, from: number): number {
  let i = from;
  for (let code = text.charCodeAt(i); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d; code = text.charCodeAt(++i));
  return i;
}

/** The index just past the string opening at `from` (a quote), or -1 when the text ends inside it. */
function stringEnd(text: string, from: number): number {
  for (let quote = text.indexOf('"', from + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // Escaped when an odd run of backslashes precedes it (each run is counted once: linear).
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return -1;
}

/** The index just past the value starting at `from`, or -1 when the text ends inside it. */
function valueEnd(text: string, from: number): number {
  const first = text.charCodeAt(from);
  if (first === 0x22) return stringEnd(text, from);
  if (first === 0x7b || first === 0x5b /* { [ */) {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 0x22) {
        const end = stringEnd(text, i);
        if (end === -1) return -1;
        i = end - 1;
      } else if (code === 0x7b || code === 0x5b) depth++;
      else if ((code === 0x7d || code === 0x5d) && --depth === 0) return i + 1;
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter (a text ending here may be cut).
  let i = from;
  for (let code = text.charCodeAt(i); i < text.length && !isDelimiter(code); code = text.charCodeAt(++i));
  return i === from || i === text.length ? -1 : i;
}

function isDelimiter(code: number): boolean {
  return code === 0x2c || code === 0x7d || code === 0x5d || code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}
