// One row of a batch results file read back for the editor's row diff: the last line of that row
// (a row restarted has several), streamed, so the file is never held whole; and its text as the
// diff editor shows it: the status, then the outputs (what a change to an agent is judged by), any
// error, the expectations not met, the inputs and other columns, each JSON value normalized (keys
// sorted, pretty). Times and durations are left out: they differ on every run.
import type { RowResult } from '../batch/batchModel';
import { readLines } from '../batch/dataRows';
import { ROW_STATUSES } from '../batch/resultsRows';
import { MAX_RESULT_LINE_BYTES } from '../batch/resultsTable';
import { parseJson } from '../json';
import { diffDocument, MAX_DIFF_VALUE_CHARS, normalizedJson } from './normalizedJson';
import type { DiffEntry } from './normalizedJson';

/** The last line of row `row` of a results file, or undefined when the file has none (or only one too long to read). */
export async function readResultRow(path: string, row: number, signal?: AbortSignal): Promise<RowResult | undefined> {
  let found: RowResult | undefined;
  const head = `{"row":${row},`;
  for await (const { text, overflow } of readLines(path, MAX_RESULT_LINE_BYTES, signal)) {
    // Every line a batch writes starts with its row: only that row's lines are parsed.
    if (overflow || !text.startsWith(head)) continue;
    let value: unknown;
    try {
      value = parseJson(text);
    } catch {
      continue;
    }
    const result = value as Partial<RowResult>;
    if (result.row === row && ROW_STATUSES.includes(result.status as RowResult['status'])) found = result as RowResult;
  }
  return found;
}

function shown(key: string, value: unknown): DiffEntry {
  const json = normalizedJson(value);
  if (json.length <= MAX_DIFF_VALUE_CHARS) return { key, json };
  // Cut JSON would not parse: its start is shown as a string instead.
  return {
    key,
    json: JSON.stringify(`${json.slice(0, MAX_DIFF_VALUE_CHARS)}…`),
    note: `cut: ${json.length.toLocaleString('en-US')} characters in all (see the results file)`,
  };
}

/** A row's result as the text the diff editor compares; `undefined` for a row not in the file. */
export function resultRowCompareText(label: string, result: RowResult | undefined): string {
  if (!result) return `// ${label}: not in this batch's results\n`;
  const entries: DiffEntry[] = [
    result.outputs === undefined ? { key: 'outputs', json: 'null', note: 'none' } : shown('outputs', result.outputs),
  ];
  if (result.error !== undefined) entries.push(shown('error', result.error));
  if (result.expectations?.length) entries.push(shown('expectations not met', result.expectations));
  if (result.problems?.length) entries.push(shown('problems', result.problems));
  entries.push(shown('inputs', result.inputs ?? {}));
  if (result.columns !== undefined) entries.push(shown('other columns', result.columns));
  return diffDocument(
    `${label}: ${result.status}${result.passed === undefined ? '' : result.passed ? ', passed' : ', not passed'}`,
    entries,
  );
}
