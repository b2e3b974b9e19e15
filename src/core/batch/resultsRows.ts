// The rows of a batch's results table as the table shows them (each value as a short cell text) and
// the one filter both the table's webview and its exports apply, so that an export holds exactly
// the rows the table showed. Pure: no Node module, as the webview's browser bundle imports it.
import { leadingFields } from '../json';
import type { RowResult, RowStatus } from './batchModel';

/** The statuses of a row, in the order the table lists them. */
export const ROW_STATUSES: readonly RowStatus[] = ['finished', 'failed', 'error', 'timeout', 'unknown', 'skipped'];

/** The head of a results line: its row and status (and whether it passed), which come first in every line. */
export interface ResultHead {
  readonly row: number;
  readonly status: RowStatus;
  readonly passed?: boolean;
}

/** The fields of a results line that make its head. */
export const HEAD_FIELDS: ReadonlySet<string> = new Set(['row', 'status', 'passed']);

/**
 * The row and status at the start of a results line, read without parsing the rest (a line may be
 * cut, or too long to parse): undefined when the line's start holds no row and status. A batch
 * writes them first (matched at once); a line written otherwise (keys in another order, spaces) is
 * read field by field from its start, so a long value after them does not hide them.
 */
export function parseResultHead(text: string): ResultHead | undefined {
  const match = /^\{"row":(\d+),"status":"([a-z]+)"(?:,"passed":(true|false))?/.exec(text);
  if (match && ROW_STATUSES.includes(match[2] as RowStatus)) {
    const row = Number(match[1]);
    if (!Number.isSafeInteger(row) || row < 1) return undefined;
    return { row, status: match[2] as RowStatus, ...(match[3] ? { passed: match[3] === 'true' } : {}) };
  }
  return resultHeadOf(leadingFields(text, HEAD_FIELDS));
}

/** The head of a results line from its fields read (leadingFields), or undefined without a row and status. */
export function resultHeadOf(fields: ReadonlyMap<string, unknown>): ResultHead | undefined {
  const row = fields.get('row');
  const status = fields.get('status');
  const passed = fields.get('passed');
  if (typeof row !== 'number' || !Number.isSafeInteger(row) || row < 1 || !ROW_STATUSES.includes(status as RowStatus)) return undefined;
  return { row, status: status as RowStatus, ...(typeof passed === 'boolean' ? { passed } : {}) };
}

/** The most characters of one cell's text (its tooltip); the table shows fewer, the detail pane all. */
export const MAX_CELL_CHARS = 1000;

/** One row of the table: its values as text, cut at MAX_CELL_CHARS. */
export interface TableRow {
  readonly row: number;
  readonly status: RowStatus;
  readonly passed?: boolean;
  readonly executionId?: string;
  readonly durationMs?: number;
  /** The data's other columns (an id, a label), by column name. */
  readonly columns: Readonly<Record<string, string>>;
  /** By input name. */
  readonly inputs: Readonly<Record<string, string>>;
  /** By output name; outputs that are not an object are one cell named "value". */
  readonly outputs: Readonly<Record<string, string>>;
  readonly error?: string;
}

export interface ResultsFilter {
  readonly status: RowStatus | 'all';
  /** Matched, ignoring case, against the row number, status, execution id and every cell's text. */
  readonly text: string;
}

export const NO_FILTER: ResultsFilter = { status: 'all', text: '' };

/** How the table is sorted: by a column, one way or the other. */
export interface ResultsSort {
  /** `row`, `status`, `duration`, `error`, `column:NAME`, `input:NAME` or `output:NAME`. */
  readonly column: string;
  readonly direction: 'ascending' | 'descending';
}

/** A section of a row's detail: a title and its value as indented JSON. */
export interface DetailSection {
  readonly title: string;
  readonly json: string;
}

export type StatusCounts = Record<RowStatus, number>;

/** A value as one line of text: strings as they are, anything else as JSON; cut at max characters. */
export function cellText(value: unknown, max = MAX_CELL_CHARS): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === undefined) text = '';
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The output values of a row by name: an object's properties, or any other value as "value". */
export function outputValues(outputs: unknown): Readonly<Record<string, unknown>> {
  if (outputs === undefined || outputs === null) return {};
  if (typeof outputs === 'object' && !Array.isArray(outputs)) return outputs as Record<string, unknown>;
  return { value: outputs };
}

export function tableRowOf(result: RowResult): TableRow {
  const columns: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.columns ?? {})) columns[name] = cellText(value);
  const inputs: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.inputs ?? {})) inputs[name] = cellText(value);
  const outputs: Record<string, string> = {};
  for (const [name, value] of Object.entries(outputValues(result.outputs))) outputs[name] = cellText(value);
  const error = rowError(result);
  return {
    row: result.row,
    status: result.status,
    ...(result.passed !== undefined ? { passed: result.passed } : {}),
    ...(result.executionId !== undefined ? { executionId: result.executionId } : {}),
    ...(result.durationMs !== undefined ? { durationMs: result.durationMs } : {}),
    columns,
    inputs,
    outputs,
    ...(error !== undefined ? { error } : {}),
  };
}

/** What went wrong with a row, as one cell's text: the service's error, or a skipped row's problems. */
export function rowError(result: RowResult): string | undefined {
  // A skipped row has no error but problems: they are its error.
  const error =
    result.error !== undefined
      ? errorWords(result.error)
      : result.problems?.length
        ? problemWords(result.problems, result.problemsNotListed)
        : undefined;
  return error === undefined ? undefined : cellText(error);
}

/** Whether a row passes the filter. The text is compared in lower case; linear in the row's text. */
export function matchesFilter(row: TableRow, filter: ResultsFilter): boolean {
  if (filter.status !== 'all' && row.status !== filter.status) return false;
  const text = filter.text.trim().toLowerCase();
  if (!text) return true;
  const has = (value: string | undefined): boolean => value !== undefined && value.toLowerCase().includes(text);
  return (
    String(row.row) === text ||
    has(row.status) ||
    has(row.executionId) ||
    has(row.error) ||
    Object.values(row.columns ?? {}).some(has) ||
    Object.values(row.inputs).some(has) ||
    Object.values(row.outputs).some(has)
  );
}

export function filterRows(rows: readonly TableRow[], filter: ResultsFilter): TableRow[] {
  return rows.filter((row) => matchesFilter(row, filter));
}

export function emptyCounts(): StatusCounts {
  return { finished: 0, failed: 0, error: 0, timeout: 0, unknown: 0, skipped: 0 };
}

/** Whether a value is a filter as the webview sends it (a message is checked before it is used). */
export function isResultsFilter(value: unknown): value is ResultsFilter {
  if (typeof value !== 'object' || value === null) return false;
  const { status, text } = value as Record<string, unknown>;
  return typeof text === 'string' && (status === 'all' || ROW_STATUSES.includes(status as RowStatus));
}

/** An error as a person reads it: the service's message when its answer has one, else the answer. */
function errorWords(error: unknown): unknown {
  if (error !== null && typeof error === 'object' && !Array.isArray(error)) {
    const answer = error as Record<string, unknown>;
    const message = typeof answer.error === 'string' ? answer.error : typeof answer.message === 'string' ? answer.message : undefined;
    if (message) return typeof answer.node === 'string' ? `${answer.node}: ${message}` : message;
  }
  return error;
}

/** A bad row's problems, "column: message" each, and how many more it has. */
function problemWords(problems: readonly { readonly column?: string; readonly message: string }[], notListed = 0): string {
  const words = problems.map((problem) => (problem.column !== undefined ? `${problem.column}: ${problem.message}` : problem.message));
  if (typeof notListed === 'number' && notListed > 0) words.push(`and ${notListed} more`);
  return words.join('; ');
}

/** The value a row is sorted by in a column: numbers for row and duration, text for the others. */
function sortValue(row: TableRow, column: string): number | string | undefined {
  if (column === 'row') return row.row;
  if (column === 'duration') return row.durationMs;
  if (column === 'status') return row.status;
  if (column === 'error') return row.error;
  if (column.startsWith('column:')) return row.columns?.[column.slice('column:'.length)];
  if (column.startsWith('input:')) return row.inputs[column.slice('input:'.length)];
  if (column.startsWith('output:')) return row.outputs[column.slice('output:'.length)];
  return undefined;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * Sorts rows in place by a column and returns them: numbers as numbers, text as people read it
 * ("item 2" before "item 10", case ignored); empty cells last whichever the direction, and equal
 * cells in row order.
 */
export function sortRows(rows: TableRow[], sort: ResultsSort): TableRow[] {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  const { column } = sort;
  return rows.sort((a, b) => {
    const x = sortValue(a, column);
    const y = sortValue(b, column);
    if (x === undefined || x === '' || y === undefined || y === '') {
      const empty = (x === undefined || x === '' ? 1 : 0) - (y === undefined || y === '' ? 1 : 0);
      return empty || a.row - b.row;
    }
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return order * sign || a.row - b.row;
  });
}

/**
 * A row's whole result for the detail pane: inputs, outputs, error, problems and expectations not
 * met each in a section, then the rest of the line (execution id, times); each cut at maxChars.
 */
export function rowDetail(result: RowResult, maxChars: number): DetailSection[] {
  const pretty = (value: unknown): string => {
    const json = JSON.stringify(value, null, 2) ?? String(value);
    return json.length > maxChars
      ? `${json.slice(0, maxChars)}\n… (${json.length - maxChars} more characters: see the results file)`
      : json;
  };
  const sections: DetailSection[] = [];
  if (result.columns !== undefined) sections.push({ title: 'Other columns', json: pretty(result.columns) });
  if (result.inputs !== undefined) sections.push({ title: 'Inputs', json: pretty(result.inputs) });
  if (result.outputs !== undefined) sections.push({ title: 'Outputs', json: pretty(result.outputs) });
  if (result.error !== undefined) sections.push({ title: 'Error', json: pretty(result.error) });
  if (result.problems?.length) sections.push({ title: 'Problems', json: pretty(result.problems) });
  if (result.expectations?.length) sections.push({ title: 'Expectations not met', json: pretty(result.expectations) });
  const {
    row: _row,
    columns: _columns,
    inputs: _inputs,
    outputs: _outputs,
    error: _error,
    problems: _problems,
    expectations: _expectations,
    ...rest
  } = result;
  sections.push({ title: 'Execution', json: pretty(rest) });
  return sections;
}
