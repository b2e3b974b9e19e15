// What a batch writes as it goes, so that a crash or Ctrl-C loses nothing: the results file (one JSON
// line per row, appended as rows end) and the state file next to it, an append-only log of one line
// per event per row. "starting" is written and flushed to disk before the start request is sent,
// "started" with the execution id as soon as the answer comes: on --resume, a row with an id is
// polled again (never started twice), a row "starting" with no id may or may not have started.
// Both files are written synchronously: an event is on disk before the batch acts on it.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { readLines } from './dataRows';
import { parseResultHead, ROW_STATUSES } from './resultsRows';
import type { RowStatus } from './batchModel';
import { regularFileStream } from '../document/readTextFile';

export const STATE_VERSION = 1;

/** What a file held: its size in bytes and the SHA-256 of its bytes (hex). */
export interface FileFingerprint {
  readonly size: number;
  readonly sha256: string;
}

/** The files a batch ran, as they were when it started: a resume against changed files is refused. */
export interface BatchFingerprint {
  readonly data: FileFingerprint;
  /** The agent's text as it ran (an editor's unsaved changes included). */
  readonly agent: FileFingerprint;
}

/** The first line of a state file: which batch it belongs to. */
export interface StateHeader {
  readonly batch: typeof STATE_VERSION;
  readonly agent: string;
  readonly data: string;
  readonly mode: 'service' | 'local';
  readonly createdAt: string;
  /** Absent in state files written before fingerprints: their files cannot be checked. */
  readonly fingerprint?: BatchFingerprint;
}

/** The fingerprint of a file's bytes, streamed (a data file of any size is never held whole). */
export async function fileFingerprint(path: string, signal?: AbortSignal): Promise<FileFingerprint> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of await regularFileStream(path, signal ? { signal } : {})) {
    size += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { size, sha256: hash.digest('hex') };
}

/** The fingerprint of a text's UTF-8 bytes. */
export function textFingerprint(text: string): FileFingerprint {
  const bytes = Buffer.from(text, 'utf8');
  return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export function sameFingerprint(a: FileFingerprint, b: FileFingerprint): boolean {
  return a.size === b.size && a.sha256 === b.sha256;
}

export type StateEvent =
  | { readonly e: 'starting'; readonly row: number; readonly t: number }
  | { readonly e: 'started'; readonly row: number; readonly id: string; readonly t: number }
  /** The start certainly started nothing: the row is as if never started. */
  | { readonly e: 'refused'; readonly row: number }
  | { readonly e: 'ended'; readonly row: number; readonly status: string; readonly passed?: boolean };

/**
 * Writes bytes to an open file as fs.writeSync does: it may take fewer than it is given (a disk
 * nearly full, a file size limit) and says how many it took.
 */
export type WriteToFile = (fd: number, bytes: Uint8Array, offset: number, length: number) => number;

/** An append-only file of JSON lines, written synchronously: each line whole, or the write throws. */
export class JsonLinesFile {
  private fd: number | undefined;

  private constructor(
    fd: number,
    private readonly writeToFile: WriteToFile,
  ) {
    this.fd = fd;
  }

  /** Opens for appending; `fresh` refuses a file that exists. A torn last line is ended first. */
  static open(path: string, fresh: boolean, writeToFile: WriteToFile = writeSync): JsonLinesFile {
    const fd = openSync(path, fresh ? 'wx' : 'a+');
    const file = new JsonLinesFile(fd, writeToFile);
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 10) file.writeBytes(fd, Buffer.from('\n'));
    }
    return file;
  }

  write(value: unknown, durable = false): void {
    if (this.fd === undefined) return;
    this.writeBytes(this.fd, Buffer.from(`${JSON.stringify(value)}\n`));
    if (durable) fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  /**
   * Writes all of `bytes` or throws: a short write (a disk nearly full, a file size limit) is not
   * retried by Node, so the rest is written on until the file takes none. What a failed write put
   * down is cut off again: a result line torn after its row and status would read back on resume as
   * that row's result.
   */
  private writeBytes(fd: number, bytes: Buffer): void {
    let written = 0;
    try {
      while (written < bytes.length) {
        const took = this.writeToFile(fd, bytes, written, bytes.length - written);
        if (took <= 0) throw new Error('the file took none of the bytes written to it');
        written += took;
      }
    } catch (error) {
      if (written > 0) {
        try {
          ftruncateSync(fd, fstatSync(fd).size - written);
        } catch {
          // The write's error is the one that says why the line is not on disk.
        }
      }
      throw error;
    }
  }
}

export class BatchStateLog {
  private constructor(private readonly file: JsonLinesFile) {}

  static create(path: string, header: StateHeader, writeToFile?: WriteToFile): BatchStateLog {
    const log = new BatchStateLog(JsonLinesFile.open(path, true, writeToFile));
    log.file.write(header, true);
    return log;
  }

  static append(path: string, writeToFile?: WriteToFile): BatchStateLog {
    return new BatchStateLog(JsonLinesFile.open(path, false, writeToFile));
  }

  /** On disk before the start request is sent. */
  starting(row: number): void {
    this.write({ e: 'starting', row, t: Date.now() }, true);
  }

  started(row: number, id: string): void {
    this.write({ e: 'started', row, id, t: Date.now() }, true);
  }

  refused(row: number): void {
    this.write({ e: 'refused', row });
  }

  ended(row: number, status: string, passed?: boolean): void {
    this.write({ e: 'ended', row, status, ...(passed !== undefined ? { passed } : {}) });
  }

  close(): void {
    this.file.close();
  }

  private write(event: StateEvent, durable = false): void {
    this.file.write(event, durable);
  }
}

/** A line of a state or results file that no batch writes: the state cannot be trusted. */
export interface StateDamage {
  readonly path: string;
  readonly line: number;
  /** What is wrong with the line, in words. */
  readonly problem: string;
}

/** What an earlier run of the batch left, read back on --resume. */
export interface ResumeState {
  readonly header?: StateHeader;
  /** Rows that ended, with their status (from the state file and the results file). */
  readonly ended: Map<number, { readonly status: RowStatus; readonly passed?: boolean }>;
  /** Rows started and not known to have ended: polled again. */
  readonly started: Map<number, { readonly id: string; readonly t: number }>;
  /** Rows whose start was sent but whose answer was not recorded. */
  readonly unknown: Map<number, number>;
  /** The first line no batch writes (then the rest is not read): the batch must not be resumed. */
  readonly damaged?: StateDamage;
}

/**
 * The most of a state or results line that is read back: the row and status come first. Room for a
 * header naming two long paths; a longer state line is not one a batch wrote.
 */
const MAX_STATE_LINE_BYTES = 16_384;

const STATE_EVENTS = new Set(['starting', 'started', 'refused', 'ended']);

/** Whether a value is a fingerprint as a batch writes it. */
function isFingerprint(value: unknown): value is FileFingerprint {
  const print = value as Partial<FileFingerprint> | null;
  return (
    typeof print === 'object' &&
    print !== null &&
    Number.isSafeInteger(print.size) &&
    print.size! >= 0 &&
    typeof print.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(print.sha256)
  );
}

/** The header of a state file, or what is wrong with it. */
function stateHeaderOf(value: unknown): StateHeader | string {
  const header = value as Partial<Record<keyof StateHeader, unknown>> | null;
  if (typeof header !== 'object' || header === null || Array.isArray(header) || header.batch === undefined)
    return 'the first line is not the header of a batch (the agent, the data file and the mode)';
  if (header.batch !== STATE_VERSION) return `the state is of version ${JSON.stringify(header.batch)}, not ${STATE_VERSION}`;
  if (typeof header.agent !== 'string' || typeof header.data !== 'string' || (header.mode !== 'service' && header.mode !== 'local'))
    return 'the header does not name the agent, the data file and the mode';
  if (header.fingerprint !== undefined) {
    const print = header.fingerprint as Partial<Record<keyof BatchFingerprint, unknown>> | null;
    if (typeof print !== 'object' || print === null || !isFingerprint(print.data) || !isFingerprint(print.agent))
      return 'the fingerprint of the files in the header is not one a batch writes';
  }
  return header as unknown as StateHeader;
}

/** A row number as a line of the state or results file gives it, or what is wrong with it. */
function rowProblem(row: unknown, dataRows: number): string | undefined {
  if (typeof row === 'number' && Number.isSafeInteger(row) && row >= 1 && row <= dataRows) return undefined;
  return `row ${JSON.stringify(row)} is not a row of the data file (it has ${dataRows})`;
}

/**
 * Reads back the state of a batch over a data file of `dataRows` rows. A line torn by a crash (not
 * JSON) is ignored; a line that is JSON but not one a batch writes (a row the data file does not
 * have, a status or event that does not exist) is damage: it is reported, not guessed at.
 */
export async function readResumeState(statePath: string, resultsPath: string | undefined, dataRows: number): Promise<ResumeState> {
  const state: {
    header?: StateHeader;
    ended: Map<number, { status: RowStatus; passed?: boolean }>;
    started: Map<number, { id: string; t: number }>;
    unknown: Map<number, number>;
    damaged?: StateDamage;
  } = {
    ended: new Map(),
    started: new Map(),
    unknown: new Map(),
  };
  let lines = 0;
  for await (const { text, line, overflow } of readLines(statePath, MAX_STATE_LINE_BYTES)) {
    lines = line;
    const damaged = (problem: string): ResumeState => ({ ...state, damaged: { path: statePath, line, problem } });
    if (overflow) return damaged(`the line is longer than any a batch writes (${MAX_STATE_LINE_BYTES} bytes)`);
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(text) as Record<string, unknown>;
    } catch {
      if (line === 1 && text.trim() !== '') return damaged('the first line is not the header of a batch');
      continue; // a line torn by a crash: the events before it hold
    }
    if (line === 1) {
      const header = stateHeaderOf(event);
      if (typeof header === 'string') return damaged(header);
      state.header = header;
      continue;
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event) || typeof event.e !== 'string' || !STATE_EVENTS.has(event.e))
      return damaged(
        typeof event === 'object' && event !== null && typeof (event as { e?: unknown }).e === 'string'
          ? `${JSON.stringify(event.e)} is not an event of the state file`
          : 'the line is not an event of the state file',
      );
    const row = event.row;
    const badRow = rowProblem(row, dataRows);
    if (badRow) return damaged(badRow);
    if (event.t !== undefined && (typeof event.t !== 'number' || !Number.isFinite(event.t)))
      return damaged(`the time ${JSON.stringify(event.t)} is not a time`);
    const at = typeof event.t === 'number' ? event.t : Date.now();
    const rowNumber = row as number;
    switch (event.e) {
      case 'starting':
        state.unknown.set(rowNumber, at);
        break;
      case 'started':
        if (typeof event.id !== 'string' || event.id === '') return damaged(`row ${rowNumber} started with no execution id`);
        state.unknown.delete(rowNumber);
        state.started.set(rowNumber, { id: event.id, t: at });
        break;
      case 'refused':
        state.unknown.delete(rowNumber);
        break;
      case 'ended':
        if (typeof event.status !== 'string' || !ROW_STATUSES.includes(event.status as RowStatus))
          return damaged(`${JSON.stringify(event.status)} is not a status of a row (${ROW_STATUSES.join(', ')})`);
        if (event.passed !== undefined && typeof event.passed !== 'boolean')
          return damaged(`"passed" is ${JSON.stringify(event.passed)}, not true or false`);
        state.unknown.delete(rowNumber);
        state.started.delete(rowNumber);
        state.ended.set(rowNumber, {
          status: event.status as RowStatus,
          ...(typeof event.passed === 'boolean' ? { passed: event.passed } : {}),
        });
        break;
    }
  }
  if (lines === 0) return { ...state, damaged: { path: statePath, line: 1, problem: 'the state file is empty: it has no header' } };
  // A row whose result line was written just before a crash, its "ended" event not yet.
  if (resultsPath && existsSync(resultsPath)) {
    for await (const { text, line } of readLines(resultsPath, MAX_STATE_LINE_BYTES)) {
      // A line that is not a row's result (the results table skips it too) ends no row.
      const head = parseResultHead(text);
      if (!head) continue;
      const { row, ...end } = head;
      const badRow = rowProblem(row, dataRows);
      if (badRow) return { ...state, damaged: { path: resultsPath, line, problem: badRow } };
      state.unknown.delete(row);
      state.started.delete(row);
      state.ended.set(row, end);
    }
  }
  return state;
}
