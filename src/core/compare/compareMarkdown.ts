// A comparison of two runs in words: the summary's figures, what changed in a row, and the Markdown
// report for a pull request comment. One home for them: the command line prints the Markdown (and
// its text report from the same pieces), the editor exports it and shows the same words in its table.
// Plain text only, no Node: the results webview imports it too.
import type { OutputChange, RowChange } from './compareRows';
import type { Comparison, SideSummary } from './compareRuns';
import { formatDuration } from '../executions/executionRecord';
import { markdownCell as cell } from '../reports/markdown';

/** Rows of each table of the Markdown report (a pull request comment has a size limit); beyond, counted. */
export const MARKDOWN_ROWS = 50;

export const percent = (passed: number, checked: number): string => (checked ? `${((passed / checked) * 100).toFixed(1)}%` : '–');
export const ms = (value: number | undefined): string => (value === undefined ? '–' : formatDuration(value));
export const plural = (count: number, word: string, words = `${word}s`): string =>
  `${count.toLocaleString('en-US')} ${count === 1 ? word : words}`;

/** The summary's figures, A against B, as rows of three cells. */
export function summaryRows(comparison: Comparison): Array<[string, string, string]> {
  const { a, b } = comparison;
  const side = (summary: SideSummary): string[] => [
    summary.rows.toLocaleString('en-US'),
    summary.checked ? `${percent(summary.passed, summary.checked)} (${summary.passed}/${summary.checked})` : '–',
    summary.failures.toLocaleString('en-US'),
    ms(summary.p50Ms),
    ms(summary.p95Ms),
  ];
  const [ra, rb] = [side(a), side(b)];
  return ['rows', 'pass rate', 'failures', 'duration p50', 'duration p95'].map((label, index) => [label, ra[index]!, rb[index]!]);
}

/** What changed in a row, in a few words: the status, the expectations, the outputs, the duration. */
export function changeWords(change: RowChange): string {
  const parts: string[] = [];
  if (change.status) parts.push(`${change.status.a} → ${change.status.b}`);
  if (change.passed) parts.push(change.passed.a ? 'passed → not passed' : 'not passed → passed');
  if (change.outputs)
    parts.push(
      `outputs changed: ${change.outputs.map((output) => output.name).join(', ')}${change.outputsNotListed ? ` and ${change.outputsNotListed} more` : ''}`,
    );
  if (change.duration) parts.push(`${ms(change.duration.a)} → ${ms(change.duration.b)}`);
  return parts.join('; ');
}

export function rowLabel(comparison: Comparison, change: RowChange): string {
  if (comparison.matchedBy.kind === 'row') return `row ${change.rowA}`;
  if (comparison.matchedBy.kind === 'case') return change.key;
  return `${comparison.matchedBy.column} ${change.key} (rows ${change.rowA}/${change.rowB})`;
}

export function outputNote(output: OutputChange): string {
  const notes: string[] = [];
  if (output.only) notes.push(`only in ${output.only.toUpperCase()}`);
  if (output.lengthA !== undefined) notes.push(`A is ${output.lengthA.toLocaleString('en-US')} characters, its start diffed`);
  if (output.lengthB !== undefined) notes.push(`B is ${output.lengthB.toLocaleString('en-US')} characters, its start diffed`);
  return notes.length ? ` (${notes.join('; ')})` : '';
}

/** A diff line as a code span in a table cell: no backtick to end it, pipes escaped, on one line. */
function codeCell(line: string): string {
  return `\`${line
    .replace(/`/g, "'")
    .replace(/\|/g, '\\|')
    .replace(/\r\n?|\n/g, ' ')}\``;
}

export function markdownReport(comparison: Comparison): string {
  const out: string[] = [];
  const { a, b } = comparison;
  out.push(
    `### Agent runs compared: ${comparison.regressions.count ? `⚠️ ${plural(comparison.regressions.count, 'regression')}` : 'no regressions'}`,
  );
  out.push('');
  out.push(`| | A | B |`, `| --- | --- | --- |`);
  out.push(`| file | ${cell(a.path)} | ${cell(b.path)} |`);
  for (const [label, va, vb] of summaryRows(comparison)) out.push(`| ${label} | ${va} | ${vb} |`);
  out.push('');
  out.push(
    `${plural(comparison.matched, 'row')} in both: ${plural(comparison.regressions.count, 'regression')}, ${plural(comparison.fixes.count, 'fix', 'fixes')}, ${plural(comparison.changes.count, 'other change')}, ${comparison.unchanged.toLocaleString('en-US')} unchanged; ${plural(comparison.onlyInA.count, 'row')} only in A, ${plural(comparison.onlyInB.count, 'row')} only in B.`,
  );
  // One table, regressions first, then fixes, then other changes; cut at MARKDOWN_ROWS.
  const rows = [
    ...comparison.regressions.items.map((change) => ['regression', change] as const),
    ...comparison.fixes.items.map((change) => ['fix', change] as const),
    ...comparison.changes.items.map((change) => ['changed', change] as const),
  ];
  const total = comparison.regressions.count + comparison.fixes.count + comparison.changes.count;
  if (total) {
    out.push('', '| | row | what changed | diff |', '| --- | --- | --- | --- |');
    for (const [verdict, change] of rows.slice(0, MARKDOWN_ROWS)) {
      const diff = (change.outputs ?? [])
        .slice(0, 2)
        .map((output) => `**${cell(output.name)}**${outputNote(output)}<br>${output.diff.slice(0, 4).map(codeCell).join('<br>')}`)
        .join('<br>');
      const mark = verdict === 'regression' ? '🔴' : verdict === 'fix' ? '🟢' : '🟡';
      out.push(`| ${mark} ${verdict} | ${cell(rowLabel(comparison, change))} | ${cell(changeWords(change))} | ${diff} |`);
    }
    const left = total - Math.min(rows.length, MARKDOWN_ROWS);
    if (left > 0)
      out.push(
        '',
        `… and ${plural(left, 'more changed row')} (the first ${MARKDOWN_ROWS} are shown: run compare --format text or json for all).`,
      );
  }
  if (comparison.badLines.count)
    out.push(
      '',
      `${plural(comparison.badLines.count, 'line')} of the files could not be read as results and ${comparison.badLines.count === 1 ? 'was' : 'were'} skipped.`,
    );
  return `${out.join('\n')}\n`;
}
