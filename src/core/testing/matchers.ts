// The expectation vocabulary of agent tests. A plain value is expected as it is: scalars equal,
// lists of the same length matched item by item, mappings with the same keys matched key by key
// (so operators may sit anywhere inside). A mapping whose keys all start with `$` is an operator
// set, every operator of which must hold. Expectations are compiled from the YAML nodes of the
// test file, so that each mismatch points at the expectation's own place in the file.
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import type { Span } from '../document/problems';
import { closestMatch } from '../document/suggest';
import { entries, spanOf } from '../document/yamlAst';
import { MATCH_TIME_LIMIT_MS, PatternTime, testPattern } from './regexTest';
import { MATCHER_OPERATORS, VALUE_TYPES } from './matcherVocabulary';
import type { ValueType } from './matcherVocabulary';

const OPERATOR_NAMES = Object.keys(MATCHER_OPERATORS);

export type Matcher =
  | { readonly kind: 'equal'; readonly value: unknown; readonly span: Span }
  | { readonly kind: 'list'; readonly items: readonly Matcher[]; readonly span: Span }
  | { readonly kind: 'mapping'; readonly keys: ReadonlyMap<string, Matcher>; readonly subset: boolean; readonly span: Span }
  | { readonly kind: 'operators'; readonly operators: readonly OperatorCheck[]; readonly span: Span };

type OperatorCheck =
  | { readonly op: '$eq'; readonly value: unknown; readonly span: Span }
  | { readonly op: '$subset' | '$not'; readonly matcher: Matcher; readonly span: Span }
  | { readonly op: '$contains'; readonly value: Matcher; readonly span: Span }
  | { readonly op: '$match'; readonly regex: RegExp; readonly span: Span }
  | { readonly op: '$type'; readonly type: ValueType; readonly span: Span }
  | { readonly op: '$length'; readonly matcher: Matcher; readonly span: Span }
  | { readonly op: '$gt' | '$gte' | '$lt' | '$lte'; readonly bound: number; readonly span: Span }
  | { readonly op: '$absent'; readonly absent: boolean; readonly span: Span };

/** A problem of the expectation itself (an unknown operator, a bad regular expression). */
export type ReportProblem = (span: Span, message: string) => void;

/** One expectation that did not hold. */
export interface Mismatch {
  /** Where in the actual value, as `report`, `body.items[2].id`. */
  readonly path: string;
  /** What was expected, in words. */
  readonly expected: string;
  readonly actual: unknown;
  /** The expected value itself, when it is a plain value (for a diff). */
  readonly expectedValue?: unknown;
  /** The expectation's place in the test file. */
  readonly span: Span;
}

/** Compiles the expectation at node; problems in it are reported and it then matches nothing. */
export function compileMatcher(node: YamlNode | null | undefined, report: ReportProblem): Matcher {
  const span = spanOf(node);
  if (isSeq(node)) return { kind: 'list', items: node.items.map((item) => compileMatcher(item as YamlNode, report)), span };
  if (isMap(node)) {
    const pairs = [...entries(node)];
    const operators = pairs.filter((pair) => pair.key.startsWith('$'));
    if (operators.length === 0) {
      return { kind: 'mapping', keys: new Map(pairs.map((pair) => [pair.key, compileMatcher(pair.value, report)])), subset: false, span };
    }
    if (operators.length !== pairs.length) {
      report(
        span,
        'This mapping mixes operators ($…) with plain keys: put the operators in a mapping of their own under the key they check, or write the literal value under $eq.',
      );
    }
    return {
      kind: 'operators',
      operators: operators.map((pair) => compileOperator(pair.key, pair.value, spanOf(pair.keyNode), report)),
      span,
    };
  }
  return { kind: 'equal', value: isScalar(node) ? node.toJSON() : (node?.toJSON() ?? null), span };
}

function compileOperator(op: string, node: YamlNode | null, keySpan: Span, report: ReportProblem): OperatorCheck {
  const span = spanOf(node, keySpan);
  const value: unknown = node?.toJSON() ?? null;
  const never: OperatorCheck = { op: '$absent', absent: true, span };
  switch (op) {
    case '$eq':
      return { op, value, span };
    case '$subset': {
      const matcher = compileMatcher(node, report);
      if (matcher.kind === 'mapping' || matcher.kind === 'list') return { op, matcher: asSubset(matcher), span };
      report(span, '$subset takes a mapping (or a list) of the keys the value must have.');
      return never;
    }
    case '$not':
      return { op, matcher: compileMatcher(node, report), span };
    case '$contains':
      return { op, value: compileMatcher(node, report), span };
    case '$match': {
      if (typeof value !== 'string') {
        report(span, '$match takes a regular expression as text, like "^Sunny" or "/sunny/i".');
        return never;
      }
      const literal = /^\/(.*)\/([a-z]*)$/s.exec(value);
      try {
        return { op, regex: literal ? new RegExp(literal[1] as string, literal[2]) : new RegExp(value), span };
      } catch (error) {
        report(span, `$match: ${(error as Error).message}. Write a JavaScript regular expression, like "^Sunny" or "/sunny/i".`);
        return never;
      }
    }
    case '$type':
      if (typeof value === 'string' && (VALUE_TYPES as readonly string[]).includes(value)) return { op, type: value as ValueType, span };
      report(
        span,
        `$type takes one of ${VALUE_TYPES.join(', ')}${typeof value === 'string' && closestMatch(value, VALUE_TYPES) ? ` (did you mean "${closestMatch(value, VALUE_TYPES)}"?)` : ''}.`,
      );
      return never;
    case '$length': {
      const matcher = compileMatcher(node, report);
      if (matcher.kind === 'operators' || (matcher.kind === 'equal' && Number.isInteger(matcher.value) && (matcher.value as number) >= 0))
        return { op, matcher, span };
      report(span, '$length takes a whole number, or a matcher such as { $gte: 1 }.');
      return never;
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      if (typeof value === 'number' && Number.isFinite(value)) return { op, bound: value, span };
      report(span, `${op} takes a number.`);
      return never;
    case '$absent':
      if (typeof value === 'boolean') return { op, absent: value, span };
      report(span, '$absent takes true (the value must be absent) or false (it must be present).');
      return never;
    default: {
      const suggestion = closestMatch(op, OPERATOR_NAMES);
      report(
        keySpan,
        `"${op}" is not an operator${suggestion ? `; did you mean "${suggestion}"?` : ''}. Operators: ${OPERATOR_NAMES.join(', ')}. To expect a key that starts with $, write the value under $eq.`,
      );
      return never;
    }
  }
}

function asSubset(matcher: Matcher): Matcher {
  if (matcher.kind === 'mapping')
    return { ...matcher, subset: true, keys: new Map([...matcher.keys].map(([key, inner]) => [key, asSubset(inner)])) };
  if (matcher.kind === 'list') return { ...matcher, items: matcher.items.map(asSubset) };
  return matcher;
}

/** The mismatches of actual (undefined: absent) against the matcher, at most `limit` of them. */
export function matchValue(matcher: Matcher, actual: unknown, path = '', limit = 50): Mismatch[] {
  // The $match tests of one expectation share one time limit, however many items they test.
  const outermost = patternTime === undefined;
  if (outermost) patternTime = new PatternTime(MATCH_TIME_LIMIT_MS);
  try {
    return matchWithin(matcher, actual, path, limit);
  } catch (error) {
    // A test that was stopped is a failure wherever it stands: never "no match" under $not.
    if (!outermost || !(error instanceof PatternStopped)) throw error;
    return [{ path: error.path, expected: error.expected, actual: error.actual, span: error.span }];
  } finally {
    if (outermost) patternTime = undefined;
  }
}

/** The time limit of the $match tests of the expectation being checked (set by the outermost matchValue). */
let patternTime: PatternTime | undefined;

/** A $match test stopped at the time limit: it ends the whole expectation's check. */
class PatternStopped extends Error {
  constructor(
    readonly path: string,
    readonly expected: string,
    readonly actual: unknown,
    readonly span: Span,
  ) {
    super(expected);
  }
}

function matchWithin(matcher: Matcher, actual: unknown, path: string, limit: number): Mismatch[] {
  const found: Mismatch[] = [];
  collect(matcher, actual, path, found, limit);
  return found;
}

function collect(matcher: Matcher, actual: unknown, path: string, found: Mismatch[], limit: number): void {
  if (found.length >= limit) return;
  switch (matcher.kind) {
    case 'equal':
      if (!deepEqual(matcher.value, actual))
        found.push({ path, expected: JSON.stringify(matcher.value), actual, expectedValue: matcher.value, span: matcher.span });
      return;
    case 'list':
      if (!Array.isArray(actual) || actual.length !== matcher.items.length) {
        found.push({
          path,
          expected: `a list of ${matcher.items.length} item${matcher.items.length === 1 ? '' : 's'}`,
          actual,
          expectedValue: plainValueOf(matcher),
          span: matcher.span,
        });
        return;
      }
      matcher.items.forEach((item, index) => collect(item, actual[index], `${path}[${index}]`, found, limit));
      return;
    case 'mapping': {
      if (!isPlainObject(actual)) {
        found.push({ path, expected: 'a mapping', actual, expectedValue: plainValueOf(matcher), span: matcher.span });
        return;
      }
      if (!matcher.subset) {
        const extra = Object.keys(actual).filter((key) => !matcher.keys.has(key));
        if (extra.length > 0)
          found.push({
            path,
            expected: `no other keys (found ${listed(extra)}; use $subset to allow them)`,
            actual,
            expectedValue: plainValueOf(matcher),
            span: matcher.span,
          });
      }
      for (const [key, inner] of matcher.keys)
        collect(inner, Object.hasOwn(actual, key) ? actual[key] : undefined, joinPath(path, key), found, limit);
      return;
    }
    case 'operators':
      for (const check of matcher.operators) checkOperator(check, actual, path, found, limit);
  }
}

function checkOperator(check: OperatorCheck, actual: unknown, path: string, found: Mismatch[], limit: number): void {
  const fail = (expected: string, extra: Partial<Mismatch> = {}): void => {
    if (found.length < limit) found.push({ path, expected, actual, span: check.span, ...extra });
  };
  switch (check.op) {
    case '$eq':
      if (!deepEqual(check.value, actual)) fail(JSON.stringify(check.value), { expectedValue: check.value });
      return;
    case '$subset':
      collect(check.matcher, actual, path, found, limit);
      return;
    case '$not':
      if (matchWithin(check.matcher, actual, path, 1).length === 0) fail(`not ${describeMatcher(check.matcher)}`);
      return;
    case '$contains':
      if (typeof actual === 'string' && check.value.kind === 'equal' && typeof check.value.value === 'string') {
        if (!actual.includes(check.value.value)) fail(`text containing ${JSON.stringify(check.value.value)}`);
      } else if (Array.isArray(actual)) {
        if (!actual.some((item) => matchWithin(check.value, item, path, 1).length === 0))
          fail(`a list with an item that is ${describeMatcher(check.value)}`);
      } else {
        fail(
          check.value.kind === 'equal' && typeof check.value.value === 'string'
            ? `text containing ${JSON.stringify(check.value.value)}`
            : `a list with an item that is ${describeMatcher(check.value)}`,
        );
      }
      return;
    case '$match': {
      const matched = typeof actual === 'string' ? testPattern(check.regex, actual, patternTime) : false;
      if (matched === 'stopped')
        throw new PatternStopped(
          path,
          `text matching ${String(check.regex)}, but testing it was stopped after ${MATCH_TIME_LIMIT_MS / 1000} s: the pattern backtracks without end on this text (a repeat inside a repeat, like (a+)+); write it without nesting repeats`,
          actual,
          check.span,
        );
      if (!matched) fail(`text matching ${String(check.regex)}`);
      return;
    }
    case '$type':
      if (typeOf(actual) !== check.type && !(check.type === 'number' && typeOf(actual) === 'integer'))
        fail(`a value of type ${check.type}`);
      return;
    case '$length': {
      const length = typeof actual === 'string' || Array.isArray(actual) ? actual.length : undefined;
      if (length === undefined) fail(`text or a list whose length is ${describeMatcher(check.matcher)}`);
      else if (matchWithin(check.matcher, length, path, 1).length > 0) fail(`a length ${describeMatcher(check.matcher)} (it is ${length})`);
      return;
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const holds =
        typeof actual === 'number' &&
        { $gt: actual > check.bound, $gte: actual >= check.bound, $lt: actual < check.bound, $lte: actual <= check.bound }[check.op];
      if (!holds) fail(`a number ${COMPARISON_WORDS[check.op]} ${check.bound}`);
      return;
    }
    case '$absent':
      if (check.absent && actual !== undefined) fail('no value (absent)');
      if (!check.absent && actual === undefined) fail('a value (present)');
  }
}

/** The most keys a message names; the rest are counted. */
const MAX_KEYS_LISTED = 10;

/** Keys for a message: the first few, quoted, then how many more (an answer may have thousands). */
function listed(keys: readonly string[]): string {
  const named = keys
    .slice(0, MAX_KEYS_LISTED)
    .map((key) => JSON.stringify(key))
    .join(', ');
  return keys.length > MAX_KEYS_LISTED ? `${named} and ${keys.length - MAX_KEYS_LISTED} more` : named;
}

const COMPARISON_WORDS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** An expectation in words, for messages. */
export function describeMatcher(matcher: Matcher): string {
  switch (matcher.kind) {
    case 'equal':
      return `equal to ${JSON.stringify(matcher.value)}`;
    case 'list':
      return `a list of ${matcher.items.length} matching items`;
    case 'mapping':
      return matcher.keys.size === 0
        ? 'an empty mapping'
        : `a mapping with ${matcher.subset ? 'at least' : 'exactly'} the keys ${[...matcher.keys.keys()].map((key) => JSON.stringify(key)).join(', ')}`;
    case 'operators':
      return matcher.operators
        .map(
          (check) =>
            `${check.op} ${'bound' in check ? check.bound : 'regex' in check ? String(check.regex) : 'type' in check ? check.type : 'absent' in check ? String(check.absent) : 'value' in check && check.op === '$eq' ? JSON.stringify(check.value) : '…'}`,
        )
        .join(' and ');
  }
}

/** The plain value a matcher without operators stands for (for diffs); undefined when it has operators. */
export function plainValueOf(matcher: Matcher): unknown {
  switch (matcher.kind) {
    case 'equal':
      return matcher.value;
    case 'list': {
      const items = matcher.items.map(plainValueOf);
      return items.includes(undefined) ? undefined : items;
    }
    case 'mapping': {
      const result: Record<string, unknown> = {};
      for (const [key, inner] of matcher.keys) {
        const value = plainValueOf(inner);
        if (value === undefined) return undefined;
        result[key] = value;
      }
      return result;
    }
    case 'operators':
      return undefined;
  }
}

/**
 * A value as an expectation that it equals (what --update and "New Test Case from This Execution"
 * write): as it is, but for every mapping with a key starting with `$`, which is put under $eq, so
 * that its keys are read literally rather than as operators.
 */
export function literalExpectation(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(literalExpectation);
  if (!isPlainObject(value)) return value;
  if (Object.keys(value).some((key) => key.startsWith('$'))) return { $eq: value };
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, literalExpectation(item)]));
}

/** Outputs, by name, each as an expectation that it equals (see literalExpectation). */
export function literalOutputs(outputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(outputs).map(([name, value]) => [name, literalExpectation(value)]));
}

export function typeOf(value: unknown): ValueType | 'absent' {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string' || typeof value === 'boolean') return typeof value as ValueType;
  return 'object';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON equality: same type, same items in order, same keys in any order. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

function joinPath(path: string, key: string): string {
  const part = /^[A-Za-z_][\w-]*$/.test(key) ? key : JSON.stringify(key);
  return path === '' ? part : /^[A-Za-z_]/.test(part) ? `${path}.${part}` : `${path}[${part}]`;
}
