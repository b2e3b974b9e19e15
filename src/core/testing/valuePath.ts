// A path into a value, as test files write it to expect something deep inside a node's body
// (`items[0].title`, `meta.total`, `["odd key"]`): read with the expression language's own path
// syntax, and followed leniently (a missing step gives undefined, which `$absent` can expect).
import { scanExpressions } from '../document/expressions';

export type ValuePath = readonly (string | number)[];

/** The steps of a path, or undefined when it is not one (the expression language's syntax). */
export function parseValuePath(text: string): ValuePath | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const written = `{{ nodes.n.body${trimmed.startsWith('[') ? '' : '.'}${trimmed} }}`;
  const expressions = scanExpressions(written);
  const reference = expressions.length === 1 ? expressions[0]?.reference : undefined;
  if (!reference || expressions[0]?.error !== undefined || reference.path.length < 3) return undefined;
  return reference.path.slice(2).map((part) => part.name);
}

/** The value at a path, or undefined where a step finds nothing. */
export function valueAt(value: unknown, path: ValuePath): unknown {
  let current = value;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      if (typeof step !== 'number') return undefined;
      current = current[step];
    } else {
      const key = String(step);
      if (!Object.hasOwn(current, key)) return undefined;
      current = (current as Record<string, unknown>)[key];
    }
  }
  return current;
}
