// What a batch writes as it goes, so that a crash or Ctrl-C loses nothing: the results file (one JSON
// line per row, appended as rows end) and the state file next to it, an append-only log of one line
// per event per row. "starting" is written and flushed to disk before the start request is sent,
// "started" with the execution id as soon as the answer comes: on --resume, a row with an id is
// polled again (never started twice), a row "starting" with no id may or may not have started.
// Both files are written synchronously: an event is on disk before the batch acts on it.
import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { readLines } from './dataRows';
import { parseResultHead } from './resultsRows';

export const STATE_VERSION = 1;

/** The first line of a state file: which batch it belongs to. */
export interface StateHeader {
  readonly batch: typeof STATE_VERSION;
  readonly agent: string;
  readonly data: string;
  readonly mode: 'service' | 'local';
  readonly createdAt: string;
}

export type StateEvent =
  | { readonly e: 'starting'; readonly row: number; readonly t: number }
  | { readonly e: 'started'; readonly row: number; readonly id: string; readonly t: number }
  /** The start certainly started nothing: the row is as if never started. */
  | { readonly e: 'refused'; readonly row: number }
  | { readonly e: 'ended'; readonly row: number; readonly status: string; readonly passed?: boolean };

/** An append-only file of JSON lines, written synchronously. */
export class JsonLinesFile {
  private fd: number | undefined;

  private constructor(fd: number) {
    this.fd = fd;
  }

  /** Opens for appending; `fresh` refuses a file that exists. A torn last line is ended first. */
  static open(path: string, fresh: boolean): JsonLinesFile {
    const fd = openSync(path, fresh ? 'wx' : 'a+');
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 10) writeSync(fd, '\n');
    }
    return new JsonLinesFile(fd);
  }

  write(value: unknown, durable = false): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(value)}\n`);
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
}

export class BatchStateLog {
  private constructor(private readonly file: JsonLinesFile) {}

  static create(path: string, header: StateHeader): BatchStateLog {
    const log = new BatchStateLog(JsonLinesFile.open(path, true));
    log.file.write(header, true);
    return log;
  }

  static append(path: string): BatchStateLog {
    return new BatchStateLog(JsonLinesFile.open(path, false));
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

/** What an earlier run of the batch left, read back on --resume. */
export interface ResumeState {
  readonly header?: StateHeader;
  /** Rows that ended, with their status (from the state file and the results file). */
  readonly ended: Map<number, { readonly status: string; readonly passed?: boolean }>;
  /** Rows started and not known to have ended: polled again. */
  readonly started: Map<number, { readonly id: string; readonly t: number }>;
  /** Rows whose start was sent but whose answer was not recorded. */
  readonly unknown: Map<number, number>;
}

/** The most of a state or results line that is read back: the row and status come first. */
const MAX_STATE_LINE_BYTES = 4096;

export async function readResumeState(statePath: string, resultsPath: string | undefined): Promise<ResumeState> {
  const state: {
    header?: StateHeader;
    ended: Map<number, { status: string; passed?: boolean }>;
    started: Map<number, { id: string; t: number }>;
    unknown: Map<number, number>;
  } = {
    ended: new Map(),
    started: new Map(),
    unknown: new Map(),
  };
  for await (const { text, line } of readLines(statePath, MAX_STATE_LINE_BYTES)) {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(text) as Record<string, unknown>;
    } catch {
      continue; // a line torn by a crash: the events before it hold
    }
    if (line === 1 && event.batch === STATE_VERSION) {
      state.header = event as unknown as StateHeader;
      continue;
    }
    const row = event.row;
    if (typeof row !== 'number') continue;
    switch (event.e) {
      case 'starting':
        state.unknown.set(row, typeof event.t === 'number' ? event.t : Date.now());
        break;
      case 'started':
        state.unknown.delete(row);
        if (typeof event.id === 'string') state.started.set(row, { id: event.id, t: typeof event.t === 'number' ? event.t : Date.now() });
        break;
      case 'refused':
        state.unknown.delete(row);
        break;
      case 'ended':
        state.unknown.delete(row);
        state.started.delete(row);
        state.ended.set(row, {
          status: typeof event.status === 'string' ? event.status : 'error',
          ...(typeof event.passed === 'boolean' ? { passed: event.passed } : {}),
        });
        break;
    }
  }
  // A row whose result line was written just before a crash, its "ended" event not yet.
  if (resultsPath && existsSync(resultsPath)) {
    for await (const { text } of readLines(resultsPath, MAX_STATE_LINE_BYTES)) {
      // A line that is not a row's result (the results table skips it too) ends no row.
      const head = parseResultHead(text);
      if (!head) continue;
      const { row, ...end } = head;
      state.unknown.delete(row);
      state.started.delete(row);
      state.ended.set(row, end);
    }
  }
  return state;
}
