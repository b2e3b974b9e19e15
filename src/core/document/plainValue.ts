// A parsed document as plain values, the way yaml's toJS gives them, for the documents agent files
// are: mappings with scalar keys, lists and scalars. toJS is general (aliases, merge keys, tags,
// mappings as keys) and was a tenth of a cold `validate` of a large file; a node it alone handles
// right makes plainValue give up, and the caller uses toJS.
import { isMap, isScalar, isSeq } from 'yaml';

/** Why plainValue gave up: a node only toJS converts faithfully. */
class NeedsToJs extends Error {}

/** What a conversion saw besides the value. */
export interface ConversionNotes {
  /**
   * Two keys of one mapping gave the same property name. Keys that repeat always do, so while this
   * stays false the document has no duplicate keys and needs no walk of its own to find them.
   */
  repeatedName: boolean;
}

/**
 * The node's value as `document.toJS()` gives it, or undefined when the node holds an alias, a
 * merge key, a non-scalar key, a pair in a list or a scalar of a non-plain type (call toJS then).
 * Recursive: callers parse with a nesting depth limit.
 */
export function plainValue(node: unknown, notes?: ConversionNotes): unknown {
  try {
    return convert(node, notes);
  } catch (error) {
    if (error instanceof NeedsToJs) return undefined;
    throw error;
  }
}

function convert(node: unknown, notes: ConversionNotes | undefined): unknown {
  if (node === null) return null;
  if (isScalar(node)) {
    const value = node.value;
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    throw new NeedsToJs();
  }
  if (isMap(node)) {
    const map: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = pair.key;
      if (!isScalar(key)) throw new NeedsToJs();
      const keyValue = key.value;
      if (keyValue === '<<' || (keyValue !== null && typeof keyValue === 'object')) throw new NeedsToJs();
      const name = keyValue === null ? '' : String(keyValue);
      const value = convert(pair.value, notes);
      // As toJS: a key the object already answers (a repeat, "__proto__", "toString") becomes an own
      // property instead of an assignment, so nothing reaches the prototype.
      if (name in map) {
        if (notes && Object.hasOwn(map, name)) notes.repeatedName = true;
        Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
      } else map[name] = value;
    }
    return map;
  }
  if (isSeq(node)) {
    const list: unknown[] = [];
    for (const item of node.items) {
      if (item !== null && !isScalar(item) && !isMap(item) && !isSeq(item)) throw new NeedsToJs();
      list.push(convert(item, notes));
    }
    return list;
  }
  throw new NeedsToJs();
}
