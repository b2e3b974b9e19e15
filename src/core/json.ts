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
