// What the debugger evaluates against a paused execution, all through the engine's one evaluator
// (engine/evaluate.ts): the Debug Console's and Watch's expressions (`{{ … }}` text, or a bare path
// such as `nodes.lookup.body.items[0].id`), breakpoint conditions, hit counts, logpoint messages,
// and the values typed in Set Value.
import { compileString, evaluateString, ExpressionError } from '../engine/evaluate';
import type { Scope } from '../engine/evaluate';
import { errorMessage } from '../errors';
import { parseJson } from '../json';

/** Longest expression, condition or message read (longer ones are refused, not scanned). */
const MAX_EXPRESSION_CHARS = 10_000;

/** The value of `{{ … }}` text, or of a bare path. Throws an Error saying what is wrong. */
export function evaluateDebugExpression(text: string, scope: Scope, field = 'the expression'): unknown {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error('Type a reference such as nodes.lookup.body or {{ inputs.name }}.');
  if (trimmed.length > MAX_EXPRESSION_CHARS) throw new Error(`The expression is longer than ${MAX_EXPRESSION_CHARS} characters.`);
  const source = trimmed.includes('{{') ? trimmed : `{{ ${trimmed} }}`;
  try {
    return evaluateString(compileString(source), scope, { field });
  } catch (error) {
    if (error instanceof ExpressionError) throw new Error(`${error.expression} ${error.reason}`);
    throw error;
  }
}

/**
 * The first comparison operator in a condition, with the text before and after it trimmed. Found by
 * a search, not by /^(.*?)\s*(==|…)\s*(.*)$/: that lazy start scans each run of spaces again from
 * every character before it, minutes on a long condition, evaluated on every hit.
 */
export function comparison(condition: string): readonly [left: string, operator: string, right: string] | undefined {
  const at = /==|!=|[<>]/.exec(condition);
  if (!at) return undefined;
  const operator = /^(?:==|!=|>=|<=|>|<)/.exec(condition.slice(at.index, at.index + 2))![0];
  return [condition.slice(0, at.index).trimEnd(), operator, condition.slice(at.index + operator.length).trimStart()];
}

/**
 * Whether a breakpoint's condition holds: a reference (truthy: not null, false, 0 or ""), or a
 * reference compared with ==, !=, <, <=, >, >= to a JSON value, a bare word, or another reference.
 */
export function conditionHolds(condition: string, scope: Scope): { readonly holds: boolean } | { readonly error: string } {
  try {
    const compared = comparison(condition);
    if (!compared || !outsideBraces(compared[0])) return { holds: truthy(evaluateDebugExpression(condition, scope, 'the condition')) };
    const [left, operator, right] = compared;
    const a = evaluateDebugExpression(left, scope, 'the condition');
    const b = comparedValue(right, scope);
    switch (operator) {
      case '==':
        return { holds: same(a, b) };
      case '!=':
        return { holds: !same(a, b) };
      default: {
        if (!((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string')))
          return { error: `${operator} compares two numbers or two texts; here: ${describe(a)} and ${describe(b)}.` };
        return { holds: operator === '<' ? a < b : operator === '<=' ? a <= b : operator === '>' ? a > b : a >= b };
      }
    }
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

/** Whether the text before an operator closes each `{{` it opens (a key in brackets may hold an operator). */
function outsideBraces(before: string): boolean {
  return before.split('{{').length === before.split('}}').length;
}

function comparedValue(text: string, scope: Scope): unknown {
  const trimmed = text.trim();
  if (trimmed.includes('{{') || /^(inputs|nodes|secrets)[.[]/.test(trimmed))
    return evaluateDebugExpression(trimmed, scope, 'the condition');
  try {
    return parseJson(trimmed);
  } catch {
    // A bare word compares as text: status == done.
    return trimmed.replace(/^'(.*)'$/s, '$1');
  }
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) return JSON.stringify(a) === JSON.stringify(b);
  // "5" == 5: inputs typed in a launch configuration are often text.
  if ((typeof a === 'number' && typeof b === 'string') || (typeof a === 'string' && typeof b === 'number')) return String(a) === String(b);
  return false;
}

function truthy(value: unknown): boolean {
  return !(value === null || value === undefined || value === false || value === 0 || value === '');
}

function describe(value: unknown): string {
  return value === null || value === undefined ? 'null' : typeof value;
}

/**
 * A hit count condition: "5" or ">= 5" (stop from the 5th hit on), "== 5" (only the 5th), "> 5",
 * "% 5" (every 5th). An Error for anything else.
 */
export function parseHitCondition(text: string): (hits: number) => boolean {
  const match = /^\s*(>=|==|>|%)?\s*(\d+)\s*$/.exec(text);
  if (!match) throw new Error(`Hit count "${text}" is not understood: write a number (5), >= 5, == 5, > 5 or % 5.`);
  const count = Number(match[2]);
  switch (match[1]) {
    case '==':
      return (hits) => hits === count;
    case '>':
      return (hits) => hits > count;
    case '%':
      return (hits) => count > 0 && hits % count === 0;
    default:
      return (hits) => hits >= count;
  }
}

/** A logpoint's message with each `{{ … }}` filled in; an expression that fails says why in its place. */
export function renderLogMessage(message: string, scope: Scope): string {
  const text = message.length > MAX_EXPRESSION_CHARS ? message.slice(0, MAX_EXPRESSION_CHARS) : message;
  const compiled = compileString(text);
  let rendered = '';
  let at = 0;
  for (const expression of compiled.expressions) {
    rendered += text.slice(at, expression.start);
    try {
      const value = evaluateString(compileString(text.slice(expression.start, expression.end)), scope, { field: 'the logpoint' });
      rendered += typeof value === 'string' ? value : JSON.stringify(value);
    } catch (error) {
      rendered += `<${error instanceof ExpressionError ? error.reason : errorMessage(error)}>`;
    }
    at = expression.end;
  }
  return rendered + text.slice(at);
}

/**
 * A value typed in Set Value: JSON when it reads as JSON (42, true, {"a": 1}, "text"), else the
 * text itself, with its `{{ … }}` filled in from the execution (`Bearer {{ secrets.TOKEN }}`).
 */
export function typedDebugValue(text: string, scope: Scope): unknown {
  if (text.length > 10 * 1024 * 1024) throw new Error('The value is longer than 10 MB.');
  if (text.includes('{{')) {
    try {
      return evaluateString(compileString(text), scope, { field: 'the value' });
    } catch (error) {
      if (error instanceof ExpressionError) throw new Error(`${error.expression} ${error.reason}`);
      throw error;
    }
  }
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}
