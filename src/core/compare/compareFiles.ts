// What compare reads: a batch's results file (`batch --out`: one JSON line per row, in the order
// rows ended; the last line of a row is its result) or an agent-test JSON report (`test --reporter
// json`: one document, its cases). Each line or case becomes a SideRow; a line that is not a row's
// result is a bad line, named by its number, and the rest are compared.
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { RowResult, RowStatus } from '../batch/batchModel';
import { readLines } from '../batch/dataRows';
import { HEAD_FIELDS, outputValues, resultHeadOf, ROW_STATUSES } from '../batch/resultsRows';
import { MAX_RESULT_LINE_BYTES } from '../batch/resultsTable';
import { fileErrorReason, notARegularFile, OPEN_FLAGS, readTextFile } from '../document/readTextFile';
import { errorMessage } from '../errors';
import { leadingFields, parseJson } from '../json';
import { boundedText } from '../testing/shownValue';
import type { SideRow } from './compareRows';

export type CompareSide = 'a' | 'b';
export type CompareFileKind = 'results' | 'report';

/** The most bytes of an agent-test JSON report (read whole: it holds no outputs, only failures). */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024;
/** Lines looked at to tell a results file from a report (a hand-edited file may start with bad ones). */
const SNIFF_LINES = 20;

/** Why a file cannot be compared at all, as facts (the bad lines of a readable file are not this). */
export type CompareProblem =
  /** `missing`: there is no such file (a batch that has ended no row has written none). */
  | { readonly kind: 'unreadable'; readonly side: CompareSide; readonly path: string; readonly reason: string; readonly missing?: boolean }
  /** Neither a results file nor a report: `line` is where it stops looking like either. */
  | { readonly kind: 'not-comparable'; readonly side: CompareSide; readonly path: string; readonly line?: number; readonly problem: string }
  | { readonly kind: 'empty'; readonly side: CompareSide; readonly path: string }
  | { readonly kind: 'mixed-kinds'; readonly a: CompareFileKind; readonly b: CompareFileKind }
  /** Runs of two agents: by their state files' agent, or outputs with no name in common. */
  | { readonly kind: 'different-agents'; readonly a: string; readonly b: string; readonly by: 'agent-file' | 'outputs' | 'test-files' }
  | { readonly kind: 'key-with-reports' }
  | { readonly kind: 'too-many-rows'; readonly side: CompareSide; readonly path: string; readonly max: number }
  /** Stopped by its signal (Ctrl-C) before the files were read through: there is no comparison. */
  | { readonly kind: 'interrupted' };

/** A comparison that cannot be made; `problem` says why (told apart by its name across bundles). */
export class CompareError extends Error {
  constructor(readonly problem: CompareProblem) {
    super(describeCompareProblem(problem));
    this.name = 'CompareError';
  }
}

/** A problem in words that name no flag: the error's message when no adapter words it. */
export function describeCompareProblem(problem: CompareProblem): string {
  switch (problem.kind) {
    case 'unreadable':
      return `${problem.path} cannot be read: ${problem.reason}`;
    case 'not-comparable':
      return `${problem.path}${problem.line !== undefined ? `, line ${problem.line}` : ''}: ${problem.problem}`;
    case 'empty':
      return `${problem.path} has no rows to compare.`;
    case 'mixed-kinds':
      return `A batch results file and an agent-test report cannot be compared with each other.`;
    case 'different-agents':
      return `The two runs are of different agents (${problem.a} and ${problem.b}).`;
    case 'key-with-reports':
      return 'Agent-test reports are matched by test file and case name, not by a key column.';
    case 'too-many-rows':
      return `${problem.path} has more than ${problem.max} rows, the most compare reads.`;
    case 'interrupted':
      return 'The comparison was interrupted before both files were read: there is no result.';
  }
}

/**
 * Throws CompareError 'interrupted' once the signal has fired. readLines ends quietly when its
 * signal fires, so a reader checks this after its loop: the rows read so far are not the files.
 */
export function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CompareError({ kind: 'interrupted' });
}

/** One line of a results file, read: a row (with its key when one was asked for) or why it is not one. */
export type ReadLine =
  | { readonly kind: 'row'; readonly line: number; readonly row: SideRow; readonly key?: string }
  | { readonly kind: 'bad'; readonly line: number; readonly problem: string }
  | { readonly kind: 'blank' };

/**
 * The most characters of a key or of a value named in a bad line's problem (a column value may be
 * long, a hand-edited "row" 15 MB): longer ones are kept by their start and length, copied apart
 * from the text they were cut from (kept for every row, or listed).
 */
const MAX_KEY_CHARS = 512;
// Most are short: copied only when cut (a key per row).
const shortened = (text: string): string => (text.length > MAX_KEY_CHARS ? boundedText(text, MAX_KEY_CHARS) : text);

/** The fields of an overlong line read for its head and its key. */
const HEAD_AND_KEY_FIELDS: ReadonlySet<string> = new Set([...HEAD_FIELDS, 'columns', 'inputs']);

/** The key of a row: the key column's value (in its other columns, else its inputs), as text. */
export function keyOf(result: { readonly columns?: unknown; readonly inputs?: unknown }, column: string): string | undefined {
  const columns = objectOrUndefined(result.columns);
  const inputs = objectOrUndefined(result.inputs);
  const value =
    columns && Object.hasOwn(columns, column) ? columns[column] : inputs && Object.hasOwn(inputs, column) ? inputs[column] : undefined;
  if (value === undefined || value === null || value === '') return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return shortened(text);
}

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A results line as a row to compare, or the problem with it (`keyColumn`: the key asked for). */
export function readResultLine(text: string, line: number, overflow: boolean, keyColumn: string | undefined): ReadLine {
  if (!overflow && text.trim() === '') return { kind: 'blank' };
  if (overflow) {
    // Read field by field from the line's start: row and status come first in a batch's lines, and
    // its inputs and columns (a key) before its outputs and error, which make a line long.
    const fields = leadingFields(text, keyColumn === undefined ? HEAD_FIELDS : HEAD_AND_KEY_FIELDS);
    const head = resultHeadOf(fields);
    if (!head) return { kind: 'bad', line, problem: `longer than ${MAX_RESULT_LINE_BYTES} bytes and not a row's result` };
    const key =
      keyColumn === undefined ? String(head.row) : keyOf({ columns: fields.get('columns'), inputs: fields.get('inputs') }, keyColumn);
    if (key === undefined)
      return {
        kind: 'bad',
        line,
        problem: `row ${head.row}: longer than ${MAX_RESULT_LINE_BYTES} bytes, and its first ${MAX_RESULT_LINE_BYTES} hold no value in column "${shortened(keyColumn ?? '')}"`,
      };
    return {
      kind: 'row',
      line,
      row: { row: head.row, status: head.status, ...(head.passed !== undefined ? { passed: head.passed } : {}), partial: true },
      key,
    };
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    return { kind: 'bad', line, problem: `not valid JSON (${errorMessage(error)}): cut short, or edited by hand?` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'bad', line, problem: 'not a JSON object' };
  const result = value as Partial<RowResult> & Record<string, unknown>;
  if (typeof result.row !== 'number' || !Number.isSafeInteger(result.row) || result.row < 1)
    return { kind: 'bad', line, problem: `"row" is not a row number (${shortened(JSON.stringify(result.row) ?? 'missing')})` };
  if (!ROW_STATUSES.includes(result.status as RowStatus))
    return { kind: 'bad', line, problem: `"status" is not one a batch writes (${shortened(JSON.stringify(result.status) ?? 'missing')})` };
  const row: SideRow = {
    row: result.row,
    status: result.status as RowStatus,
    ...(typeof result.passed === 'boolean' ? { passed: result.passed } : {}),
    ...(typeof result.durationMs === 'number' && Number.isFinite(result.durationMs) ? { durationMs: result.durationMs } : {}),
    ...(result.status === 'finished' ? { outputs: outputValues(result.outputs) } : {}),
  };
  const key = keyColumn !== undefined ? keyOf(result, keyColumn) : String(result.row);
  return { kind: 'row', line, row, ...(key !== undefined ? { key } : {}) };
}

/** Whether a file is a results file or a report, from its first lines; throws CompareError when neither. */
export async function fileKindOf(path: string, side: CompareSide, signal?: AbortSignal): Promise<CompareFileKind> {
  await checkRegularFile(path, side);
  let first: { text: string; line: number } | undefined;
  let looked = 0;
  try {
    for await (const { text, line, overflow } of readLines(path, 64 * 1024, signal)) {
      if (!overflow && text.trim() === '') continue;
      first ??= { text, line };
      // A line starting as a batch writes one is a results file's, even cut short or edited.
      if (text.startsWith('{"row":') || readResultLine(text, line, overflow, undefined).kind === 'row') return 'results';
      if (++looked >= SNIFF_LINES) break;
    }
  } catch (error) {
    throw new CompareError({ kind: 'unreadable', side, path, reason: errorMessage(error), ...missingFile(error) });
  }
  throwIfInterrupted(signal);
  if (!first) throw new CompareError({ kind: 'empty', side, path });
  if (first.text.trimStart().startsWith('{')) return 'report';
  throw new CompareError({
    kind: 'not-comparable',
    side,
    path,
    line: first.line,
    problem:
      "neither a batch's result (a JSON line with row and status, as batch --out writes) nor an agent-test JSON report (test --reporter json)",
  });
}

function missingFile(error: unknown): { readonly missing?: true } {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' ? { missing: true } : {};
}

async function checkRegularFile(path: string, side: CompareSide): Promise<void> {
  let notAFile: string | undefined;
  try {
    notAFile = notARegularFile(await stat(path));
  } catch (error) {
    throw new CompareError({ kind: 'unreadable', side, path, reason: fileErrorReason(error), ...missingFile(error) });
  }
  if (notAFile) throw new CompareError({ kind: 'unreadable', side, path, reason: notAFile });
}

/** A case of a report as a row: its key is its test file and name. */
export interface ReportCase {
  readonly key: string;
  readonly file: string;
  readonly name: string;
  readonly row: SideRow;
}

/** The cases of an agent-test JSON report, in its order; throws CompareError when it is not one. */
export async function readReport(path: string, side: CompareSide): Promise<ReportCase[]> {
  const read = await readTextFile(path, { kind: 'text', maxBytes: MAX_REPORT_BYTES });
  if ('error' in read) {
    if (read.code !== 'file-too-large' && read.code !== 'not-text')
      throw new CompareError({ kind: 'unreadable', side, path, reason: read.error, ...(read.errno === 'ENOENT' ? { missing: true } : {}) });
    throw new CompareError({
      kind: 'not-comparable',
      side,
      path,
      problem:
        read.code === 'file-too-large'
          ? `${read.size ?? 'over'} bytes, more than the ${MAX_REPORT_BYTES} an agent-test report may have here`
          : `${read.error.replace(/\.$/, '')}: not an agent-test report`,
    });
  }
  let value: unknown;
  try {
    value = parseJson(read.text);
  } catch (error) {
    const position = /position (\d+)/.exec(errorMessage(error));
    const line = position ? lineAt(read.text, Number(position[1])) : undefined;
    throw new CompareError({
      kind: 'not-comparable',
      side,
      path,
      ...(line !== undefined ? { line } : {}),
      problem: `not valid JSON (${errorMessage(error)}): an agent-test report (test --reporter json) is one JSON document`,
    });
  }
  const files = (value as { files?: unknown } | null)?.files;
  if (!Array.isArray(files))
    throw new CompareError({
      kind: 'not-comparable',
      side,
      path,
      problem: 'a JSON document without "files": not an agent-test report (test --reporter json)',
    });
  const cases: ReportCase[] = [];
  for (const file of files as Array<{ file?: unknown; cases?: unknown }>) {
    if (typeof file?.file !== 'string' || !Array.isArray(file.cases)) continue;
    for (const item of file.cases as Array<{ name?: unknown; passed?: unknown; durationMs?: unknown }>) {
      if (typeof item?.name !== 'string' || typeof item.passed !== 'boolean') continue;
      cases.push({
        key: `${file.file} › ${item.name}`,
        file: file.file,
        name: item.name,
        row: {
          row: cases.length + 1,
          status: 'finished',
          passed: item.passed,
          ...(typeof item.durationMs === 'number' ? { durationMs: item.durationMs } : {}),
        },
      });
    }
  }
  if (!cases.length) throw new CompareError({ kind: 'empty', side, path });
  return cases;
}

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let index = 0; index < Math.min(position, text.length); index++) if (text.charCodeAt(index) === 10) line++;
  return line;
}

/** Bytes of a state file read for its header, its first line (a batch writes one of a few hundred). */
const STATE_HEADER_BYTES = 64 * 1024;

/**
 * The agent a results file's batch ran, from its state file beside it (`<file>.state`, its first
 * line): the agent file's name, or undefined when there is no state to tell. Read as the compared
 * files are, bounded: opened without waiting and read only when a regular file (a FIFO would block
 * the open, /dev/zero never ends), and only its first STATE_HEADER_BYTES.
 */
export async function agentOfResults(path: string, signal?: AbortSignal): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(`${path}.state`, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    if (signal?.aborted || notARegularFile(await handle.stat())) return undefined;
    const head = Buffer.alloc(STATE_HEADER_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const end = head.subarray(0, bytesRead).indexOf(10);
    const text = head
      .toString('utf8', 0, end === -1 ? bytesRead : end)
      .replace(/\r$/, '')
      .replace(/^\uFEFF/, '');
    const header = parseJson(text) as { agent?: unknown } | null;
    return typeof header?.agent === 'string' ? basename(header.agent) : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
