// Small helpers over the `yaml` package's AST: spans, lookups by path, and mapping offsets inside a
// scalar's value back to the source text.
import { isAlias, isMap, isPair, isScalar, isSeq, Scalar } from 'yaml';
import type { Node as YamlNode, Pair, YAMLMap } from 'yaml';
import type { Span } from './problems';

export type PathSegment = string | number;

/** The span a node covers in the source (value only, without trailing comments). */
export function spanOf(node: YamlNode | null | undefined, fallback: Span = { start: 0, end: 0 }): Span {
  const range = node?.range;
  return range ? { start: range[0], end: range[1] } : fallback;
}

/** The pairs of a mapping whose keys are scalars, with the key as text. */
export function* entries(map: YAMLMap): Iterable<{ key: string; keyNode: Scalar; pair: Pair; value: YamlNode | null }> {
  for (const pair of map.items) {
    if (isPair(pair) && isScalar(pair.key)) {
      yield { key: String(pair.key.value), keyNode: pair.key, pair, value: (pair.value as YamlNode | null) ?? null };
    }
  }
}

export function findPair(map: YAMLMap, key: string): Pair | undefined {
  for (const pair of map.items) {
    if (isPair(pair) && isScalar(pair.key) && String(pair.key.value) === key) return pair;
  }
  return undefined;
}

/** The value node under a key, or undefined. */
export function getValue(map: YAMLMap, key: string): YamlNode | undefined {
  const value = findPair(map, key)?.value;
  return (value as YamlNode | null | undefined) ?? undefined;
}

/** A string-valued scalar under a key (numbers and booleans are not strings). */
export function getStringScalar(map: YAMLMap, key: string): Scalar<string> | undefined {
  const value = getValue(map, key);
  return isScalar(value) && typeof value.value === 'string' ? (value as Scalar<string>) : undefined;
}

export function asMap(node: unknown): YAMLMap | undefined {
  return isMap(node) ? node : undefined;
}

export interface Located {
  /** The node at the path, when it exists. */
  readonly node?: YamlNode;
  /** The key of the last segment, when the last step went through a mapping. */
  readonly keyNode?: Scalar;
  /** The deepest existing node on the way, for ranges when the path does not exist. */
  readonly nearest: YamlNode;
}

/** Walks the AST along a path of keys and indexes, stopping at the last node that exists. */
export function locate(root: YamlNode, path: readonly PathSegment[]): Located {
  let current: YamlNode = root;
  let keyNode: Scalar | undefined;
  for (const segment of path) {
    const target: YamlNode | undefined = isAlias(current) ? undefined : current;
    if (isMap(target)) {
      const pair = findPair(target, String(segment));
      if (!pair) return { nearest: current };
      keyNode = isScalar(pair.key) ? pair.key : undefined;
      const value = pair.value as YamlNode | null;
      if (!value) return { keyNode, nearest: keyNode ?? current };
      current = value;
    } else if (isSeq(target)) {
      const item = target.items[Number(segment)] as YamlNode | undefined;
      if (!item) return { nearest: current };
      keyNode = undefined;
      current = item;
    } else {
      return { nearest: current };
    }
  }
  return { node: current, keyNode, nearest: current };
}

/**
 * Maps a span inside a scalar's parsed value to the source text. Plain and quoted one-line scalars
 * (escapes included) map exactly; for folded and block scalars the fragment is searched in the
 * source, and when that fails the whole scalar is used.
 */
export function valueSpanToSource(text: string, scalar: Scalar, start: number, end: number): Span {
  const whole = spanOf(scalar);
  const value = scalar.value;
  if (typeof value !== 'string') return whole;
  const source = text.slice(whole.start, whole.end);
  const offsets = oneLineOffsets(scalar, source, value);
  if (offsets) return { start: whole.start + (offsets[start] as number), end: whole.start + (offsets[end] as number) };
  const fragment = value.slice(start, end);
  if (fragment.length === 0) return whole;
  // The n-th occurrence of the fragment in the value is taken to be the n-th in the source.
  let occurrence = 0;
  for (let at = value.indexOf(fragment); at !== -1 && at < start; at = value.indexOf(fragment, at + 1)) occurrence++;
  let found = source.indexOf(fragment);
  for (let i = 0; i < occurrence && found !== -1; i++) found = source.indexOf(fragment, found + 1);
  return found === -1 ? whole : { start: whole.start + found, end: whole.start + found + fragment.length };
}

const ESCAPE_LENGTH: Record<string, number> = { x: 4, u: 6, U: 10 };

/**
 * For a scalar written on one line, the source offset (relative to the scalar) of every UTF-16
 * unit of its value, plus one for the end; undefined for other scalars.
 */
function oneLineOffsets(scalar: Scalar, source: string, value: string): number[] | undefined {
  if (source.includes('\n') || source.includes('\r')) return undefined;
  const offsets: number[] = [];
  if (scalar.type === Scalar.PLAIN) {
    if (source !== value) return undefined;
    for (let i = 0; i <= value.length; i++) offsets.push(i);
    return offsets;
  }
  const last = source.length - 1;
  if (scalar.type === Scalar.QUOTE_SINGLE) {
    for (let i = 1; i < last; i++) {
      offsets.push(i);
      if (source[i] === "'" && source[i + 1] === "'") i++;
    }
  } else if (scalar.type === Scalar.QUOTE_DOUBLE) {
    for (let i = 1; i < last; ) {
      if (source[i] !== '\\') {
        offsets.push(i++);
        continue;
      }
      const length = ESCAPE_LENGTH[source[i + 1] as string] ?? 2;
      const code = length > 2 ? Number.parseInt(source.slice(i + 2, i + length), 16) : undefined;
      const units = code !== undefined && code > 0xffff ? 2 : 1;
      for (let unit = 0; unit < units; unit++) offsets.push(i);
      i += length;
    }
  } else {
    return undefined;
  }
  if (offsets.length !== value.length) return undefined;
  offsets.push(last);
  return offsets;
}

/** What kind of YAML value a node holds, in words, for messages. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'text';
  return `a ${typeof value}`;
}
