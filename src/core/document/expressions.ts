// The expression language: `{{ root.path }}` references inside strings. Roots are `inputs`,
// `nodes` and `secrets`; paths are `.name` segments and `[index]` / `["key"]` subscripts.
import { BoundedCache } from '../boundedCache';

export const EXPRESSION_ROOTS = ['inputs', 'nodes', 'secrets'] as const;
export type ExpressionRoot = (typeof EXPRESSION_ROOTS)[number];

/** The fields every node result has: `{{ nodes.ID.body }}`, `.status`, `.headers`. */
export const NODE_RESULT_FIELDS = ['body', 'status', 'headers'] as const;

/** Input names and node ids. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Secret names are also environment variable suffixes (AGENT_SECRET_<NAME>). */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface PathPart {
  readonly name: string | number;
  /** Offsets of the part within the string that holds the expression. */
  readonly start: number;
  readonly end: number;
}

export interface Reference {
  readonly root: string;
  readonly rootStart: number;
  readonly rootEnd: number;
  readonly path: readonly PathPart[];
}

export interface Expression {
  /** Offsets of `{{` and just past `}}` within the string. */
  readonly start: number;
  readonly end: number;
  /** The text between the braces, untrimmed. */
  readonly inner: string;
  readonly reference?: Reference;
  /** Why the expression cannot be read, when it cannot. */
  readonly error?: string;
}

/** Finds every `{{ … }}` in a string. An unclosed `{{` is reported as an expression with an error. */
// The same strings ("{{ inputs.query }}", a URL) are scanned by several checks and repeat across
// nodes: results are kept for a bounded number of recent strings. Callers treat them as read-only.
// At most 4,096 strings and 4 M characters of them (several times the largest agent file).
const scanCache = new BoundedCache<Expression[]>(4096, 4 * 1024 * 1024);

export function scanExpressions(value: string): Expression[] {
  if (!value.includes('{{')) return [];
  const cached = scanCache.get(value);
  if (cached) return cached;
  const found = scanUncached(value);
  scanCache.set(value, found);
  return found;
}

function scanUncached(value: string): Expression[] {
  const found: Expression[] = [];
  let from = 0;
  // The next "}}" is searched again only once passed: many "{{" before one "}}" (or none) stay linear.
  let close = -2;
  for (;;) {
    const open = value.indexOf('{{', from);
    if (open === -1) break;
    if (close !== -1 && close < open + 2) close = value.indexOf('}}', open + 2);
    const nextOpen = value.indexOf('{{', open + 2);
    if (close === -1 || (nextOpen !== -1 && nextOpen < close)) {
      const end = nextOpen === -1 ? value.length : nextOpen;
      found.push({
        start: open,
        end,
        inner: value.slice(open + 2, end),
        error: `"{{" has no closing "}}". Close the expression: {{ inputs.NAME }}.`,
      });
      from = end;
      continue;
    }
    const inner = value.slice(open + 2, close);
    found.push(parseInner(inner, open, close + 2));
    from = close + 2;
  }
  return found;
}

/** True when the string is exactly one expression (its value keeps its type when evaluated). */
export function isSingleExpression(value: string, expressions = scanExpressions(value)): boolean {
  const only = expressions.length === 1 ? expressions[0] : undefined;
  return !!only && value.slice(0, only.start).trim() === '' && value.slice(only.end).trim() === '';
}

/** Replaces each expression with `fill` repeated to the same length, keeping every offset. */
export function maskExpressions(value: string, expressions: readonly Expression[], fill = 'x'): string {
  let masked = '';
  let at = 0;
  for (const expression of expressions) {
    masked += value.slice(at, expression.start) + fill.repeat(expression.end - expression.start);
    at = expression.end;
  }
  return masked + value.slice(at);
}

/** True for the characters of a name segment: [A-Za-z0-9_-] (by code: this runs on every character). */
function isSegmentCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 45;
}

/** White space as /\s/ has it, for the characters an expression's text holds. */
function isSpaceCode(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(String.fromCharCode(code)));
}

/** An expression's text for a message: trimmed, and cut short (a hostile one can be megabytes). */
function shown(text: string): string {
  const trimmed = text.length > 200 ? text.slice(0, 200).trim() : text.trim();
  return trimmed.length > 60 ? `${trimmed.slice(0, 57)}…` : trimmed;
}

function parseInner(inner: string, start: number, end: number): Expression {
  const base = start + 2;
  let i = 0;
  const skipSpace = (): void => {
    while (i < inner.length && isSpaceCode(inner.charCodeAt(i))) i++;
  };
  const fail = (error: string): Expression => ({ start, end, inner, error });
  skipSpace();
  if (i === inner.length)
    return fail('The expression is empty. Write a reference such as {{ inputs.NAME }}, {{ nodes.ID.body }} or {{ secrets.NAME }}.');
  const rootStart = i;
  while (i < inner.length && isSegmentCode(inner.charCodeAt(i))) i++;
  if (i === rootStart)
    return fail(`"${shown(inner)}" is not a reference. Write {{ inputs.NAME }}, {{ nodes.ID.body }} or {{ secrets.NAME }}.`);
  const root = inner.slice(rootStart, i);
  const path: PathPart[] = [];
  while (i < inner.length) {
    const c = inner[i] as string;
    if (c === '.') {
      i++;
      const segmentStart = i;
      while (i < inner.length && isSegmentCode(inner.charCodeAt(i))) i++;
      if (i === segmentStart) return fail(`A name is missing after "." in "${shown(inner)}".`);
      path.push({ name: inner.slice(segmentStart, i), start: base + segmentStart, end: base + i });
    } else if (c === '[') {
      const close = inner.indexOf(']', i);
      if (close === -1) return fail(`"[" has no closing "]" in "${shown(inner)}".`);
      const subscript = inner.slice(i + 1, close).trim();
      let name: string | number;
      if (/^\d+$/.test(subscript)) name = Number(subscript);
      else if (/^"[^"]*"$|^'[^']*'$/.test(subscript)) name = subscript.slice(1, -1);
      else return fail(`"[${shown(subscript)}]" is not an index or a quoted key; write [0] or ["key"].`);
      path.push({ name, start: base + i, end: base + close + 1 });
      i = close + 1;
    } else if (isSpaceCode(inner.charCodeAt(i))) {
      skipSpace();
      if (i < inner.length)
        return fail(`Unexpected "${shown(inner.slice(i))}" after the reference in "${shown(inner)}"; an expression holds one reference.`);
    } else {
      return fail(`Unexpected "${c}" in "${shown(inner)}"; references are written like nodes.ID.body.field or inputs.NAME.`);
    }
  }
  return { start, end, inner, reference: { root, rootStart: base + rootStart, rootEnd: base + rootStart + root.length, path } };
}
