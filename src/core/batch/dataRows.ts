// The rows of a batch's data file, read as a stream and never all held: `.jsonl` (one JSON object a
// line), `.csv` (csv-parse; the header row names the columns and is not a data row) and `.json` (an
// array of objects, read whole but bounded by MAX_JSON_DATA_FILE_BYTES). Rows are numbered from 1
// in data order; a row that cannot be read (bad JSON, a ragged CSV record, too large) is yielded as
// a problem with its number, so the batch skips and reports it. A file that cannot be read at all is
// a DataFileError: the batch stops before anything is sent.
import { JsonTooDeepError, parseJson } from '../json';
import { stat } from 'node:fs/promises';
import { fileErrorReason, notARegularFile, readTextFile, regularFileStream } from '../document/readTextFile';
import { extname } from 'node:path';
import { parse } from 'csv-parse';
import { errorMessage } from '../errors';
import { MAX_DATA_ROW_BYTES, MAX_JSON_DATA_FILE_BYTES } from '../limits';
import type { FileRefusal } from '../inputs/fileAccess';

export type DataFormat = 'jsonl' | 'csv' | 'json';

/** What is wrong with one row, and in which column when it is one column's fault. */
export interface RowProblem {
  readonly row: number;
  readonly column?: string;
  readonly message: string;
  /** A file the row names that may not be read (outside the data file's folder…): for the way to allow it. */
  readonly refusal?: FileRefusal;
}

export type DataRow =
  | {
      readonly row: number;
      /** The line where the row starts (JSONL, CSV), for messages. */
      readonly line?: number;
      /** Column values by column name; CSV values are text. */
      readonly fields: Readonly<Record<string, unknown>>;
      /** Whether the values are text (CSV) rather than JSON values. */
      readonly fromText: boolean;
    }
  | { readonly row: number; readonly line?: number; readonly problem: RowProblem };

/** The data file as a whole cannot be used: a usage error, before anything is sent. */
export class DataFileError extends Error {
  constructor(
    message: string,
    /** The system's code when the file could not be opened (`ENOENT`: there is none), as Node's errors have it. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'DataFileError';
  }
}

export interface ReadRowsOptions {
  /** The most bytes of one row (default MAX_DATA_ROW_BYTES). */
  readonly maxRowBytes?: number;
  /** The most bytes of a `.json` data file (default MAX_JSON_DATA_FILE_BYTES). */
  readonly maxJsonFileBytes?: number;
  readonly signal?: AbortSignal;
}

export function dataFormatOf(path: string): DataFormat {
  const extension = extname(path).toLowerCase();
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  if (extension === '.csv') return 'csv';
  if (extension === '.json') return 'json';
  throw new DataFileError(
    `${path}: a data file must be .jsonl (one JSON object a line), .csv (a header row, then one row a line) or .json (an array of objects).`,
  );
}

/** Every row of the data file, in order, streamed. Throws DataFileError when the file cannot be read on. */
export async function* readDataRows(path: string, options: ReadRowsOptions = {}): AsyncGenerator<DataRow> {
  const format = dataFormatOf(path);
  // Read twice (counted, then sent): only a regular file can be. A FIFO would block the open, and
  // a device such as /dev/zero never ends.
  let notAFile: string | undefined;
  try {
    notAFile = notARegularFile(await stat(path));
  } catch (error) {
    throw new DataFileError(`${path} cannot be read: ${fileErrorReason(error)}`);
  }
  if (notAFile) throw new DataFileError(`${path} ${notAFile}`);
  const maxRowBytes = options.maxRowBytes ?? MAX_DATA_ROW_BYTES;
  if (format === 'jsonl') yield* jsonlRows(path, maxRowBytes, options.signal);
  else if (format === 'csv') yield* csvRows(path, maxRowBytes, options.signal);
  else yield* jsonRows(path, options.maxJsonFileBytes ?? MAX_JSON_DATA_FILE_BYTES, maxRowBytes);
}

/**
 * How many rows the file has (bad ones included), reading it through once: the total of the
 * progress, and the check that the file can be read and is not empty before anything is sent.
 */
export async function countDataRows(path: string, options: ReadRowsOptions = {}): Promise<number> {
  return (await surveyDataFile(path, options)).rows;
}

/** Distinct column names a survey keeps; beyond, they are counted (a row may have 100,000 columns). */
export const MAX_SURVEYED_COLUMNS = 1000;

/** A data file as one read through it finds it, before anything is sent. */
export interface DataSurvey {
  /** Rows, bad ones included. */
  readonly rows: number;
  /** The column names of its rows, in the order first met (at most MAX_SURVEYED_COLUMNS). */
  readonly columns: readonly string[];
  /** Distinct column names beyond those listed. */
  readonly columnsNotListed: number;
}

/**
 * The rows and column names of a data file, reading it through once (the rows of a JSON lines file
 * need not all have the same columns). Throws DataFileError when it cannot be read or has no rows.
 */
export async function surveyDataFile(path: string, options: ReadRowsOptions = {}): Promise<DataSurvey> {
  let rows = 0;
  const columns = new Set<string>();
  // Names past the list, counted once each: a set of them would be unbounded, so only their number.
  let columnsNotListed = 0;
  const uncounted = new Set<string>();
  for await (const row of readDataRows(path, options)) {
    rows = row.row;
    if ('problem' in row) continue;
    for (const name of Object.keys(row.fields)) {
      if (columns.has(name)) continue;
      if (columns.size < MAX_SURVEYED_COLUMNS) columns.add(name);
      else if (uncounted.size < MAX_SURVEYED_COLUMNS * 10 && !uncounted.has(name)) {
        uncounted.add(name);
        columnsNotListed++;
      }
    }
  }
  if (rows === 0) throw new DataFileError(`${path} has no data rows${dataFormatOf(path) === 'csv' ? ' (only a header, or nothing)' : ''}.`);
  return { rows, columns: [...columns], columnsNotListed };
}

/** A line of a file, at most maxBytes of it kept (`overflow` then says it was longer). */
export interface FileLine {
  readonly text: string;
  readonly line: number;
  readonly overflow: boolean;
  /** Where the line starts in the file, in bytes, and its bytes (without its line break): to read it again. */
  readonly offset: number;
  readonly bytes: number;
}

/**
 * The lines of a file, streamed, each cut at maxBytes so a file without line breaks is never held
 * whole. Also reads the batch's own files back (results, state) on --resume.
 */
export async function* readLines(path: string, maxBytes: number, signal?: AbortSignal): AsyncGenerator<FileLine> {
  // Large reads: a tenth of the system calls and async steps of the default 64 KiB, for files of many lines.
  let stream;
  try {
    stream = await regularFileStream(path, { highWaterMark: 1024 * 1024, ...(signal ? { signal } : {}) });
  } catch (error) {
    throw new DataFileError(`${path} cannot be read: ${errorMessage(error)}`, (error as NodeJS.ErrnoException).code);
  }
  let parts: Buffer[] = [];
  let kept = 0;
  let overflow = false;
  let line = 0;
  let offset = 0;
  let bytes = 0;
  const take = (whole?: string): FileLine => {
    line++;
    const text = (whole ?? Buffer.concat(parts).toString('utf8')).replace(/\r$/, '');
    parts = [];
    kept = 0;
    const result = { text: line === 1 ? text.replace(/^\uFEFF/, '') : text, line, overflow, offset, bytes };
    offset += bytes + 1;
    bytes = 0;
    overflow = false;
    return result;
  };
  const keep = (chunk: Buffer): void => {
    bytes += chunk.length;
    if (overflow) return;
    if (kept + chunk.length > maxBytes) {
      parts.push(chunk.subarray(0, maxBytes - kept));
      kept = maxBytes;
      overflow = true;
      return;
    }
    parts.push(chunk);
    kept += chunk.length;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (let newline = chunk.indexOf(10, from); newline !== -1; newline = chunk.indexOf(10, from)) {
        // A line wholly in this chunk (most are) is decoded where it is, without a copy.
        if (parts.length === 0 && !overflow && newline - from <= maxBytes) {
          bytes = newline - from;
          yield take(chunk.toString('utf8', from, newline));
          from = newline + 1;
          continue;
        }
        keep(chunk.subarray(from, newline));
        yield take();
        from = newline + 1;
      }
      if (from < chunk.length) keep(chunk.subarray(from));
    }
  } catch (error) {
    if (signal?.aborted) return;
    throw new DataFileError(`${path} cannot be read: ${errorMessage(error)}`);
  }
  if (kept > 0 || overflow) yield take();
}

async function* jsonlRows(path: string, maxRowBytes: number, signal: AbortSignal | undefined): AsyncGenerator<DataRow> {
  let row = 0;
  for await (const { text, line, overflow } of readLines(path, maxRowBytes, signal)) {
    if (!overflow && text.trim() === '') continue; // blank lines are not rows
    row++;
    if (overflow) {
      yield { row, line, problem: { row, message: `line ${line} is longer than ${maxRowBytes} bytes, the most a row may have` } };
      continue;
    }
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (error) {
      const message =
        error instanceof JsonTooDeepError ? `line ${line} ${error.message}` : `line ${line} is not valid JSON (${errorMessage(error)})`;
      yield { row, line, problem: { row, message } };
      continue;
    }
    const fields = objectFields(value);
    if (typeof fields === 'string')
      yield { row, line, problem: { row, message: `line ${line} is ${fields}, not an object of column values` } };
    else yield { row, line, fields, fromText: false };
  }
}

async function* csvRows(path: string, maxRowBytes: number, signal: AbortSignal | undefined): AsyncGenerator<DataRow> {
  let source;
  try {
    source = await regularFileStream(path);
  } catch (error) {
    throw new DataFileError(`${path} cannot be read: ${errorMessage(error)}`);
  }
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: maxRowBytes, info: true });
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  let header: string[] | undefined;
  let row = 0;
  try {
    for await (const entry of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (signal?.aborted) return;
      const { record, info } = entry;
      if (!header) {
        header = record.map((name) => name.trim());
        const seen = new Set<string>();
        header.forEach((name, index) => {
          if (name === '') throw new DataFileError(`${path}: column ${index + 1} of the header row has no name; every column needs one.`);
          if (seen.has(name)) throw new DataFileError(`${path}: the header row names column "${name}" twice.`);
          seen.add(name);
        });
        continue;
      }
      row++;
      if (record.length !== header.length) {
        const column = record.length > header.length ? undefined : header[record.length];
        yield {
          row,
          line: info.lines,
          problem: {
            row,
            ...(column ? { column } : {}),
            message: `line ${info.lines} has ${record.length} ${record.length === 1 ? 'value' : 'values'} but the header names ${header.length} columns`,
          },
        };
        continue;
      }
      const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      header.forEach((name, index) => (fields[name] = record[index]));
      yield { row, line: info.lines, fields, fromText: true };
    }
  } catch (error) {
    if (error instanceof DataFileError) throw error;
    if (signal?.aborted) return;
    throw new DataFileError(`${path} cannot be read as CSV: ${errorMessage(error)}`);
  } finally {
    source.destroy();
  }
}

async function* jsonRows(path: string, maxFileBytes: number, maxRowBytes: number): AsyncGenerator<DataRow> {
  const read = await readTextFile(path, { kind: 'text', maxBytes: maxFileBytes });
  if ('error' in read) {
    if (read.code !== 'file-too-large') throw new DataFileError(`${path} cannot be read: ${read.error}`);
    throw new DataFileError(
      `${path} is ${read.size ?? 'over'} bytes, more than the ${maxFileBytes} a .json data file may have (it is read whole): write it as .jsonl, one JSON object a line, which is read as a stream.`,
    );
  }
  let value: unknown;
  try {
    value = parseJson(read.text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw new DataFileError(`${path} ${error.message}.`);
    throw new DataFileError(`${path} cannot be read as JSON: ${errorMessage(error)}`);
  }
  if (!Array.isArray(value)) throw new DataFileError(`${path} must hold a JSON array of objects, one a row.`);
  let row = 0;
  for (const item of value) {
    row++;
    const fields = objectFields(item);
    if (typeof fields === 'string')
      yield { row, problem: { row, message: `item ${row} of the array is ${fields}, not an object of column values` } };
    else if (JSON.stringify(item).length > maxRowBytes)
      yield { row, problem: { row, message: `item ${row} is larger than ${maxRowBytes} bytes, the most a row may have` } };
    else yield { row, fields, fromText: false };
  }
}

/** The fields of a JSON row, or what it is instead of an object. */
function objectFields(value: unknown): Record<string, unknown> | string {
  if (typeof value !== 'object' || value === null) return value === null ? 'null' : `a ${typeof value}`;
  if (Array.isArray(value)) return 'an array';
  return Object.assign(Object.create(null) as Record<string, unknown>, value);
}
