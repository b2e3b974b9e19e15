// A value as JSON that two runs can be compared by: object keys sorted (the service may answer them
// in any order), pretty-printed, so a line diff shows what changed and not how it was written.
// Values come from parsed JSON (their depth already bounded by the parser), so the recursion is too.

/** The value with every object's keys sorted, as a new value (arrays keep their order). */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value).sort()) sorted[key] = sortedKeys((value as Record<string, unknown>)[key]);
    return sorted;
  }
  return value;
}

/** JSON with keys sorted, indented by two spaces; `undefined` as the word, so that it can be shown. */
export function normalizedJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value), null, 2) ?? 'undefined';
}

/** A value as text to diff: a string as it is (its lines are what changed), anything else as normalized JSON. */
export function diffableText(value: unknown): string {
  return typeof value === 'string' ? value : normalizedJson(value);
}
