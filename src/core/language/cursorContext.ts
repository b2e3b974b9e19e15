// Where the cursor is in an agent file, read from the lines around it rather than from the parsed
// YAML: while the user types, the YAML is often incomplete, but indentation still says which
// mapping a line belongs to.
import type { Span } from '../document/problems';

export type CursorContext =
  /** Typing a key of the mapping at `path`. */
  | { readonly kind: 'key'; readonly path: readonly string[]; readonly partial: Span }
  /** Typing the value of `key` in the mapping at `path`. */
  | { readonly kind: 'value'; readonly path: readonly string[]; readonly key: string; readonly partial: Span; readonly quoted: boolean }
  /** Inside `{{ … }}`: `before` is the expression text up to the cursor. */
  | { readonly kind: 'expression'; readonly path: readonly string[]; readonly before: string; readonly partial: Span }
  /** Inside a header string of `settings:`: `before` is the string up to the cursor. */
  | {
      readonly kind: 'header';
      readonly path: readonly string[];
      readonly before: string;
      readonly partial: Span;
      readonly stringStart: number;
    }
  | { readonly kind: 'none' };

export function cursorContext(text: string, offset: number): CursorContext {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const prefix = text.slice(lineStart, offset);
  const lines = text.slice(0, lineStart).split('\n');
  lines.pop();
  const scan = scanLine(prefix);
  if (scan.inComment) return { kind: 'none' };

  const itemMatch = /^(\s*)(-\s+)?/.exec(prefix)!;
  const indent = itemMatch[1]!.length;
  const isItem = itemMatch[2] !== undefined;
  const keyOnLine = keyLine(prefix);
  // The mapping this line belongs to.
  const parentPath = parentKeys(lines, isItem && !keyOnLine ? indent : indent + (isItem ? itemMatch[2]!.length : 0), isItem);

  if (scan.openExpression !== undefined) {
    const before = prefix.slice(scan.openExpression + 2);
    const partialLength = trailingLength(before, WORD_CHAR);
    const path = keyOnLine ? [...parentPath, unquote(keyOnLine.key)] : parentPath;
    return { kind: 'expression', path, before, partial: { start: offset - partialLength, end: offset } };
  }

  // A header string: an item of a settings list (block or flow).
  const inSettingsFlow = keyOnLine && unquote(keyOnLine.key) === 'settings' && prefix.lastIndexOf('[') > prefix.lastIndexOf(']');
  if ((parentPath[parentPath.length - 1] === 'settings' && isItem && !keyOnLine) || inSettingsFlow) {
    if (scan.openQuote !== undefined) {
      const before = prefix.slice(scan.openQuote + 1);
      const partialLength = trailingLength(before, HEADER_CHAR);
      const path = inSettingsFlow ? [...parentPath, 'settings'] : parentPath;
      return {
        kind: 'header',
        path,
        before,
        partial: { start: offset - partialLength, end: offset },
        stringStart: lineStart + scan.openQuote,
      };
    }
    return { kind: 'none' };
  }

  if (keyOnLine) {
    const key = unquote(keyOnLine.key);
    const rest = prefix.slice(keyOnLine.end);
    // A flow mapping on the line: `ticket: { type: str|`.
    const flow = /\{([^{}]*)$/.exec(rest);
    if (flow && !rest.includes('{{')) {
      const inner = flow[1]!;
      const lastItem = inner.slice(inner.lastIndexOf(',') + 1);
      const flowKey = /^\s*([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(lastItem);
      if (flowKey) {
        const partialLength = flowKey[2]!.replace(/^["']/, '').length;
        return {
          kind: 'value',
          path: [...parentPath, key],
          key: flowKey[1]!,
          partial: { start: offset - partialLength, end: offset },
          quoted: /^["']/.test(flowKey[2]!),
        };
      }
      const partialLength = trailingLength(lastItem, WORD_CHAR);
      return { kind: 'key', path: [...parentPath, key], partial: { start: offset - partialLength, end: offset } };
    }
    if (scan.openQuote !== undefined) {
      const partialLength = prefix.length - scan.openQuote - 1;
      return { kind: 'value', path: parentPath, key, partial: { start: offset - partialLength, end: offset }, quoted: true };
    }
    const partialLength = rest.trimStart().length;
    return { kind: 'value', path: parentPath, key, partial: { start: offset - partialLength, end: offset }, quoted: false };
  }

  // A key being typed (no colon yet), or an empty line.
  const word = /^(\s*)(-\s+)?([A-Za-z_][\w-]*)?$/.exec(prefix);
  if (word) {
    const partialLength = word[3]?.length ?? 0;
    return { kind: 'key', path: parentPath, partial: { start: offset - partialLength, end: offset } };
  }
  return { kind: 'none' };
}

/**
 * The keys of the mappings that enclose a line indented by `indent`: each is the nearest line
 * above that is indented less and ends a key. A list item may sit at its key's own indentation.
 */
export function parentKeys(linesAbove: readonly string[], indent: number, isItem = false): string[] {
  const path: string[] = [];
  let limit = indent;
  let allowSame = isItem;
  for (let i = linesAbove.length - 1; i >= 0 && limit > 0; i--) {
    const line = linesAbove[i]!;
    if (/^\s*(#.*)?$/.test(line)) continue;
    const match = keyLine(line);
    const lineIndent = /^\s*/.exec(line)![0].length;
    const keyIndent = match ? match.start : lineIndent;
    const fits = keyIndent < limit || (allowSame && keyIndent === limit && match && /:\s*(#.*)?$/.test(line));
    if (!fits) continue;
    if (match) {
      path.unshift(unquote(match.key));
      limit = keyIndent;
      allowSame = false;
      // A key written after "- " belongs to a list item; the list's own key is above it.
      if (/^\s*-\s/.test(line)) {
        limit = lineIndent;
        allowSame = true;
      }
    } else if (/^\s*-\s/.test(line)) {
      limit = lineIndent;
      allowSame = true;
    } else {
      limit = lineIndent;
    }
  }
  return path;
}

/** A key at the start of a line: as written (quotes kept), where it starts, and where what follows its colon starts. */
export interface KeyOnLine {
  readonly key: string;
  readonly start: number;
  /** After the colon and the one space or tab that follows it, if any. */
  readonly end: number;
}

const SPACE = /\s/;
const WORD_CHAR = /[A-Za-z0-9_-]/;
const HEADER_CHAR = /[^\s:]/;

/**
 * How many characters at the end of `text` match `char`. Counted backwards: a regex such as
 * /[a-z]*$/ tries every start and scans the run from each, quadratic in a long run.
 */
function trailingLength(text: string, char: RegExp): number {
  let start = text.length;
  while (start > 0 && char.test(text[start - 1]!)) start--;
  return text.length - start;
}
const PLAIN_KEY_STOP = /[:#"']/g;

/**
 * A key at the start of a line (after an optional "- "): quoted, or plain without quotes inside,
 * followed by a colon and a space or the end. Read with indexOf rather than one regex: a lazy key
 * followed by `\s*:` scans each run of spaces again from every character before it, and
 * completion reads every line above the cursor (a block scalar may hold a line of 200,000 spaces).
 */
export function keyLine(line: string): KeyOnLine | undefined {
  let at = 0;
  while (at < line.length && SPACE.test(line[at]!)) at++;
  if (line[at] === '-' && at + 1 < line.length && SPACE.test(line[at + 1]!)) {
    at++;
    while (at < line.length && SPACE.test(line[at]!)) at++;
  }
  const start = at;
  const first = line[start];
  if (first === undefined) return undefined;
  let keyEnd: number;
  if (first === '"' || first === "'") {
    keyEnd = line.indexOf(first, start + 1) + 1;
    if (keyEnd === 0) return undefined;
  } else {
    // A plain key: no space, comment, colon, quote or flow character first ("-" only before another character).
    if (first === '-' ? !/^[^\s:#"']/.test(line[start + 1] ?? '') : /[\s#:'"{}[\],]/.test(first)) return undefined;
    PLAIN_KEY_STOP.lastIndex = start + 1;
    const stop = PLAIN_KEY_STOP.exec(line);
    if (stop?.[0] !== ':') return undefined;
    keyEnd = stop.index;
  }
  let colon = keyEnd;
  while (colon < line.length && SPACE.test(line[colon]!)) colon++;
  if (line[colon] !== ':') return undefined;
  const after = colon + 1;
  if (after < line.length && !SPACE.test(line[after]!)) return undefined;
  const key = line.slice(start, keyEnd);
  return { key: first === '"' || first === "'" ? key : key.trimEnd(), start, end: Math.min(after + 1, line.length) };
}

interface LineScan {
  readonly inComment: boolean;
  /** Offset of the opening quote of a string still open at the cursor. */
  readonly openQuote?: number;
  /** Offset of a `{{` not yet closed at the cursor. */
  readonly openExpression?: number;
}

/** Reads a line up to the cursor: open quotes, an open `{{`, a comment. */
function scanLine(prefix: string): LineScan {
  let quote: string | undefined;
  let openQuote: number | undefined;
  let openExpression: number | undefined;
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix[i]!;
    if (openExpression !== undefined) {
      if (c === '}' && prefix[i + 1] === '}') {
        openExpression = undefined;
        i++;
      }
      continue;
    }
    if (c === '{' && prefix[i + 1] === '{') {
      openExpression = i;
      i++;
      continue;
    }
    if (quote) {
      if (quote === '"' && c === '\\') i++;
      else if (c === quote) {
        if (quote === "'" && prefix[i + 1] === "'") i++;
        else {
          quote = undefined;
          openQuote = undefined;
        }
      }
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      openQuote = i;
    } else if (c === '#' && (i === 0 || /\s/.test(prefix[i - 1]!))) {
      return { inComment: true };
    }
  }
  return {
    inComment: false,
    ...(openQuote !== undefined ? { openQuote } : {}),
    ...(openExpression !== undefined ? { openExpression } : {}),
  };
}

function unquote(key: string): string {
  return /^(["']).*\1$/.test(key) ? key.slice(1, -1) : key.trim();
}
