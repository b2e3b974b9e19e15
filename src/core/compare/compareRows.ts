// One row of run A against the same row of run B: what a person asks of a change to an agent. A
// status that stopped finishing is a regression (a row that finishes again, a fix); expectations
// that stopped passing, a regression; outputs that changed, with a short bounded diff of each; a
// duration that changed beyond noise. Facts only: the command line (and the editor) word them.
import { diffLines } from 'diff';
import type { RowStatus } from '../batch/batchModel';
import { deepEqual } from '../testing/matchers';
import { diffableText } from './normalizedJson';

/** A row of one side as compared: from a batch results line or an agent-test case. */
export interface SideRow {
  /** Its row number in its file (a case: its place in the report, from 1). */
  readonly row: number;
  readonly status: RowStatus;
  /** Whether it met its expectations (only when it has some). */
  readonly passed?: boolean;
  readonly durationMs?: number;
  /** Output values by name; undefined when the row has none (a row that did not finish). */
  readonly outputs?: Readonly<Record<string, unknown>>;
  /** The line was too long to read whole: only its row and status are known. */
  readonly partial?: boolean;
}

export type RowVerdict = 'regression' | 'fix' | 'changed';

/** How one output changed: its name, and a short diff of its two values. */
export interface OutputChange {
  readonly name: string;
  /** Lines "- …" (A) and "+ …" (B) and "  …" (the same), at most MAX_DIFF_LINES of MAX_LINE_CHARS. */
  readonly diff: readonly string[];
  /** Diff lines left out beyond the bound. */
  readonly diffLinesNotShown?: number;
  /** When a value was too long to diff whole: its length in characters (only its start was diffed). */
  readonly lengthA?: number;
  readonly lengthB?: number;
  /** Only in one side's outputs. */
  readonly only?: 'a' | 'b';
}

/** What changed in one row; absent fields did not change. */
export interface RowChange {
  /** The key the rows were matched by (the row number as text, or the key column's value). */
  readonly key: string;
  readonly rowA: number;
  readonly rowB: number;
  readonly verdict: RowVerdict;
  readonly status?: { readonly a: RowStatus; readonly b: RowStatus };
  readonly passed?: { readonly a: boolean; readonly b: boolean };
  /** The outputs that changed, the first MAX_DIFFED_OUTPUTS with a diff. */
  readonly outputs?: readonly OutputChange[];
  /** Outputs that changed beyond those listed. */
  readonly outputsNotListed?: number;
  readonly duration?: { readonly a: number; readonly b: number };
}

/** Outputs of a row listed with a diff; beyond, counted. */
export const MAX_DIFFED_OUTPUTS = 5;
/** The most diff lines kept of one output, and characters of one line. */
export const MAX_DIFF_LINES = 12;
export const MAX_LINE_CHARS = 200;
/**
 * Characters of a value diffed; a longer value (an output can be megabytes) is diffed by its start,
 * and its length is said. jsdiff is also bounded in edits (MAX_DIFF_EDITS): past it, the two values
 * are shown as removed and added.
 */
export const MAX_DIFFED_CHARS = 20_000;
const MAX_DIFF_EDITS = 200;

/**
 * Duration noise. A row's duration is one sample, and against the service it is measured at the
 * polls that see the execution end (the scheduler reads a status after about the batch's average
 * duration, then backs off by 1.5x up to 5 s): two runs of the same row easily differ by a poll's
 * interval, or by half of a short duration, for no reason in the agent. So a row's duration has
 * changed only when it both doubled (or halved) and moved by more than a second; smaller moves are
 * noise. The summary's p50 and p95 are where a general slowing shows.
 */
export const DURATION_NOISE_RATIO = 2;
export const DURATION_NOISE_MS = 1000;

/** Whether a duration changed beyond noise (see DURATION_NOISE_RATIO). */
export function durationChanged(a: number, b: number): boolean {
  const [low, high] = a <= b ? [a, b] : [b, a];
  return high - low > DURATION_NOISE_MS && high >= low * DURATION_NOISE_RATIO;
}

/** Row A against row B, matched by `key`: undefined when nothing a person compares changed. */
export function compareRow(key: string, a: SideRow, b: SideRow): RowChange | undefined {
  let regression = false;
  let fix = false;
  const status = a.status !== b.status ? { a: a.status, b: b.status } : undefined;
  if (status) {
    // Finished to anything else stops giving outputs: a regression; back to finished, a fix.
    if (a.status === 'finished') regression = true;
    else if (b.status === 'finished') fix = true;
  }
  const passed = a.passed !== undefined && b.passed !== undefined && a.passed !== b.passed ? { a: a.passed, b: b.passed } : undefined;
  if (passed) {
    if (passed.a) regression = true;
    else fix = true;
  }
  const changes = a.partial || b.partial ? [] : changedOutputs(a.outputs, b.outputs);
  const outputs = changes.slice(0, MAX_DIFFED_OUTPUTS).map((name) => outputChange(name, a.outputs, b.outputs));
  const duration =
    a.status === 'finished' &&
    b.status === 'finished' &&
    a.durationMs !== undefined &&
    b.durationMs !== undefined &&
    durationChanged(a.durationMs, b.durationMs)
      ? { a: a.durationMs, b: b.durationMs }
      : undefined;
  if (!status && !passed && !changes.length && !duration) return undefined;
  // A row that regressed in one way and was fixed in another is a regression: it needs a look.
  const verdict: RowVerdict = regression ? 'regression' : fix ? 'fix' : 'changed';
  return {
    key,
    rowA: a.row,
    rowB: b.row,
    verdict,
    ...(status ? { status } : {}),
    ...(passed ? { passed } : {}),
    ...(outputs.length ? { outputs } : {}),
    ...(changes.length > outputs.length ? { outputsNotListed: changes.length - outputs.length } : {}),
    ...(duration ? { duration } : {}),
  };
}

/**
 * The names of the outputs whose values differ (compared as JSON values: key order does not
 * matter), in A's order then B's. Only rows that both have outputs are compared: a row that did
 * not finish on one side has its status change instead.
 */
export function changedOutputs(a: SideRow['outputs'], b: SideRow['outputs']): string[] {
  if (!a || !b) return [];
  const names: string[] = [];
  for (const name of Object.keys(a)) if (!Object.hasOwn(b, name) || !deepEqual(a[name], b[name])) names.push(name);
  for (const name of Object.keys(b)) if (!Object.hasOwn(a, name)) names.push(name);
  return names;
}

function outputChange(name: string, a: SideRow['outputs'], b: SideRow['outputs']): OutputChange {
  const inA = a !== undefined && Object.hasOwn(a, name);
  const inB = b !== undefined && Object.hasOwn(b, name);
  const textA = inA ? diffableText(a[name]) : '';
  const textB = inB ? diffableText(b[name]) : '';
  const { lines, notShown } = boundedDiff(textA, textB);
  return {
    name,
    diff: lines,
    ...(notShown ? { diffLinesNotShown: notShown } : {}),
    ...(textA.length > MAX_DIFFED_CHARS ? { lengthA: textA.length } : {}),
    ...(textB.length > MAX_DIFFED_CHARS ? { lengthB: textB.length } : {}),
    ...(!inA ? { only: 'b' as const } : !inB ? { only: 'a' as const } : {}),
  };
}

/** A line of a diff, cut at MAX_LINE_CHARS. */
function diffLine(sign: string, text: string): string {
  const line = `${sign} ${text}`;
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line;
}

/**
 * The changed lines of two texts (and one line of context around each change), at most
 * MAX_DIFF_LINES, each value cut at MAX_DIFFED_CHARS first: bounded in time and size whatever the
 * values.
 */
export function boundedDiff(a: string, b: string): { lines: string[]; notShown: number } {
  const cutA = a.slice(0, MAX_DIFFED_CHARS);
  const cutB = b.slice(0, MAX_DIFFED_CHARS);
  const changes = diffLines(cutA, cutB, { maxEditLength: MAX_DIFF_EDITS }) ?? [
    { value: cutA, removed: true, added: false, count: 0 },
    { value: cutB, added: true, removed: false, count: 0 },
  ];
  const all: Array<{ sign: string; text: string }> = [];
  for (const change of changes) {
    if (change.value === '') continue;
    const sign = change.added ? '+' : change.removed ? '-' : ' ';
    for (const text of change.value.replace(/\n$/, '').split('\n')) all.push({ sign, text });
  }
  // Context: the lines next to a change; runs of unchanged lines beyond are one "…".
  const near = (index: number): boolean =>
    all[index]?.sign !== ' ' ||
    all[index - 1]?.sign === '+' ||
    all[index - 1]?.sign === '-' ||
    (all[index + 1] !== undefined && all[index + 1]!.sign !== ' ');
  const shown: string[] = [];
  let skipped = false;
  for (let index = 0; index < all.length; index++) {
    if (!near(index)) {
      if (!skipped) shown.push('  …');
      skipped = true;
      continue;
    }
    skipped = false;
    shown.push(diffLine(all[index]!.sign, all[index]!.text));
  }
  return { lines: shown.slice(0, MAX_DIFF_LINES), notShown: Math.max(0, shown.length - MAX_DIFF_LINES) };
}
