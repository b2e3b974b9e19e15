// Two runs of an agent set side by side: two batch results files, or two agent-test JSON reports.
// Rows are matched by row number or by a key column; each pair is compared (compareRow) and the
// changes kept for the report, bounded: regressions first, then fixes, then other changes, each
// list cut and counted. Results files are streamed in step when their rows come in about the same
// order (a window of rows waiting for their partner); when they do not (the window overflows, or a
// row's later line comes after it was compared), both are indexed instead: the place of each row's
// last line, then the lines read again by place. Memory stays bounded by the window, the indexes
// (a few numbers a row) and the lists, never by the files.
import { closeSync, openSync, readSync } from 'node:fs';
import type { RowStatus } from '../batch/batchModel';
import { readLines } from '../batch/dataRows';
import { parseResultHead } from '../batch/resultsRows';
import { MAX_RESULT_LINE_BYTES } from '../batch/resultsTable';
import { errorMessage } from '../errors';
import { compareRow } from './compareRows';
import type { RowChange, SideRow } from './compareRows';
import { agentOfResults, CompareError, fileKindOf, readReport, readResultLine, throwIfInterrupted } from './compareFiles';
import type { CompareFileKind, CompareSide, ReadLine, ReportCase } from './compareFiles';

export interface CompareOptions {
  /** Match rows by this column of the data (their other columns, else their inputs) rather than by row number. */
  readonly key?: string;
  /** Compare runs of different agents anyway, by output names. */
  readonly force?: boolean;
  readonly signal?: AbortSignal;
  /** Rows waiting for their partner while streaming; beyond, both files are indexed (tests make it small). */
  readonly maxPendingRows?: number;
  /** Bytes of the lines of the rows waiting (MAX_KEPT_LINE_BYTES); beyond, both files are indexed. */
  readonly maxPendingBytes?: number;
  /** Bytes of B's lines an index keeps read (MAX_KEPT_LINE_BYTES; tests make it 0 to read every row again). */
  readonly maxKeptLineBytes?: number;
}

/** A list cut at its bound, and how many there are in all. */
export interface Listed<T> {
  readonly count: number;
  readonly items: readonly T[];
}

export interface SideSummary {
  readonly path: string;
  /** Rows (cases), each counted once whatever its number of lines. */
  readonly rows: number;
  readonly finished: number;
  /** Rows that did not finish (failed, error, timeout, unknown, skipped). */
  readonly failures: number;
  /** Rows with expectations, and those that met them. */
  readonly checked: number;
  readonly passed: number;
  /** Of the rows that finished. */
  readonly p50Ms?: number;
  readonly p95Ms?: number;
  /** The agent file the batch ran (from its state file), when known. */
  readonly agent?: string;
}

export interface BadLine {
  readonly side: CompareSide;
  readonly path: string;
  readonly line: number;
  readonly problem: string;
}

export interface Comparison {
  readonly kind: CompareFileKind;
  readonly matchedBy: { readonly kind: 'row' } | { readonly kind: 'key'; readonly column: string } | { readonly kind: 'case' };
  /** Whether the files were streamed in step or indexed (rows in another order). */
  readonly mode: 'streamed' | 'indexed';
  readonly a: SideSummary;
  readonly b: SideSummary;
  /** Rows in both. */
  readonly matched: number;
  readonly unchanged: number;
  readonly regressions: Listed<RowChange>;
  readonly fixes: Listed<RowChange>;
  /** Rows that changed otherwise (outputs, a duration, a status between two failures). */
  readonly changes: Listed<RowChange>;
  /** Matched rows whose outputs changed, and rows whose duration changed beyond noise. */
  readonly changedOutputs: number;
  readonly durationChanges: number;
  readonly onlyInA: Listed<{ readonly key: string; readonly row: number }>;
  readonly onlyInB: Listed<{ readonly key: string; readonly row: number }>;
  /** Rows without a value in the key column: not matched. */
  readonly keyMissing: { readonly a: Listed<number>; readonly b: Listed<number> };
  /** Rows whose key an earlier row of the same file has: not matched (the first is). */
  readonly duplicateKeys: {
    readonly a: Listed<{ readonly key: string; readonly row: number }>;
    readonly b: Listed<{ readonly key: string; readonly row: number }>;
  };
  /** Lines that are not a row's result (cut short, edited by hand): skipped, the rest compared. */
  readonly badLines: Listed<BadLine>;
  /** Compared although of different agents (force). */
  readonly differentAgents?: { readonly a: string; readonly b: string; readonly by: 'agent-file' | 'outputs' | 'test-files' };
}

/** Rows of each list kept for the report; beyond, counted. */
export const MAX_LISTED_CHANGES = 500;
/** Rows only in one file, without a key, with a duplicate key, and bad lines, kept; beyond, counted. */
export const MAX_LISTED_ROWS = 100;
/** Rows waiting for their partner while streaming (about the concurrency of a batch is usual). */
export const MAX_PENDING_ROWS = 5000;
/** Rows of one file compare reads. */
export const MAX_COMPARED_ROWS = 5_000_000;
/** Output names remembered per side, to tell runs of different agents apart. */
const MAX_OUTPUT_NAMES = 1000;

/**
 * Compares two runs; throws CompareError when they cannot be (unreadable, of two kinds, of two
 * agents), and 'interrupted' when the signal fires first: never the rows read before it.
 */
export async function compareRuns(pathA: string, pathB: string, options: CompareOptions = {}): Promise<Comparison> {
  const kindA = await fileKindOf(pathA, 'a', options.signal);
  const kindB = await fileKindOf(pathB, 'b', options.signal);
  if (kindA !== kindB) throw new CompareError({ kind: 'mixed-kinds', a: kindA, b: kindB });
  if (kindA === 'report') {
    if (options.key !== undefined) throw new CompareError({ kind: 'key-with-reports' });
    return compareReports(pathA, pathB, options);
  }
  const [agentA, agentB] = await Promise.all([agentOfResults(pathA, options.signal), agentOfResults(pathB, options.signal)]);
  let differentAgents: Comparison['differentAgents'];
  if (agentA !== undefined && agentB !== undefined && agentA !== agentB) {
    differentAgents = { a: agentA, b: agentB, by: 'agent-file' };
    if (!options.force) throw new CompareError({ kind: 'different-agents', ...differentAgents });
  }
  const tally = new Tally(pathA, pathB, options.key !== undefined ? { kind: 'key', column: options.key } : { kind: 'row' });
  let result = await streamed(pathA, pathB, options, tally);
  if (result === 'unordered') {
    const indexedTally = new Tally(pathA, pathB, tally.matchedBy);
    await indexed(pathA, pathB, options, indexedTally);
    result = indexedTally;
  }
  throwIfInterrupted(options.signal);
  const outputs = result.outputNamesApart();
  if (!differentAgents && outputs) {
    differentAgents = { ...outputs, by: 'outputs' };
    if (!options.force) throw new CompareError({ kind: 'different-agents', ...differentAgents });
  }
  return result.comparison('results', {
    ...(agentA !== undefined ? { agentA } : {}),
    ...(agentB !== undefined ? { agentB } : {}),
    ...(differentAgents ? { differentAgents } : {}),
  });
}

async function compareReports(pathA: string, pathB: string, options: CompareOptions): Promise<Comparison> {
  const [casesA, casesB] = [await readReport(pathA, 'a'), await readReport(pathB, 'b')];
  const filesA = new Set(casesA.map((item) => item.file));
  const filesB = new Set(casesB.map((item) => item.file));
  let differentAgents: Comparison['differentAgents'];
  if (![...filesA].some((file) => filesB.has(file))) {
    differentAgents = { a: [...filesA].join(', '), b: [...filesB].join(', '), by: 'test-files' };
    if (!options.force) throw new CompareError({ kind: 'different-agents', ...differentAgents });
  }
  // Forced over different test files: cases are matched by name alone.
  const keyOf = (item: ReportCase): string => (differentAgents ? item.name : item.key);
  const tally = new Tally(pathA, pathB, { kind: 'case' });
  const byKey = new Map<string, ReportCase>();
  for (const item of casesB) {
    if (byKey.has(keyOf(item))) tally.duplicate('b', keyOf(item), item.row);
    else byKey.set(keyOf(item), item);
  }
  const seen = new Set<string>();
  for (const item of casesA) {
    const key = keyOf(item);
    if (seen.has(key)) {
      tally.duplicate('a', key, item.row);
      continue;
    }
    seen.add(key);
    const other = byKey.get(key);
    if (other) {
      byKey.delete(key);
      tally.pair(key, item.row, other.row);
    } else tally.only('a', key, item.row);
  }
  for (const [key, item] of byKey) tally.only('b', key, item.row);
  throwIfInterrupted(options.signal);
  return tally.comparison('report', differentAgents ? { differentAgents } : {});
}

/** The first row of a key met in a file, to tell a later line of the same row from another row with that key. */
interface Seen {
  readonly row: number;
  /** Compared (or counted) already: a later line of it means the files are not in step. */
  done: boolean;
}

/**
 * Both results files read in step, each row compared as soon as its partner has been read. Rows
 * wait for their partner in a window, bounded by rows and by the bytes of their lines (a row holds
 * its parsed outputs, and a line may be 16 MB); 'unordered' when the window overflows or a row has
 * a line after it was compared (a row restarted): the caller indexes the files instead.
 */
async function streamed(pathA: string, pathB: string, options: CompareOptions, tally: Tally): Promise<Tally | 'unordered'> {
  const maxPending = options.maxPendingRows ?? MAX_PENDING_ROWS;
  const maxPendingBytes = options.maxPendingBytes ?? MAX_KEPT_LINE_BYTES;
  const readers = { a: lines(pathA, 'a', options), b: lines(pathB, 'b', options) };
  const pending = { a: new Map<string, { row: SideRow; bytes: number }>(), b: new Map<string, { row: SideRow; bytes: number }>() };
  let pendingBytes = 0;
  const seen = { a: new Map<string, Seen>(), b: new Map<string, Seen>() };
  // Rows counted alone (without a key, or with one an earlier row has), by number: counted once, as
  // the index counts them; a later line of one is 'unordered' (only the index finds its last line).
  const alone = { a: new Set<number>(), b: new Set<number>() };
  const rowsOf = (side: CompareSide): number => seen[side].size + alone[side].size;
  const tooMany = (side: CompareSide): CompareError =>
    new CompareError({ kind: 'too-many-rows', side, path: side === 'a' ? pathA : pathB, max: MAX_COMPARED_ROWS });
  const countAlone = (side: CompareSide, row: number): boolean => {
    if (alone[side].has(row)) return false;
    if (rowsOf(side) >= MAX_COMPARED_ROWS) throw tooMany(side);
    alone[side].add(row);
    return true;
  };
  const other = (side: CompareSide): CompareSide => (side === 'a' ? 'b' : 'a');
  const take = (side: CompareSide, { read, bytes }: { read: ReadLine; bytes: number }): boolean => {
    if (read.kind === 'blank') return true;
    if (read.kind === 'bad') {
      tally.bad(side, read.line, read.problem);
      return true;
    }
    if (read.key === undefined) {
      if (!countAlone(side, read.row.row)) return false;
      tally.keyMissing(side, read.row);
      return true;
    }
    const known = seen[side].get(read.key);
    if (known && known.row !== read.row.row) {
      if (!countAlone(side, read.row.row)) return false;
      tally.duplicate(side, read.key, read.row);
      return true;
    }
    if (known?.done) return false;
    if (!known) {
      if (rowsOf(side) >= MAX_COMPARED_ROWS) throw tooMany(side);
      seen[side].set(read.key, { row: read.row.row, done: false });
    }
    const partner = pending[other(side)].get(read.key);
    if (partner) {
      pending[other(side)].delete(read.key);
      pendingBytes -= partner.bytes;
      seen.a.get(read.key)!.done = true;
      seen.b.get(read.key)!.done = true;
      const [a, b] = side === 'a' ? [read.row, partner.row] : [partner.row, read.row];
      tally.pair(read.key, a, b);
      return true;
    }
    // A later line of a row still waiting replaces its earlier one: the last line is its result.
    pendingBytes += bytes - (pending[side].get(read.key)?.bytes ?? 0);
    pending[side].set(read.key, { row: read.row, bytes });
    return pending.a.size + pending.b.size <= maxPending && pendingBytes <= maxPendingBytes;
  };
  try {
    let doneA = false;
    let doneB = false;
    while (!doneA || !doneB) {
      if (!doneA) {
        const next = await readers.a.next();
        if (next.done) doneA = true;
        else if (!take('a', next.value)) return 'unordered';
      }
      if (!doneB) {
        const next = await readers.b.next();
        if (next.done) doneB = true;
        else if (!take('b', next.value)) return 'unordered';
      }
    }
  } finally {
    await readers.a.return(undefined);
    await readers.b.return(undefined);
  }
  for (const side of ['a', 'b'] as const) for (const [key, { row }] of pending[side]) tally.only(side, key, row);
  tally.mode = 'streamed';
  return tally;
}

/** The rows of a results file, read line by line, each with the bytes of its line. */
async function* lines(path: string, side: CompareSide, options: CompareOptions): AsyncGenerator<{ read: ReadLine; bytes: number }> {
  try {
    for await (const { text, line, overflow, bytes } of readLines(path, MAX_RESULT_LINE_BYTES, options.signal))
      yield { read: readResultLine(text, line, overflow, options.key), bytes };
    throwIfInterrupted(options.signal);
  } catch (error) {
    if (error instanceof CompareError) throw error;
    throw new CompareError({ kind: 'unreadable', side, path, reason: errorMessage(error) });
  }
}

/** Where a row's last line is in B, and its key. */
interface IndexEntry {
  readonly row: number;
  readonly offset: number;
  readonly bytes: number;
  readonly line: number;
  readonly key?: string;
  /** The row itself, while the rows kept stay within MAX_KEPT_LINE_BYTES: not read again. */
  readonly kept?: SideRow;
}

/**
 * Bytes of B's lines whose rows an index keeps read (a row's outputs are a part of its line): the
 * rows beyond are read again by their place. Reading again costs a system call a row; keeping costs
 * memory: this keeps both bounded.
 */
export const MAX_KEPT_LINE_BYTES = 48 * 1024 * 1024;

/**
 * Both files indexed: B by key (the place of each row's last line), A by the number of each row's
 * last line; then A read through once more in its order, each row's last line compared with its
 * partner's, read again from B by its place. A is parsed once, B about twice.
 */
async function indexed(pathA: string, pathB: string, options: CompareOptions, tally: Tally): Promise<void> {
  const lastLineA = await lastLines(pathA, 'a', options);
  const entriesB = await indexFile(pathB, 'b', options, tally);
  const fileB = openSync(pathB, 'r');
  const seenA = new Map<string, number>();
  try {
    // By key: the first row with each key; later rows with it are duplicates. Those and the rows
    // without a key are counted by their last line, as A's are (and as streaming counts them).
    const byKeyB = new Map<string, IndexEntry>();
    for (const entry of entriesB.values()) {
      if (entry.key === undefined) tally.keyMissing('b', readAt(fileB, entry, options.key));
      else if (byKeyB.has(entry.key)) tally.duplicate('b', entry.key, readAt(fileB, entry, options.key));
      else byKeyB.set(entry.key, entry);
    }
    entriesB.clear();
    for await (const { read } of lines(pathA, 'a', options)) {
      if (read.kind === 'bad') tally.bad('a', read.line, read.problem);
      if (read.kind !== 'row' || lastLineA.get(read.row.row) !== read.line) continue;
      if (read.key === undefined) {
        tally.keyMissing('a', read.row);
        continue;
      }
      if (seenA.has(read.key)) {
        tally.duplicate('a', read.key, read.row);
        continue;
      }
      seenA.set(read.key, read.row.row);
      const entryB = byKeyB.get(read.key);
      if (!entryB) {
        tally.only('a', read.key, read.row);
        continue;
      }
      byKeyB.delete(read.key);
      tally.pair(read.key, read.row, readAt(fileB, entryB, options.key));
    }
    for (const [key, entryB] of byKeyB) tally.only('b', key, readAt(fileB, entryB, options.key));
  } finally {
    closeSync(fileB);
  }
  tally.mode = 'indexed';
}

/** The line number of each row's last line (its result), read by each line's head alone (bad lines are counted when read whole). */
async function lastLines(path: string, side: CompareSide, options: CompareOptions): Promise<Map<number, number>> {
  const last = new Map<number, number>();
  try {
    for await (const { text, line, overflow } of readLines(path, MAX_RESULT_LINE_BYTES, options.signal)) {
      const head = parseResultHead(text);
      let row = head?.row;
      if (row === undefined) {
        // Not a line as a batch writes it (its head first): read whole, to name what is wrong.
        const read = readResultLine(text, line, overflow, options.key);
        if (read.kind !== 'row') continue;
        row = read.row.row;
      }
      if (!last.has(row) && last.size >= MAX_COMPARED_ROWS)
        throw new CompareError({ kind: 'too-many-rows', side, path, max: MAX_COMPARED_ROWS });
      last.set(row, line);
    }
    throwIfInterrupted(options.signal);
  } catch (error) {
    if (error instanceof CompareError) throw error;
    throw new CompareError({ kind: 'unreadable', side, path, reason: errorMessage(error) });
  }
  return last;
}

async function indexFile(path: string, side: CompareSide, options: CompareOptions, tally: Tally): Promise<Map<number, IndexEntry>> {
  const index = new Map<number, IndexEntry>();
  let kept = 0;
  try {
    for await (const { text, line, overflow, offset, bytes } of readLines(path, MAX_RESULT_LINE_BYTES, options.signal)) {
      const read = readResultLine(text, line, overflow, options.key);
      if (read.kind === 'blank') continue;
      if (read.kind === 'bad') {
        tally.bad(side, read.line, read.problem);
        continue;
      }
      if (!index.has(read.row.row) && index.size >= MAX_COMPARED_ROWS)
        throw new CompareError({ kind: 'too-many-rows', side, path, max: MAX_COMPARED_ROWS });
      // A later line of a row replaces the earlier one (map order stays the row's first line's).
      const keep = kept + bytes <= (options.maxKeptLineBytes ?? MAX_KEPT_LINE_BYTES);
      if (keep) kept += bytes;
      index.set(read.row.row, {
        row: read.row.row,
        offset,
        bytes,
        line,
        ...(read.key !== undefined ? { key: read.key } : {}),
        ...(keep ? { kept: read.row } : {}),
      });
    }
    throwIfInterrupted(options.signal);
  } catch (error) {
    if (error instanceof CompareError) throw error;
    throw new CompareError({ kind: 'unreadable', side, path, reason: errorMessage(error) });
  }
  return index;
}

/** A buffer for the lines read again by place, grown to the longest. */
let lineBuffer = Buffer.alloc(64 * 1024);

/**
 * A row's last line read again from its place (it was a row when indexed). Read synchronously: one
 * short read from a file just read, in the page cache; an await per row costs more than the read.
 */
function readAt(fd: number, entry: IndexEntry, key: string | undefined): SideRow {
  if (entry.kept) return entry.kept;
  const length = Math.min(entry.bytes, MAX_RESULT_LINE_BYTES);
  if (lineBuffer.length < length) lineBuffer = Buffer.alloc(length);
  const bytesRead = readSync(fd, lineBuffer, 0, length, entry.offset);
  const text = lineBuffer.toString('utf8', 0, bytesRead).replace(/\r$/, '');
  const read = readResultLine(entry.line === 1 ? text.replace(/^\uFEFF/, '') : text, entry.line, entry.bytes > MAX_RESULT_LINE_BYTES, key);
  // The file changed since it was indexed: the row is still counted, by what its index knew.
  return read.kind === 'row' ? read.row : { row: entry.row, status: 'unknown', partial: true };
}

/** Everything a comparison counts and lists, bounded. */
class Tally {
  mode: Comparison['mode'] = 'streamed';
  private readonly sides = { a: new SideTally(), b: new SideTally() };
  private matched = 0;
  private unchanged = 0;
  private changedOutputs = 0;
  private durationChanges = 0;
  private readonly lists = {
    regression: new Bounded<RowChange>(MAX_LISTED_CHANGES),
    fix: new Bounded<RowChange>(MAX_LISTED_CHANGES),
    changed: new Bounded<RowChange>(MAX_LISTED_CHANGES),
  };
  private readonly onlyIn = {
    a: new Bounded<{ key: string; row: number }>(MAX_LISTED_ROWS),
    b: new Bounded<{ key: string; row: number }>(MAX_LISTED_ROWS),
  };
  private readonly missing = { a: new Bounded<number>(MAX_LISTED_ROWS), b: new Bounded<number>(MAX_LISTED_ROWS) };
  private readonly duplicates = {
    a: new Bounded<{ key: string; row: number }>(MAX_LISTED_ROWS),
    b: new Bounded<{ key: string; row: number }>(MAX_LISTED_ROWS),
  };
  private readonly badLines = new Bounded<BadLine>(MAX_LISTED_ROWS);

  constructor(
    private readonly pathA: string,
    private readonly pathB: string,
    readonly matchedBy: Comparison['matchedBy'],
  ) {}

  pair(key: string, a: SideRow, b: SideRow): void {
    this.sides.a.add(a);
    this.sides.b.add(b);
    this.matched++;
    const change = compareRow(key, a, b);
    if (!change) {
      this.unchanged++;
      return;
    }
    if (change.outputs) this.changedOutputs++;
    if (change.duration) this.durationChanges++;
    this.lists[change.verdict].add(change);
  }

  only(side: CompareSide, key: string, row: SideRow): void {
    this.sides[side].add(row);
    this.onlyIn[side].add({ key, row: row.row });
  }

  keyMissing(side: CompareSide, row: SideRow): void {
    this.sides[side].add(row);
    this.missing[side].add(row.row);
  }

  duplicate(side: CompareSide, key: string, row: SideRow): void {
    this.sides[side].add(row);
    this.duplicates[side].add({ key, row: row.row });
  }

  bad(side: CompareSide, line: number, problem: string): void {
    this.badLines.add({ side, path: side === 'a' ? this.pathA : this.pathB, line, problem });
  }

  /** Output names of two sides with none in common (runs of two agents), or undefined. */
  outputNamesApart(): { a: string; b: string } | undefined {
    const { a, b } = this.sides;
    if (!a.outputNames.size || !b.outputNames.size) return undefined;
    for (const name of a.outputNames) if (b.outputNames.has(name)) return undefined;
    const names = (set: Set<string>): string => `outputs ${[...set].slice(0, 5).join(', ')}${set.size > 5 ? ', …' : ''}`;
    return { a: names(a.outputNames), b: names(b.outputNames) };
  }

  comparison(
    kind: CompareFileKind,
    extra: { agentA?: string; agentB?: string; differentAgents?: Comparison['differentAgents'] },
  ): Comparison {
    // A side without a single row has nothing to compare: its first bad line says why.
    for (const side of ['a', 'b'] as const) {
      if (this.sides[side].rows) continue;
      const path = side === 'a' ? this.pathA : this.pathB;
      const bad = this.badLines.listed().items.find((line) => line.side === side);
      throw new CompareError(
        bad
          ? { kind: 'not-comparable', side, path, line: bad.line, problem: `no line is a row's result; this one is ${bad.problem}` }
          : { kind: 'empty', side, path },
      );
    }
    return {
      kind,
      matchedBy: this.matchedBy,
      mode: this.mode,
      a: this.sides.a.summary(this.pathA, extra.agentA),
      b: this.sides.b.summary(this.pathB, extra.agentB),
      matched: this.matched,
      unchanged: this.unchanged,
      regressions: this.lists.regression.listed(),
      fixes: this.lists.fix.listed(),
      changes: this.lists.changed.listed(),
      changedOutputs: this.changedOutputs,
      durationChanges: this.durationChanges,
      onlyInA: this.onlyIn.a.listed(),
      onlyInB: this.onlyIn.b.listed(),
      keyMissing: { a: this.missing.a.listed(), b: this.missing.b.listed() },
      duplicateKeys: { a: this.duplicates.a.listed(), b: this.duplicates.b.listed() },
      badLines: this.badLines.listed(),
      ...(extra.differentAgents ? { differentAgents: extra.differentAgents } : {}),
    };
  }
}

/** Durations kept per side for p50/p95: all up to this many, then a sample (every other one, and so on). */
const MAX_DURATIONS = 1_000_000;

class SideTally {
  rows = 0;
  private finished = 0;
  private checked = 0;
  private passed = 0;
  private durations: number[] = [];
  /** Keep every `stride`-th duration once the list is full: an even sample, bounded. */
  private stride = 1;
  private seen = 0;
  readonly outputNames = new Set<string>();

  add(row: SideRow): void {
    this.rows++;
    if (row.status === 'finished') this.finished++;
    if (row.passed !== undefined) {
      this.checked++;
      if (row.passed) this.passed++;
    }
    if (row.status === 'finished' && row.durationMs !== undefined) {
      if (this.seen++ % this.stride === 0) this.durations.push(row.durationMs);
      if (this.durations.length >= MAX_DURATIONS) {
        this.durations = this.durations.filter((_, index) => index % 2 === 0);
        this.stride *= 2;
      }
    }
    if (row.outputs && this.outputNames.size < MAX_OUTPUT_NAMES) for (const name of Object.keys(row.outputs)) this.outputNames.add(name);
  }

  summary(path: string, agent: string | undefined): SideSummary {
    const sorted = Float64Array.from(this.durations).sort();
    const percentile = (p: number): number | undefined =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : undefined;
    const p50 = percentile(0.5);
    const p95 = percentile(0.95);
    return {
      path,
      rows: this.rows,
      finished: this.finished,
      failures: this.rows - this.finished,
      checked: this.checked,
      passed: this.passed,
      ...(p50 !== undefined ? { p50Ms: p50 } : {}),
      ...(p95 !== undefined ? { p95Ms: p95 } : {}),
      ...(agent !== undefined ? { agent } : {}),
    };
  }
}

class Bounded<T> {
  private readonly items: T[] = [];
  private total = 0;
  constructor(private readonly max: number) {}
  add(item: T): void {
    this.total++;
    if (this.items.length < this.max) this.items.push(item);
  }
  get count(): number {
    return this.total;
  }
  listed(): Listed<T> {
    return { count: this.total, items: this.items };
  }
}

/** Statuses that are not a row's finish, for words. */
export type NotFinished = Exclude<RowStatus, 'finished'>;
