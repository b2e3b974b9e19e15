// A data row as the inputs of one execution, checked by the one input pipeline
// (../inputs/inputValues.ts): columns named as the inputs or mapped to them (--map INPUT=COLUMN), a
// file input's column holding a path relative to the data file's folder (and inside it, unless
// allowed: ../inputs/fileAccess.ts), `expect.<output>` columns as expectations. Every problem names
// the row and, when it is one column's, the column.
import { dirname } from 'node:path';
import { parseJson } from '../json';
import type { AgentModel } from '../document/model';
import { closestMatch, listWords, NameSuggester } from '../document/suggest';
import { checkFileAccess, describeFileRefusal } from '../inputs/fileAccess';
import type { NamedFile } from '../inputs/fileAccess';
import { InputError, prepareInputs } from '../inputs/inputValues';
import type { InputHints, PreparedInputs } from '../inputs/inputValues';
import { deepEqual, matchValue } from '../testing/matchers';
import type { Matcher } from '../testing/matchers';
import { readDataRows } from './dataRows';
import type { DataSurvey, RowProblem } from './dataRows';

/**
 * Problems kept for one bad row; beyond, they are counted. A row of 120,000 unknown columns must
 * not become 120,000 problems in the results, on stderr and in memory.
 */
export const MAX_ROW_PROBLEMS = 20;
/** The most characters of one problem's message (a value quoted in it may be long). */
export const MAX_PROBLEM_CHARS = 1000;

/** A bad row: its first MAX_ROW_PROBLEMS problems, and how many more it has. */
export interface RowProblems {
  readonly row: number;
  readonly problems: readonly RowProblem[];
  /** Problems beyond those listed (absent when all are). */
  readonly problemsNotListed?: number;
  /** The row's other columns (neither inputs nor expectations), kept for its result (absent when none). */
  readonly columns?: Readonly<Record<string, unknown>>;
}

/** The prefix of a column that holds the expected value of an output. */
export const EXPECT_PREFIX = 'expect.';

export interface RowMapping {
  /** Input name → the column it is read from, for inputs not named as their column. */
  readonly map?: ReadonlyMap<string, string>;
  /** The data file's folder: file paths in the data are relative to it, and must stay inside it. */
  readonly baseDir: string;
  /** Folders whose files the data may name as well (by an absolute path, `..`, or a link). */
  readonly allowedFolders?: readonly string[];
  /**
   * A column that is neither an input nor `expect.…` makes the row bad (the command line's
   * --strict-columns). Without it, such columns are the row's other columns, kept in its result.
   */
  readonly strictColumns?: boolean;
}

export interface RowExpectation {
  readonly output: string;
  readonly expected: unknown;
  /** From a CSV cell: text that may also be read as JSON (3, true, {"a":1}). */
  readonly fromText: boolean;
}

export interface RowInputs {
  readonly row: number;
  /** For a request to the service (file inputs by absolute path). */
  readonly prepared: PreparedInputs;
  /** File inputs by real path, for the local engine. */
  readonly files: Readonly<Record<string, string>>;
  /** Values as given for the results: converted values, and file inputs as their path in the data (contents never inlined). */
  readonly shown: Readonly<Record<string, unknown>>;
  readonly expectations: readonly RowExpectation[];
  /** The row's other columns (an id, a label, notes): neither inputs nor expectations, kept as given. */
  readonly columns: Readonly<Record<string, unknown>>;
}

/** The columns of a data file that are neither inputs nor `expect.…`: said once, before anything is sent. */
export interface OtherColumns {
  /** Each such column, with the input it may be a typo of. At most MAX_SURVEYED_COLUMNS. */
  readonly columns: ReadonlyArray<{ readonly name: string; readonly suggestion?: string }>;
  /** Such columns beyond those listed (the survey's own count of names it did not list is added). */
  readonly notListed: number;
  /** Whether they make their rows bad (strict) or are kept in the results. */
  readonly strict: boolean;
}

/**
 * The columns of a surveyed data file that are neither an input (by name or mapped) nor `expect.…`,
 * each with the input name it is closest to when it is a likely typo (`txet` for `text`). Undefined
 * when there are none. A column named as an input that is mapped from another column is not one of
 * them: its rows have a problem of their own.
 */
export function otherColumns(
  model: AgentModel,
  survey: Pick<DataSurvey, 'columns' | 'columnsNotListed'>,
  options: { readonly map?: ReadonlyMap<string, string>; readonly strict?: boolean } = {},
): OtherColumns | undefined {
  const map = options.map ?? new Map<string, string>();
  const mappedColumns = new Set(map.values());
  const suggester = new NameSuggester(model.inputs.keys());
  const columns: Array<{ name: string; suggestion?: string }> = [];
  for (const name of survey.columns) {
    if (name.startsWith(EXPECT_PREFIX) || mappedColumns.has(name) || map.has(name) || model.inputs.has(name)) continue;
    const suggestion = suggester.suggest(name);
    columns.push({ name, ...(suggestion !== undefined ? { suggestion } : {}) });
  }
  if (!columns.length && !survey.columnsNotListed) return undefined;
  return { columns, notListed: survey.columnsNotListed, strict: options.strict === true };
}

/** A problem with the column mapping itself (the CLI's --map), as facts: each adapter words it. */
export type ColumnMapProblem =
  /** The mapping names an input the agent does not have; `suggestion` is the closest it has. */
  | {
      readonly kind: 'unknown-input';
      readonly input: string;
      readonly column: string;
      readonly suggestion?: string;
      readonly inputs: readonly string[];
    }
  /** One column is given to two inputs. */
  | { readonly kind: 'column-twice'; readonly column: string; readonly inputs: readonly [string, string] };

/**
 * Problems with the column mapping itself, found once before any row: an input the agent does not
 * have, a column given to two inputs.
 */
export function checkColumnMap(model: AgentModel, map: ReadonlyMap<string, string>): ColumnMapProblem[] {
  const problems: ColumnMapProblem[] = [];
  const names = [...model.inputs.keys()];
  const columns = new Map<string, string>();
  for (const [input, column] of map) {
    if (!model.inputs.has(input)) {
      const suggestion = closestMatch(input, names);
      problems.push({ kind: 'unknown-input', input, column, ...(suggestion ? { suggestion } : {}), inputs: names });
    }
    const other = columns.get(column);
    if (other !== undefined) problems.push({ kind: 'column-twice', column, inputs: [other, input] });
    columns.set(column, input);
  }
  return problems;
}

/** A column mapping problem in words that name no flag or setting (the message of a BatchSetupError). */
export function describeColumnMapProblem(problem: ColumnMapProblem): string {
  if (problem.kind === 'column-twice')
    return `Column "${problem.column}" is given to both "${problem.inputs[0]}" and "${problem.inputs[1]}".`;
  return `Column "${problem.column}" is given to input "${problem.input}", which the agent does not have.${problem.suggestion ? ` Did you mean "${problem.suggestion}"?` : problem.inputs.length ? ` Its inputs are ${listWords(problem.inputs, 'and')}.` : ''}`;
}

/** The inputs and expectations of one row, or every problem it has. */
export async function rowInputs(
  model: AgentModel,
  data: { readonly row: number; readonly fields: Readonly<Record<string, unknown>>; readonly fromText: boolean },
  mapping: RowMapping,
): Promise<RowInputs | RowProblems> {
  const { row } = data;
  const map = mapping.map ?? new Map<string, string>();
  const inputOfColumn = new Map<string, string>([...map].map(([input, column]) => [column, input]));
  const columnOf = (input: string): string => map.get(input) ?? input;
  const problems = new ProblemList();
  /** Unknown columns passed on to the input check, which words them; the rest are only counted. */
  let unknownColumns = 0;
  const values: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const files: Record<string, NamedFile> = Object.create(null) as Record<string, NamedFile>;
  /** File inputs whose column was refused above (a problem said): not "required" again. */
  const named = new Set<string>();
  const shownFiles: Record<string, string> = {};
  const expectations: RowExpectation[] = [];
  const outputs = [...model.outputs.keys()];
  // No prototype: a column named __proto__ is a column like any other.
  const others: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  let anyOther = false;

  for (const [column, value] of Object.entries(data.fields)) {
    if (column.startsWith(EXPECT_PREFIX)) {
      const output = column.slice(EXPECT_PREFIX.length);
      if (!model.outputs.has(output)) {
        const suggestion = closestMatch(output, outputs);
        problems.push({
          row,
          column,
          message: `the agent has no output "${output}"${suggestion ? `; did you mean "${EXPECT_PREFIX}${suggestion}"?` : outputs.length ? ` (its outputs are ${listWords(outputs, 'and')})` : ''}`,
        });
      } else if (value !== undefined && !(data.fromText && value === '')) {
        expectations.push({ output, expected: value, fromText: data.fromText });
      }
      continue;
    }
    // A column named as an input that is mapped from another column is not that input.
    const input = inputOfColumn.get(column) ?? (map.has(column) ? undefined : column);
    if (input === undefined) {
      problems.push({
        row,
        column,
        message: `column "${column}" is not used: input "${column}" is read from column "${map.get(column)}" instead`,
      });
      continue;
    }
    const declaration = model.inputs.get(input);
    if (!declaration && !mapping.strictColumns) {
      // Not an input: one of the row's other columns (an id, a label), kept for its result as given.
      if (value !== undefined) {
        others[column] = value;
        anyOther = true;
      }
      continue;
    }
    // An empty CSV cell, like null in JSON, gives no value: the input's default applies.
    if (value === null || value === undefined || (data.fromText && value === '')) continue;
    if (!declaration && ++unknownColumns > MAX_ROW_PROBLEMS) {
      problems.count();
      continue;
    }
    if (declaration?.type === 'file') {
      if (typeof value !== 'string' || value.trim() === '') {
        problems.push({
          row,
          column,
          message: `input "${input}" is a file input: the column must hold a file path, not ${JSON.stringify(value)}`,
        });
        named.add(input);
        continue;
      }
      const access = await checkFileAccess(value, {
        folder: mapping.baseDir,
        ...(mapping.allowedFolders ? { allowedFolders: mapping.allowedFolders } : {}),
      });
      if (!access.ok) {
        problems.push({ row, column, message: describeFileRefusal(access.refusal, 'data file'), refusal: access.refusal });
        named.add(input);
        continue;
      }
      files[input] = { ...access.file, shown: value };
      shownFiles[input] = value;
    } else {
      values[input] = value;
    }
  }

  const hints: InputHints = {
    value: (name) => `fill column "${columnOf(name)}"`,
    file: (name) => `fill column "${columnOf(name)}" with a file path (relative to the data file's folder)`,
  };
  let prepared: PreparedInputs | undefined;
  try {
    prepared = prepareInputs(model, { values: values as Record<string, string>, files: { ...files } }, hints);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    // Each problem is about an input; the column is where that input came from. An input whose
    // file was refused above is missing for that reason alone: said once, by the refusal.
    error.problems.forEach((message, index) => {
      const input = error.inputs[index];
      if (input !== undefined && named.has(input)) return;
      problems.push({ row, ...(input !== undefined ? { column: columnOf(input) } : {}), message });
    });
  }
  const columns = anyOther ? { columns: others } : {};
  if (problems.any() || !prepared) return { row, ...problems.result(), ...columns };
  const paths = Object.fromEntries(Object.entries(files).map(([input, file]) => [input, file.path]));
  return { row, prepared, files: paths, shown: { ...prepared.inputs, ...shownFiles }, expectations, columns: others };
}

/** Distinct folders a data file's refused paths are in, listed at most (the editor asks about them). */
const MAX_REFUSED_FOLDERS = 10;

/**
 * The folders outside the data file's own (and not allowed) that its rows name files in: what the
 * editor asks to allow before a batch. One pass over the rows; only file inputs' cells are checked.
 */
export async function refusedDataFolders(
  model: AgentModel,
  dataPath: string,
  options: Omit<RowMapping, 'baseDir'> & { readonly signal?: AbortSignal } = {},
): Promise<string[]> {
  const folders = new Set<string>();
  const inputOfColumn = new Map<string, string>([...(options.map ?? [])].map(([input, column]) => [column, input]));
  const baseDir = dirname(dataPath);
  for await (const data of readDataRows(dataPath, options.signal ? { signal: options.signal } : {})) {
    if ('problem' in data) continue;
    for (const [column, value] of Object.entries(data.fields)) {
      const input = inputOfColumn.get(column) ?? (options.map?.has(column) ? undefined : column);
      if (input === undefined || model.inputs.get(input)?.type !== 'file' || typeof value !== 'string' || value.trim() === '') continue;
      const access = await checkFileAccess(value, {
        folder: baseDir,
        ...(options.allowedFolders ? { allowedFolders: options.allowedFolders } : {}),
      });
      if (!access.ok && access.refusal.allowFolder !== undefined) folders.add(access.refusal.allowFolder);
      if (folders.size >= MAX_REFUSED_FOLDERS) return [...folders];
    }
  }
  return [...folders];
}

/** A bad row's problems: the first MAX_ROW_PROBLEMS kept (each message cut at MAX_PROBLEM_CHARS), the rest counted. */
class ProblemList {
  private readonly kept: RowProblem[] = [];
  private notListed = 0;

  push(problem: RowProblem): void {
    if (this.kept.length >= MAX_ROW_PROBLEMS) {
      this.notListed++;
      return;
    }
    const message = problem.message.length > MAX_PROBLEM_CHARS ? `${problem.message.slice(0, MAX_PROBLEM_CHARS)}… (cut)` : problem.message;
    this.kept.push({ ...problem, message });
  }

  /** A problem counted without being worded (MAX_ROW_PROBLEMS others of its kind are). */
  count(): void {
    this.notListed++;
  }

  any(): boolean {
    return this.kept.length > 0;
  }

  result(): { readonly problems: readonly RowProblem[]; readonly problemsNotListed?: number } {
    return { problems: this.kept, ...(this.notListed ? { problemsNotListed: this.notListed } : {}) };
  }
}

export interface ExpectationFailure {
  readonly output: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

export interface ExpectationResult {
  readonly passed: boolean;
  readonly failures: readonly ExpectationFailure[];
}

/**
 * Checks a row's expectations, and those of an --expect file (output matchers that apply to every
 * row), against the outputs; undefined when there are none.
 */
export function checkExpectations(
  expectations: readonly RowExpectation[],
  outputs: unknown,
  everyRow?: ReadonlyMap<string, Matcher>,
): ExpectationResult | undefined {
  if (!expectations.length && !everyRow?.size) return undefined;
  const actualOutputs = typeof outputs === 'object' && outputs !== null ? (outputs as Record<string, unknown>) : {};
  const actualOf = (output: string): unknown => (Object.hasOwn(actualOutputs, output) ? actualOutputs[output] : undefined);
  const failures: ExpectationFailure[] = [];
  for (const { output, expected, fromText } of expectations) {
    const actual = actualOf(output);
    if (!matchesExpected(expected, actual, fromText)) failures.push({ output, expected, actual: actual ?? null });
  }
  for (const [output, matcher] of everyRow ?? []) {
    for (const mismatch of matchValue(matcher, actualOf(output), '', 5)) {
      failures.push({
        output: mismatch.path ? `${output}.${mismatch.path}` : output,
        expected: mismatch.expectedValue ?? mismatch.expected,
        actual: mismatch.actual ?? null,
      });
    }
  }
  return { passed: failures.length === 0, failures };
}

function matchesExpected(expected: unknown, actual: unknown, fromText: boolean): boolean {
  if (deepEqual(expected, actual)) return true;
  if (!fromText || typeof expected !== 'string' || typeof actual === 'string') return false;
  // A CSV cell is text: "3" expects the number 3, "true" the boolean, {"a":1} the object.
  try {
    return deepEqual(parseJson(expected), actual);
  } catch {
    return false;
  }
}
