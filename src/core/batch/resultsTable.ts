// A batch's results file read back for its results table, and exported as CSV or JSON lines. The
// file has one JSON line per row as rows end; with --restart-unknown a row may have several, and
// the last one is its result. Everything is streamed: the table keeps at most maxRows rows and
// maxBytes of them (the rest counted), and an export reads the file through twice (which line is
// each row's last, then the rows) without holding it.
import { parseJson } from '../json';
import { resolve } from 'node:path';
import { replaceFile } from '../atomicFile';
import { errorMessage } from '../errors';
import { readLines } from './dataRows';
import { cellText, emptyCounts, matchesFilter, outputValues, parseResultHead, ROW_STATUSES, tableRowOf } from './resultsRows';
import type { ResultsFilter, StatusCounts } from './resultsRows';
import type { RowResult, RowStatus } from './batchModel';

/** Rows the table keeps by default; the others are counted, and exports hold them all. */
export const MAX_TABLE_ROWS = 10_000;
/** Bytes of result lines the table keeps by default. */
export const MAX_TABLE_BYTES = 32 * 1024 * 1024;
/**
 * The longest results line read whole: a status answer (10 MiB at most) and a row's inputs (1 MiB)
 * with room for JSON escapes. A longer line keeps its row and status, with a note for its values.
 */
export const MAX_RESULT_LINE_BYTES = 16 * 1024 * 1024;
/** Input and output columns of a CSV export, each; further names are left out, and said so. */
export const MAX_CSV_NAMED_COLUMNS = 500;

export interface BatchResults {
  /** The rows kept, in the order their first line appears in the file. */
  readonly rows: RowResult[];
  /** Rows in the file (each counted once, whatever its number of lines). */
  readonly total: number;
  /** Whether rows were left out (beyond maxRows or maxBytes). */
  readonly truncated: boolean;
  /** Lines that are not a row's result (not JSON, or no row number and status), skipped. */
  readonly badLines: number;
  /** Rows by status, of every row in the file (the last line of each). */
  readonly counts: StatusCounts;
}

export interface ReadResultsOptions {
  readonly maxRows?: number;
  readonly maxBytes?: number;
  readonly maxLineBytes?: number;
  readonly signal?: AbortSignal;
}

/** A results line read back: its row's result, or undefined when the line is not one. */
function parseResultLine(text: string, overflow: boolean, maxLineBytes: number): RowResult | undefined {
  if (overflow) {
    // Row and status come first in every line (see RowResult): they are within what was kept.
    const head = parseResultHead(text);
    if (!head) return undefined;
    return {
      ...head,
      error: `This row's result line is longer than ${maxLineBytes} bytes: its values are only in the results file.`,
    };
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { row, status } = value as Record<string, unknown>;
  if (typeof row !== 'number' || !Number.isSafeInteger(row) || row < 1) return undefined;
  if (!ROW_STATUSES.includes(status as RowStatus)) return undefined;
  return value as RowResult;
}

/** Whether a line is blank (not counted as a bad line: a file may end with one). */
function isBlank(text: string, overflow: boolean): boolean {
  return !overflow && text.trim() === '';
}

/** Reads a results file for the table, streamed. Throws (a message naming the file) when it cannot be read. */
export async function readBatchResults(path: string, options: ReadResultsOptions = {}): Promise<BatchResults> {
  const maxRows = options.maxRows ?? MAX_TABLE_ROWS;
  const maxBytes = options.maxBytes ?? MAX_TABLE_BYTES;
  const maxLineBytes = options.maxLineBytes ?? MAX_RESULT_LINE_BYTES;
  const kept = new Map<number, { result: RowResult; bytes: number }>();
  let keptBytes = 0;
  // The status of every row (the last line's), for the counts and the total: numbers only.
  const statuses = new Map<number, RowStatus>();
  let truncated = false;
  let badLines = 0;
  for await (const { text, overflow } of readLines(path, maxLineBytes, options.signal)) {
    if (isBlank(text, overflow)) continue;
    const result = parseResultLine(text, overflow, maxLineBytes);
    if (!result) {
      badLines++;
      continue;
    }
    statuses.set(result.row, result.status);
    const bytes = Buffer.byteLength(text);
    const before = kept.get(result.row);
    if (before && keptBytes - before.bytes + bytes <= maxBytes) {
      // A later line of a row replaces the earlier one.
      keptBytes += bytes - before.bytes;
      kept.set(result.row, { result, bytes });
    } else if (before) {
      // Its result no longer fits: the row is left out rather than shown with an earlier line.
      keptBytes -= before.bytes;
      kept.delete(result.row);
      truncated = true;
    } else if (kept.size < maxRows && keptBytes + bytes <= maxBytes) {
      keptBytes += bytes;
      kept.set(result.row, { result, bytes });
    } else {
      truncated = true;
    }
  }
  const counts = emptyCounts();
  for (const status of statuses.values()) counts[status]++;
  return { rows: [...kept.values()].map((entry) => entry.result), total: statuses.size, truncated, badLines, counts };
}

/** Text a spreadsheet may run as a formula: a formula sign, or a tab or carriage return, after any blanks. */
const FORMULA_START = /^[\s\u180e\u200b-\u200d\u2060\ufeff]*[=+\-@\t\r]/;

/** One CSV field (RFC 4180), with text that a spreadsheet would read as a formula made inert. */
export function csvField(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : cellText(value, Infinity);
  // Numbers are written as numbers; any text starting like a formula gets a leading quote, also
  // after blanks (spaces, line breaks, no-break and zero-width spaces), which spreadsheets skip.
  if (typeof value !== 'number' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The other columns', input and output names of rows, in the order first seen, each list at most
 * `max` long.
 */
export function columnNamesOf(
  rows: Iterable<RowResult>,
  max = MAX_CSV_NAMED_COLUMNS,
): { columns: string[]; inputs: string[]; outputs: string[] } {
  const columns = new Set<string>();
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  for (const row of rows) addColumnNames(row, { columns, inputs, outputs }, max);
  return { columns: [...columns], inputs: [...inputs], outputs: [...outputs] };
}

interface NameSets {
  readonly columns: Set<string>;
  readonly inputs: Set<string>;
  readonly outputs: Set<string>;
}

/** Adds a row's names to the lists; false when a list was full and a name was left out. */
function addColumnNames(row: RowResult, sets: NameSets, max: number): boolean {
  let all = true;
  for (const [names, set] of [
    [Object.keys(row.columns ?? {}), sets.columns],
    [Object.keys(row.inputs ?? {}), sets.inputs],
    [Object.keys(outputValues(row.outputs)), sets.outputs],
  ] as const) {
    for (const name of names) {
      if (set.size < max) set.add(name);
      else if (!set.has(name)) all = false;
    }
  }
  return all;
}

export function csvHeader(inputNames: readonly string[], outputNames: readonly string[], columnNames: readonly string[] = []): string {
  const names = [
    'row',
    'status',
    'passed',
    'executionId',
    'durationMs',
    ...columnNames.map((name) => `column.${name}`),
    ...inputNames.map((name) => `input.${name}`),
    ...outputNames.map((name) => `output.${name}`),
    'error',
  ];
  return `${names.map(csvField).join(',')}\r\n`;
}

export function csvRecord(
  row: RowResult,
  inputNames: readonly string[],
  outputNames: readonly string[],
  columnNames: readonly string[] = [],
): string {
  const outputs = outputValues(row.outputs);
  const error = row.error !== undefined ? row.error : row.problems?.length ? row.problems : undefined;
  const fields = [
    row.row,
    row.status,
    row.passed,
    row.executionId,
    row.durationMs,
    ...columnNames.map((name) => row.columns?.[name]),
    ...inputNames.map((name) => row.inputs?.[name]),
    ...outputNames.map((name) => outputs[name]),
    error,
  ];
  return `${fields.map(csvField).join(',')}\r\n`;
}

export type ExportFormat = 'csv' | 'jsonl';

export interface ExportSummary {
  /** Rows written. */
  readonly rows: number;
  /** Lines of the results file that are not a row's result, skipped. */
  readonly badLines: number;
  /** Whether other column, input or output names beyond MAX_CSV_NAMED_COLUMNS were left out of a CSV export. */
  readonly columnsLeftOut: boolean;
}

/** Bytes gathered before each write of an export. */
const EXPORT_CHUNK_BYTES = 64 * 1024;

/**
 * Writes the result (last line) of every row of a results file that passes the filter, in the
 * order the rows ended, to targetPath (replaced once the export is whole: replaceFile). Streamed
 * both ways: holds the row numbers and each row's last line number, not the rows. Refuses to write over the results file or its state file.
 */
export async function exportBatchResults(
  resultsPath: string,
  targetPath: string,
  format: ExportFormat,
  filter: ResultsFilter,
  options: { readonly maxLineBytes?: number; readonly signal?: AbortSignal } = {},
): Promise<ExportSummary> {
  const maxLineBytes = options.maxLineBytes ?? MAX_RESULT_LINE_BYTES;
  const target = resolve(targetPath);
  if (target === resolve(resultsPath) || target === resolve(`${resultsPath}.state`))
    throw new Error(`Cannot export to ${targetPath}: it is the batch's own results or state file. Choose another file.`);
  // Pass 1: the last line of each row, and the column names.
  const lastLine = new Map<number, number>();
  const names: NameSets = { columns: new Set(), inputs: new Set(), outputs: new Set() };
  let columnsLeftOut = false;
  let badLines = 0;
  for await (const { text, line, overflow } of readLines(resultsPath, maxLineBytes, options.signal)) {
    if (isBlank(text, overflow)) continue;
    const result = parseResultLine(text, overflow, maxLineBytes);
    if (!result) {
      badLines++;
      continue;
    }
    lastLine.set(result.row, line);
    if (format === 'csv' && !addColumnNames(result, names, MAX_CSV_NAMED_COLUMNS)) columnsLeftOut = true;
  }
  options.signal?.throwIfAborted();
  const columnNames = [...names.columns];
  const inputNames = [...names.inputs];
  const outputNames = [...names.outputs];
  // Pass 2: the rows, written in chunks.
  let written = 0;
  // What went wrong reading the results (or a stop) is said as it is; the rest is about the export file.
  let failedInPass: unknown;
  try {
    await replaceFile(target, async (file) => {
      try {
        let chunk = format === 'csv' ? csvHeader(inputNames, outputNames, columnNames) : '';
        for await (const { text, line, overflow } of readLines(resultsPath, maxLineBytes, options.signal)) {
          if (isBlank(text, overflow)) continue;
          const result = parseResultLine(text, overflow, maxLineBytes);
          if (!result || lastLine.get(result.row) !== line) continue;
          if (!matchesFilter(tableRowOf(result), filter)) continue;
          chunk += format === 'csv' ? csvRecord(result, inputNames, outputNames, columnNames) : `${JSON.stringify(result)}\n`;
          written++;
          if (chunk.length >= EXPORT_CHUNK_BYTES) {
            await file.write(chunk);
            chunk = '';
          }
        }
        options.signal?.throwIfAborted();
        if (chunk) await file.write(chunk);
      } catch (error) {
        failedInPass = error;
        throw error;
      }
    });
  } catch (error) {
    if (error === failedInPass) throw error;
    throw new Error(`Cannot write the export to ${targetPath}: ${errorMessage(error)}`);
  }
  return { rows: written, badLines, columnsLeftOut };
}
