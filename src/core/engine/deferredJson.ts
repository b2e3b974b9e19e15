// A node result whose JSON body is parsed when something first reads it, for Send Request: a
// 10 MiB answer parsed is many times its size in objects, and a send's result is often never read
// (only its exchange is looked at). The text is checked to be JSON first (prettyJson's scan, no
// objects), so a read never fails where the engine's eager parse would have failed the node.
import type { NodeResult } from './evaluate';

/**
 * Where a deferred result says the bytes of its body not parsed yet. A symbol of the global
 * registry, not a WeakMap of this module: each of the extension's bundles holds its own copy of
 * the module, and a result made in one (the send) is sized in another (the results kept).
 */
const UNPARSED_BYTES = Symbol.for('agent-workflows.unparsedBodyBytes');

/** A result whose `body` is JSON.parse(text) when first read; `bytes`: the text's size in UTF-8. */
export function deferredJsonResult(fields: Omit<NodeResult, 'body'>, text: string, bytes: number): NodeResult {
  let source: string | undefined = text;
  let parsed: unknown;
  const result = { ...fields } as NodeResult & { [UNPARSED_BYTES]?: number };
  Object.defineProperty(result, UNPARSED_BYTES, { value: bytes, configurable: true });
  Object.defineProperty(result, 'body', {
    enumerable: true,
    get: () => {
      if (source !== undefined) {
        parsed = JSON.parse(source) as unknown;
        // Only the objects are kept once parsed.
        source = undefined;
        delete result[UNPARSED_BYTES];
      }
      return parsed;
    },
  });
  return result;
}

/** Bytes of a deferred result's body while it is not parsed; undefined for any other result. */
export function unparsedBodyBytes(result: NodeResult): number | undefined {
  const bytes = (result as { [UNPARSED_BYTES]?: unknown })[UNPARSED_BYTES];
  return typeof bytes === 'number' ? bytes : undefined;
}
