// A value as JSON that two runs can be compared by: object keys sorted (the service may answer them
// in any order), pretty-printed, so a line diff shows what changed and not how it was written.
// Values come from parsed JSON (their depth already bounded by the parser), so the recursion is too.

/** Characters of one value in a diff document; beyond, cut with a note. */
export const MAX_DIFF_VALUE_CHARS = 1_000_000;

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

/** One entry of a diff document: a value under its name, normalized JSON; a note is a comment above it. */
export interface DiffEntry {
  readonly key: string;
  /** The value as JSON (normalizedJson). */
  readonly json: string;
  readonly note?: string;
}

/**
 * A diff editor's document: one JSONC object (so the JSON language finds no problem in it) of the
 * entries in their order, under a comment that names what it is.
 */
export function diffDocument(title: string, entries: readonly DiffEntry[]): string {
  const lines = entries.map((entry, index) => {
    const comma = index < entries.length - 1 ? ',' : '';
    const note = entry.note !== undefined ? `  // ${entry.note}\n` : '';
    return `${note}  ${JSON.stringify(entry.key)}: ${entry.json.split('\n').join('\n  ')}${comma}`;
  });
  return `// ${title}\n{\n${lines.join('\n')}\n}\n`;
}
