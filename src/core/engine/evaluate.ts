// Evaluation of `{{ … }}` expressions. A string that is exactly one expression keeps the value's
// type; inside a longer string the value is rendered as text (objects as JSON). A reference that
// points at nothing is an error naming where it is written, the expression and what is missing.
import { isSingleExpression, scanExpressions } from '../document/expressions';
import type { Expression, PathPart, Reference } from '../document/expressions';
import { FileValue, kindOf, renderText } from './values';

/** A string of the agent file, scanned once when the agent is loaded. */
export interface CompiledString {
  readonly text: string;
  readonly expressions: readonly Expression[];
  /** Exactly one expression (surrounding white space aside): evaluates to the value itself. */
  readonly single: boolean;
}

export function compileString(text: string): CompiledString {
  const expressions = scanExpressions(text);
  return { text, expressions, single: isSingleExpression(text, expressions) };
}

/** What a node produced: `{{ nodes.ID.body }}`, and for API nodes `.status` and `.headers`. */
export interface NodeResult {
  readonly body: unknown;
  readonly status?: number;
  /** Lower-case names. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Scope {
  /** Every declared input: its value, or null when it was not given and has no default. */
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly nodes: ReadonlyMap<string, NodeResult>;
  readonly secrets: ReadonlyMap<string, string>;
}

/** Where an evaluated string is written: a node's field, or an output. */
export interface Where {
  readonly node?: string;
  readonly output?: string;
  /** e.g. "url", "settings (Authorization)", "body.customer", "text", "from". */
  readonly field: string;
}

export function describeWhere(where: Where): string {
  if (where.node !== undefined) return `node "${where.node}", ${where.field}`;
  if (where.output !== undefined) return `output "${where.output}"`;
  return where.field;
}

export class ExpressionError extends Error {
  constructor(
    readonly where: Where,
    /** The expression as written, e.g. "{{ nodes.lookup.body.name }}". */
    readonly expression: string,
    /** What is wrong with it, e.g. "points at nothing: …". */
    readonly reason: string,
  ) {
    super(`In ${describeWhere(where)}: ${expression} ${reason}`);
    this.name = 'ExpressionError';
  }
}

/** The value of a string: the value itself for a single expression, else the text with each expression filled in. */
export function evaluateString(compiled: CompiledString, scope: Scope, where: Where): unknown {
  if (compiled.expressions.length === 0) return compiled.text;
  if (compiled.single) return evaluateExpression(compiled.expressions[0]!, compiled.text, scope, where);
  return renderString(compiled, scope, where, renderText);
}

/** The text of a string with each expression's value passed through `render` (e.g. to encode it for a URL). */
export function renderString(
  compiled: CompiledString,
  scope: Scope,
  where: Where,
  render: (value: unknown, expression: Expression) => string,
): string {
  let text = '';
  let at = 0;
  for (const expression of compiled.expressions) {
    text += compiled.text.slice(at, expression.start) + render(evaluateExpression(expression, compiled.text, scope, where), expression);
    at = expression.end;
  }
  return text + compiled.text.slice(at);
}

function evaluateExpression(expression: Expression, text: string, scope: Scope, where: Where): unknown {
  const written = text.slice(expression.start, expression.end);
  if (!expression.reference) throw new ExpressionError(where, written, `cannot be read: ${expression.error ?? 'it is not a reference'}`);
  return resolveReference(expression.reference, scope, (reason) => new ExpressionError(where, written, reason));
}

function resolveReference(reference: Reference, scope: Scope, fail: (reason: string) => ExpressionError): unknown {
  const [first, ...rest] = reference.path;
  if (!first || typeof first.name !== 'string') throw fail(`needs a name after "${reference.root}".`);
  const name = first.name;
  switch (reference.root) {
    case 'inputs': {
      if (!Object.hasOwn(scope.inputs, name)) throw fail(`points at nothing: the agent has no input "${name}".`);
      return walk(scope.inputs[name], rest, `inputs.${name}`, fail);
    }
    case 'secrets': {
      const secret = scope.secrets.get(name);
      if (secret === undefined) throw fail(`points at nothing: secret "${name}" was not provided.`);
      if (rest.length > 0) throw fail(`points at nothing: a secret is text, it has no fields.`);
      return secret;
    }
    case 'nodes': {
      const result = scope.nodes.get(name);
      if (!result) throw fail(`points at nothing: node "${name}" has no result (it has not run).`);
      const [field, ...deeper] = rest;
      if (!field) throw fail(`does not say which part of node "${name}" to use: write nodes.${name}.body, .status or .headers.`);
      if (field.name === 'body') return walk(result.body, deeper, `nodes.${name}.body`, fail);
      if (field.name === 'status') {
        if (result.status === undefined) throw fail(`points at nothing: node "${name}" has no HTTP status (only API nodes do).`);
        return walk(result.status, deeper, `nodes.${name}.status`, fail);
      }
      if (field.name === 'headers') {
        if (!result.headers) throw fail(`points at nothing: node "${name}" has no response headers (only API nodes do).`);
        const [header, ...afterHeader] = deeper;
        if (!header) return walk(result.headers, [], `nodes.${name}.headers`, fail);
        // Header names are case-insensitive; the result holds them in lower case.
        const lower = String(header.name).toLowerCase();
        if (!Object.hasOwn(result.headers, lower)) {
          throw fail(
            `points at nothing: the response of node "${name}" has no "${lower}" header${listKeys(result.headers, 'its headers')}.`,
          );
        }
        return walk(result.headers[lower], afterHeader, `nodes.${name}.headers.${lower}`, fail);
      }
      throw fail(`points at nothing: a node result has body, status and headers, not "${String(field.name)}".`);
    }
    default:
      throw fail(`points at nothing: expressions start with inputs, nodes or secrets, not "${reference.root}".`);
  }
}

/** Follows `.field`, `[0]` and `["key"]` into a value. */
function walk(value: unknown, path: readonly PathPart[], described: string, fail: (reason: string) => ExpressionError): unknown {
  let current = value;
  let at = described;
  for (const part of path) {
    const step =
      typeof part.name === 'number'
        ? `[${part.name}]`
        : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(part.name)
          ? `.${part.name}`
          : `[${JSON.stringify(part.name)}]`;
    if (Array.isArray(current)) {
      if (typeof part.name !== 'number')
        throw fail(`points at nothing: ${at} is ${kindOf(current)}, so it has no field "${part.name}"; use an index such as ${at}[0].`);
      if (part.name >= current.length) throw fail(`points at nothing: ${at} is ${kindOf(current)}, so there is no ${step}.`);
      current = current[part.name];
    } else if (current !== null && typeof current === 'object') {
      const key = String(part.name);
      // Own fields only: nothing of the prototype (or a file's stored path) is reachable.
      if (!Object.hasOwn(current, key)) throw fail(`points at nothing: ${at} has no "${key}"${listKeys(current, 'it has')}.`);
      current = (current as Record<string, unknown>)[key];
    } else {
      throw fail(
        `points at nothing: ${at} is ${kindOf(current)}, so it has no ${typeof part.name === 'number' ? `item ${step}` : `field "${part.name}"`}.`,
      );
    }
    at += step;
  }
  return current;
}

function listKeys(value: object, lead: string): string {
  const keys = Object.keys(value instanceof FileValue ? value.toJSON() : value);
  if (keys.length === 0) return ' (it is empty)';
  const shown = keys
    .slice(0, 12)
    .map((key) => `"${key}"`)
    .join(', ');
  return ` (${lead}: ${shown}${keys.length > 12 ? `, … ${keys.length - 12} more` : ''})`;
}
