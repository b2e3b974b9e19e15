// The comparison of two batches as the editor's table shows it: one row per changed row,
// regressions first, then fixes, then other changes (the order of the Markdown report), each with
// the same words the command line prints; filtered by verdict and text, by the webview and the
// tests alike. Plain data, no Node: the webview imports it.
import { changeWords, rowLabel } from './compareMarkdown';
import type { RowVerdict } from './compareRows';
import type { Comparison } from './compareRuns';

export const VERDICTS: readonly RowVerdict[] = ['regression', 'fix', 'changed'];

export interface CompareTableRow {
  /** Its place in the table, from 0: what the webview sends back to open its diff. */
  readonly index: number;
  readonly verdict: RowVerdict;
  /** The key the rows were matched by, and the row's label ("row 3", "id C-7 (rows 3/4)"). */
  readonly key: string;
  readonly label: string;
  readonly rowA: number;
  readonly rowB: number;
  /** "finished → failed" when the status changed, else empty. */
  readonly status: string;
  /** What changed, in the command line's words. */
  readonly words: string;
  /** The first lines of the first outputs' diffs ("- …", "+ …"). */
  readonly diff: string;
}

export interface CompareFilter {
  readonly verdict: RowVerdict | 'all';
  /** Text in any cell, without case. */
  readonly text: string;
}

export const NO_COMPARE_FILTER: CompareFilter = { verdict: 'all', text: '' };

/** Diff lines of a row shown in its cell (the diff editor has them all). */
const DIFF_LINES_SHOWN = 6;

/** The rows of the table, in the report's order: regressions, fixes, other changes. */
export function compareTableRows(comparison: Comparison): CompareTableRow[] {
  const listed = [...comparison.regressions.items, ...comparison.fixes.items, ...comparison.changes.items];
  return listed.map((change, index) => ({
    index,
    verdict: change.verdict,
    key: change.key,
    label: rowLabel(comparison, change),
    rowA: change.rowA,
    rowB: change.rowB,
    status: change.status ? `${change.status.a} → ${change.status.b}` : '',
    words: changeWords(change),
    diff: (change.outputs ?? [])
      .flatMap((output) => [`${output.name}:`, ...output.diff.map((line) => `  ${line}`)])
      .slice(0, DIFF_LINES_SHOWN)
      .join('\n'),
  }));
}

export function filterCompareRows(rows: readonly CompareTableRow[], filter: CompareFilter): CompareTableRow[] {
  const text = filter.text.trim().toLowerCase();
  return rows.filter(
    (row) =>
      (filter.verdict === 'all' || row.verdict === filter.verdict) &&
      (!text || [row.label, row.status, row.words, row.diff].some((cell) => cell.toLowerCase().includes(text))),
  );
}

export function isCompareFilter(value: unknown): value is CompareFilter {
  if (typeof value !== 'object' || value === null) return false;
  const { verdict, text } = value as Record<string, unknown>;
  return typeof text === 'string' && (verdict === 'all' || VERDICTS.includes(verdict as RowVerdict));
}
