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
  return isStringScalar(value) ? value : undefined;
}

/** A scalar whose value is a string (numbers and booleans are not strings). */
export function isStringScalar(node: unknown): node is Scalar<string> {
  return isScalar(node) && typeof node.value === 'string';
}

/**
 * The value of each of `keys` in a mapping, from its first pair (as getValue), read in one pass:
 * inputs and nodes are read by the thousand, and a lookup per key scanned each mapping again.
 */
export function firstValues<K extends string>(
  map: YAMLMap,
  keys: readonly K[],
): { values: Partial<Record<K, YamlNode>>; pairs: Partial<Record<K, Pair>> } {
  const values: Partial<Record<K, YamlNode>> = {};
  const pairs: Partial<Record<K, Pair>> = {};
  // Backwards, so that the first pair of a repeated key is the one kept.
  for (let index = map.items.length - 1; index >= 0; index--) {
    const pair = map.items[index];
    if (!pair || !isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    if (!(keys as readonly string[]).includes(key)) continue;
    pairs[key as K] = pair;
    values[key as K] = (pair.value as YamlNode | null) ?? undefined;
  }
  return { values, pairs };
}

export function asMap(node: unknown): YAMLMap | undefined {
  return isMap(node) ? node : undefined;
}

export interface Located {
  /** The node at the path, when it exists. */
  readonly node?: YamlNode;
  /** The key of the last segment, when the last step went through a mapping. */
  readonly keyNode?: Scalar | undefined;
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
 * (escapes included) map exactly; multi-line, block and folded scalars are aligned character by
 * character with their source, and when that fails the whole scalar is used. The mapping of a
 * scalar is built once and kept with it, so a scalar with thousands of problems costs one pass.
 */
export function valueSpanToSource(text: string, scalar: Scalar, start: number, end: number): Span {
  const whole = spanOf(scalar);
  const value = scalar.value;
  if (typeof value !== 'string') return whole;
  let mapping = sourceMappings.get(scalar);
  if (mapping === undefined) {
    const source = text.slice(whole.start, whole.end);
    const oneLine = oneLineOffsets(scalar, source, value);
    mapping = oneLine ? { offsets: oneLine, aligned: false } : (alignedOffsets(scalar, source, value) ?? null);
    sourceMappings.set(scalar, mapping);
  }
  if (!mapping) return whole;
  const { offsets } = mapping;
  const clamp = (offset: number) => Math.max(0, Math.min(offset, value.length));
  const from = clamp(start);
  const to = clamp(end);
  // Aligned offsets end just after the last character: the next one may be lines further on.
  const last = mapping.aligned && to > from ? (offsets[to - 1] as number) + 1 : (offsets[to] as number);
  return { start: whole.start + (offsets[from] as number), end: whole.start + Math.max(last, offsets[from] as number) };
}

interface SourceMapping {
  /** Source offset (relative to the scalar) of every UTF-16 unit of the value, plus the end. */
  readonly offsets: ArrayLike<number>;
  /** True for a character alignment (multi-line scalars), false for an exact one-line mapping. */
  readonly aligned: boolean;
}

/** Mappings by scalar; a scalar belongs to one parsed text, so its mapping never changes. */
const sourceMappings = new WeakMap<Scalar, SourceMapping | null>();

/**
 * For a scalar over several lines, each value character is matched with the next source character
 * equal to it (a line break or a folded space matches a line break); indentation, the block header
 * and folded white space are skipped over. Linear: the source position only moves forward.
 */
function alignedOffsets(scalar: Scalar, source: string, value: string): SourceMapping | undefined {
  const offsets = new Int32Array(value.length + 1);
  const block = scalar.type === Scalar.BLOCK_LITERAL || scalar.type === Scalar.BLOCK_FOLDED;
  const doubleQuoted = scalar.type === Scalar.QUOTE_DOUBLE;
  let j = block ? source.indexOf('\n') + 1 : scalar.type === Scalar.QUOTE_SINGLE || doubleQuoted ? 1 : 0;
  if (block && j === 0) return undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    const isBreak = c === '\n' || c === ' ';
    let escaped = false;
    while (j < source.length) {
      const s = source[j] as string;
      if (s === c || (isBreak && s === '\n')) break;
      if (doubleQuoted && s === '\\') {
        const next = source[j + 1];
        if (next === '\n' || next === '\r') {
          j += 2;
          continue;
        }
        escaped = true;
        break;
      }
      j++;
    }
    if (j >= source.length) {
      // Trailing line breaks a block scalar keeps may lie past its range: they map to its end.
      if (value.slice(i).trim() !== '') return undefined;
      for (; i <= value.length; i++) offsets[i] = source.length;
      return { offsets, aligned: true };
    }
    offsets[i] = j;
    if (escaped) {
      const length = ESCAPE_LENGTH[source[j + 1] as string] ?? 2;
      const code = length > 2 ? Number.parseInt(source.slice(j + 2, j + length), 16) : undefined;
      if (code !== undefined && code > 0xffff && i + 1 < value.length) offsets[++i] = j;
      j += length;
    } else {
      j++;
    }
  }
  offsets[value.length] = Math.min(j, source.length);
  return { offsets, aligned: true };
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
    for (let i = 1; i < last;) {
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
  // The number itself: "must be a whole number, not 1.5" says what is wrong, "not a number" does not.
  if (typeof value === 'number') return `${Number.isInteger(value) ? 'the number' : 'the fraction'} ${value}`;
  return `a ${typeof value}`;
}
