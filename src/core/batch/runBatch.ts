// A batch: every row of a data file run as one execution of an agent, against the agent service
// (through the one scheduler) or on this machine with the workflow engine. Rows are read as a
// stream and checked before they are sent; results stream to the results file as rows end; the
// state file makes the batch resumable. Typed events report progress (the command line's live line,
// the extension's view). Every path is given: nothing here reads the process's directory or
// environment.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AgentModel } from '../document/model';
import type { LoadedAgent } from '../engine/agentPlan';
import { executeAgent } from '../engine/engine';
import { EXCHANGE_BODY_LIMITS } from '../exchange/exchange';
import type { Exchange } from '../exchange/exchange';
import { exchangeSummary } from '../exchange/executionExchanges';
import type { EngineOptions } from '../engine/engine';
import { filesFromPaths, resolveInputs } from '../engine/inputs';
import { errorMessage } from '../errors';
import { InputError } from '../inputs/inputValues';
import {
  BatchStateLog,
  fileFingerprint,
  JsonLinesFile,
  readResumeState,
  sameFingerprint,
  STATE_VERSION,
  textFingerprint,
} from './batchState';
import type { BatchFingerprint, ResumeState, WriteToFile } from './batchState';
import { DataFileError, readDataRows, surveyDataFile } from './dataRows';
import type { DataSurvey, RowProblem } from './dataRows';
import { checkColumnMap, checkExpectations, describeColumnMapProblem, otherColumns, rowInputs } from './rowInputs';
import type { ColumnMapProblem, OtherColumns, RowExpectation, RowInputs, RowMapping, RowProblems } from './rowInputs';
import { BatchScheduler } from './scheduler';
import type { RowResult, RowStatus } from './batchModel';
import type { Matcher } from '../testing/matchers';
import type {
  ExecutionEnd,
  ExecutionTiming,
  ResumedExecution,
  ScheduledRow,
  SchedulerOptions,
  SchedulerStop,
  ThrottleInfo,
} from './scheduler';

export type BatchMode =
  | { readonly kind: 'service'; readonly scheduler: SchedulerOptions }
  | {
      readonly kind: 'local';
      readonly agent: LoadedAgent;
      readonly concurrency: number;
      readonly executionTimeoutMs: number;
      /** Secrets, node limits… (signal and timeout are the batch's). */
      readonly engine?: Omit<EngineOptions, 'signal' | 'timeoutMs'>;
    };

export interface BatchOptions {
  readonly model: AgentModel;
  /** Shown in the state file's header. */
  readonly agentPath: string;
  /** The agent's text as it runs: its fingerprint is recorded, and a resume with another text refused. */
  readonly agentText: string;
  /** Absolute path of the data file. */
  readonly dataPath: string;
  /** Input → column, for inputs not named as their column. */
  readonly columnMap?: ReadonlyMap<string, string>;
  /** Only the first N rows. */
  readonly limit?: number;
  /**
   * The data file's rows, when the caller has just counted them (to confirm the batch): not counted
   * again. Not for --resume, where the file is counted as it now is.
   */
  readonly total?: number;
  /** The data file's column names, when the caller has just surveyed it (with `total`): not read again. */
  readonly columns?: Pick<DataSurvey, 'columns' | 'columnsNotListed'>;
  /**
   * A column that is neither an input nor `expect.…` makes its rows bad (skipped), as a typo
   * should; by default such columns are said once before anything is sent and kept in the results.
   */
  readonly strictColumns?: boolean;
  /** Absolute path of the results file (JSON lines). Without it, nothing is written and the batch cannot be resumed. */
  readonly outPath?: string;
  /** Absolute path of the state file (default: the results file's path + ".state"). */
  readonly statePath?: string;
  /** Go on with the batch of an existing state file. */
  readonly resume?: boolean;
  /** On resume, start again the rows whose start may or may not have reached the service. */
  readonly restartUnknown?: boolean;
  /** Folders whose files the data may name besides its own (inputs/fileAccess.ts). */
  readonly allowedFolders?: readonly string[];
  /** Output expectations that apply to every row (an --expect test file's), by output name. */
  readonly outputExpectations?: ReadonlyMap<string, Matcher>;
  readonly mode: BatchMode;
  /** How bytes reach the results and state files (default: fs.writeSync). */
  readonly writeToFile?: WriteToFile;
}

export interface BatchCounts {
  /** Rows of the batch (the data file's, at most --limit). */
  readonly total: number;
  /** Rows that ended, in this run or an earlier one. */
  readonly ended: number;
  readonly running: number;
  readonly finished: number;
  readonly failed: number;
  readonly error: number;
  readonly timeout: number;
  readonly unknown: number;
  readonly skipped: number;
  /** Rows with expectations, and those whose outputs met them. */
  readonly checked: number;
  readonly passed: number;
  readonly requests: number;
  readonly throttled: number;
  readonly concurrency: number;
  readonly ratePerSecond?: number;
  readonly elapsedMs: number;
  /** Rows that ended in this run (for the rate and ETA). */
  readonly endedNow: number;
}

export type BatchEvent =
  | {
      readonly kind: 'prepared';
      readonly total: number;
      readonly alreadyEnded: number;
      readonly polledAgain: number;
      /** Resumed from a state file written before fingerprints: whether the files changed cannot be checked. */
      readonly filesUnchecked?: boolean;
    }
  /**
   * The data file's columns that are neither inputs nor `expect.…`, before anything is sent: kept
   * in each row's result, or (strict) making their rows bad. Each adapter words it.
   */
  | { readonly kind: 'other-columns'; readonly columns: OtherColumns }
  | { readonly kind: 'row-started'; readonly row: number; readonly executionId?: string }
  | { readonly kind: 'row-ended'; readonly result: RowResult }
  | {
      readonly kind: 'row-skipped';
      readonly row: number;
      /** At most MAX_ROW_PROBLEMS; `problemsNotListed` counts the rest. */
      readonly problems: readonly RowProblem[];
      readonly problemsNotListed?: number;
    }
  | { readonly kind: 'throttled'; readonly info: ThrottleInfo }
  /** The data file could not be read on (changed or removed while the batch ran): the rows left are not run. */
  | { readonly kind: 'data-error'; readonly message: string }
  | { readonly kind: 'progress'; readonly counts: BatchCounts };

export type BatchListener = (event: BatchEvent) => void;

export interface BatchSummary extends BatchCounts {
  /** Durations of the rows that finished in this run. */
  readonly p50Ms?: number;
  readonly p95Ms?: number;
  /** Why the batch stopped before every row ended. */
  readonly stopped?: SchedulerStop;
  /** Rows skipped for bad data in this run (at most MAX_LISTED_PROBLEMS; `skipped` counts all). */
  readonly problems: readonly RowProblem[];
  readonly statePath?: string;
}

/** Why a resume was refused, as facts: each adapter words it (with its own flags, or none). */
export type ResumeRefusal =
  /** The data file or the agent is not what the batch started with: its row numbers or its agent mean something else now. */
  | {
      readonly kind: 'files-changed';
      readonly statePath: string;
      readonly files: ReadonlyArray<{ readonly file: 'data' | 'agent'; readonly path: string }>;
    }
  /** A line of the state or results file that no batch writes: which rows ran cannot be known. */
  | { readonly kind: 'state-damaged'; readonly path: string; readonly line: number; readonly problem: string };

/**
 * Why a batch cannot start as given, as facts: the command line words them with its flags, the
 * editor with its own words. Nothing was sent.
 */
export type BatchSetupProblem =
  | { readonly kind: 'column-map'; readonly problems: readonly ColumnMapProblem[] }
  /** The row limit or the row count given is not a whole number of 1 or more. */
  | { readonly kind: 'bad-number'; readonly what: 'limit' | 'total'; readonly value: number }
  /** The data file cannot be read as data (its own words, which name the file). */
  | { readonly kind: 'data-file'; readonly message: string }
  /** A resume with no results file, which is where a batch is resumed from. */
  | { readonly kind: 'resume-without-results' }
  | { readonly kind: 'no-state'; readonly statePath: string }
  /** The state is of a batch over another data file. */
  | { readonly kind: 'other-data'; readonly statePath: string; readonly started: string; readonly given: string }
  /** The state is of a batch run the other way (locally, or on the service). */
  | { readonly kind: 'other-mode'; readonly statePath: string; readonly started: BatchMode['kind'] }
  /** A new batch would overwrite the results or state file of another. */
  | { readonly kind: 'exists'; readonly file: 'results' | 'state'; readonly path: string }
  | { readonly kind: 'unwritable'; readonly file: 'results' | 'state'; readonly path: string; readonly reason: string }
  | { readonly kind: 'unreadable'; readonly path: string; readonly reason: string }
  | { readonly kind: 'resume-refused'; readonly refusal: ResumeRefusal };

/** A problem in words that name no flag or setting: an error's message when no adapter words it. */
export function describeBatchSetupProblem(problem: BatchSetupProblem): string {
  switch (problem.kind) {
    case 'column-map':
      return problem.problems.map(describeColumnMapProblem).join('\n');
    case 'bad-number':
      return `The ${problem.what === 'limit' ? 'row limit' : 'row count given'} must be a whole number of 1 or more, not ${problem.value}.`;
    case 'data-file':
      return problem.message;
    case 'resume-without-results':
      return 'A batch is resumed from its results file, and none was given.';
    case 'no-state':
      return `There is no state file ${problem.statePath} to resume from: run the batch anew instead.`;
    case 'other-data':
      return `${problem.statePath} is the state of a batch over ${problem.started}, not ${problem.given}.`;
    case 'other-mode':
      return `${problem.statePath} is the state of a batch run ${problem.started === 'local' ? 'locally' : 'against the service'}: resume it the same way.`;
    case 'exists':
      return `${problem.path} exists: resume that batch, or remove it (or choose another results file) to start over.`;
    case 'unwritable':
      return `${problem.path} cannot be written: ${problem.reason}`;
    case 'unreadable':
      return `${problem.path} cannot be read: ${problem.reason}`;
    case 'resume-refused':
      return problem.refusal.kind === 'files-changed'
        ? `The ${problem.refusal.files.map(({ file }) => `${file} file`).join(' and ')} changed since the batch started: resuming could start rows twice or skip new ones.`
        : `The state of the batch is damaged (${problem.refusal.path}, line ${problem.refusal.line}: ${problem.refusal.problem}): which rows ran cannot be known.`;
  }
}

/**
 * A batch that cannot start as given (a usage error): nothing was sent. `problem` says why; the
 * message words it without flags (told apart by its name across bundles).
 */
export class BatchSetupError extends Error {
  constructor(readonly problem: BatchSetupProblem) {
    super(describeBatchSetupProblem(problem));
    this.name = 'BatchSetupError';
  }
}

/** A resume refused before anything was sent; `refusal` says why (told apart by its name across bundles). */
export class BatchResumeRefused extends BatchSetupError {
  constructor(readonly refusal: ResumeRefusal) {
    super({ kind: 'resume-refused', refusal });
    this.name = 'BatchResumeRefused';
  }
}

/** The most bytes of a row's error in its result line (a status answer may be megabytes). */
export const MAX_RESULT_ERROR_BYTES = 16_384;

/** A row's error as its result holds it: as it is, or, when longer than MAX_RESULT_ERROR_BYTES as JSON, its start as text. */
function boundedError(error: unknown): unknown {
  const text = typeof error === 'string' ? error : JSON.stringify(error);
  const bytes = Buffer.byteLength(text);
  if (bytes <= MAX_RESULT_ERROR_BYTES) return error;
  const note = `… (cut: ${bytes.toLocaleString('en-US')} bytes in all)`;
  // Cut on bytes; a character split in two at the cut is dropped.
  const start = Buffer.from(text)
    .subarray(0, MAX_RESULT_ERROR_BYTES - Buffer.byteLength(note))
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${start}${note}`;
}

/** Durations kept for the percentiles of the summary. */
const MAX_DURATION_SAMPLES = 100_000;

/** Bad-row problems kept for the summary; the rest are counted (and in the results file). */
export const MAX_LISTED_PROBLEMS = 100;

export async function runBatch(options: BatchOptions, listener: BatchListener, signal: AbortSignal): Promise<BatchSummary> {
  const mapProblems = checkColumnMap(options.model, options.columnMap ?? new Map());
  if (mapProblems.length) throw new BatchSetupError({ kind: 'column-map', problems: mapProblems });
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 1))
    throw new BatchSetupError({ kind: 'bad-number', what: 'limit', value: options.limit });
  if (options.total !== undefined && (!Number.isInteger(options.total) || options.total < 1))
    throw new BatchSetupError({ kind: 'bad-number', what: 'total', value: options.total });

  let total: number;
  let dataRows: number;
  let columns: Pick<DataSurvey, 'columns' | 'columnsNotListed'>;
  try {
    if (options.total !== undefined && options.columns && !options.resume) {
      dataRows = options.total;
      columns = options.columns;
    } else {
      const survey = await surveyDataFile(options.dataPath, { signal });
      dataRows = options.total !== undefined && !options.resume ? options.total : survey.rows;
      columns = survey;
    }
    total = Math.min(dataRows, options.limit ?? Infinity);
  } catch (error) {
    if (error instanceof DataFileError) throw new BatchSetupError({ kind: 'data-file', message: error.message });
    throw error;
  }

  const statePath = options.outPath ? (options.statePath ?? `${options.outPath}.state`) : undefined;
  let previous: ResumeState | undefined;
  let fingerprint: BatchFingerprint | undefined;
  if (options.resume) {
    if (!options.outPath || !statePath) throw new BatchSetupError({ kind: 'resume-without-results' });
    if (!existsSync(statePath)) throw new BatchSetupError({ kind: 'no-state', statePath });
    previous = await readResumeState(statePath, options.outPath, dataRows);
    if (previous.header && resolve(previous.header.data) !== resolve(options.dataPath))
      throw new BatchSetupError({ kind: 'other-data', statePath, started: previous.header.data, given: options.dataPath });
    if (previous.header && previous.header.mode !== options.mode.kind)
      throw new BatchSetupError({ kind: 'other-mode', statePath, started: previous.header.mode });
    // The files first: rows of a changed data file may well look like damage.
    const recorded = previous.header?.fingerprint;
    if (recorded) {
      fingerprint = await batchFingerprint(options, signal);
      const files: Array<{ file: 'data' | 'agent'; path: string }> = [];
      if (!sameFingerprint(recorded.data, fingerprint.data)) files.push({ file: 'data', path: options.dataPath });
      if (!sameFingerprint(recorded.agent, fingerprint.agent)) files.push({ file: 'agent', path: options.agentPath });
      if (files.length) throw new BatchResumeRefused({ kind: 'files-changed', statePath, files });
    }
    if (previous.damaged) throw new BatchResumeRefused({ kind: 'state-damaged', ...previous.damaged });
  } else if (options.outPath) {
    for (const [file, path] of [
      ['results', options.outPath],
      ['state', statePath!],
    ] as const) {
      if (existsSync(path)) throw new BatchSetupError({ kind: 'exists', file, path });
    }
  }

  // Before either file is made: a batch that cannot be fingerprinted leaves nothing behind.
  if (!options.resume && statePath) fingerprint = await batchFingerprint(options, signal);

  let results: JsonLinesFile | undefined;
  try {
    results = options.outPath ? JsonLinesFile.open(options.outPath, !options.resume, options.writeToFile) : undefined;
  } catch (error) {
    throw new BatchSetupError({ kind: 'unwritable', file: 'results', path: options.outPath!, reason: errorMessage(error) });
  }
  let state: BatchStateLog | undefined;
  try {
    state = statePath
      ? options.resume
        ? BatchStateLog.append(statePath, options.writeToFile)
        : BatchStateLog.create(
            statePath,
            {
              batch: STATE_VERSION,
              agent: options.agentPath,
              data: options.dataPath,
              mode: options.mode.kind,
              createdAt: new Date().toISOString(),
              ...(fingerprint ? { fingerprint } : {}),
            },
            options.writeToFile,
          )
      : undefined;
  } catch (error) {
    results?.close();
    throw new BatchSetupError({ kind: 'unwritable', file: 'state', path: statePath!, reason: errorMessage(error) });
  }

  const others = otherColumns(options.model, columns, {
    ...(options.columnMap ? { map: options.columnMap } : {}),
    strict: options.strictColumns === true,
  });
  const run = new BatchRun(options, total, previous, listener, results, state, statePath, others);
  try {
    return await run.run(signal);
  } finally {
    results?.close();
    state?.close();
  }
}

/** The data file's bytes and the agent's text, as this batch runs them. */
async function batchFingerprint(options: BatchOptions, signal: AbortSignal): Promise<BatchFingerprint> {
  try {
    return { data: await fileFingerprint(options.dataPath, signal), agent: textFingerprint(options.agentText) };
  } catch (error) {
    if (signal.aborted) throw error;
    throw new BatchSetupError({ kind: 'unreadable', path: options.dataPath, reason: errorMessage(error) });
  }
}

/** What a row running or about to run needs for its result. */
interface RowContext {
  readonly shown: Readonly<Record<string, unknown>>;
  readonly expectations: readonly RowExpectation[];
  /** Its other columns, when it has some. */
  readonly columns?: Readonly<Record<string, unknown>>;
}

function contextOf(checked: RowInputs): RowContext {
  return {
    shown: checked.shown,
    expectations: checked.expectations,
    ...(Object.keys(checked.columns).length ? { columns: checked.columns } : {}),
  };
}

class BatchRun {
  private readonly started = Date.now();
  private readonly counts = { finished: 0, failed: 0, error: 0, timeout: 0, unknown: 0, skipped: 0, checked: 0, passed: 0 };
  private ended = 0;
  private endedNow = 0;
  private finishedNow = 0;
  private running = 0;
  private readonly durations: number[] = [];
  private readonly problems: RowProblem[] = [];
  private readonly contexts = new Map<number, RowContext>();
  private scheduler: BatchScheduler | undefined;
  /** Why the batch stopped recording, once a row's result or state could not be written. */
  private recordFailure: Extract<SchedulerStop, { kind: 'record-failed' }> | undefined;
  /** Aborted with it: no row is read or started after, and rows running on this machine stop. */
  private readonly recordStop = new AbortController();

  constructor(
    private readonly options: BatchOptions,
    private readonly total: number,
    private readonly previous: ResumeState | undefined,
    private readonly listener: BatchListener,
    private readonly results: JsonLinesFile | undefined,
    private readonly state: BatchStateLog | undefined,
    /** The state file's path (with --out), for the summary. */
    private readonly statePath: string | undefined,
    /** The data's columns that are not inputs, said before anything is sent. */
    private readonly others: OtherColumns | undefined,
  ) {}

  /** `interrupt` is the caller's stop (Ctrl-C, Stop Batch); a write that fails stops the batch the same way. */
  async run(interrupt: AbortSignal): Promise<BatchSummary> {
    const signal = AbortSignal.any([interrupt, this.recordStop.signal]);
    const restart = this.options.restartUnknown ?? false;
    // Rows that ended before; with --restart-unknown, rows whose start was unknown run again.
    const skip = new Set<number>();
    for (const [row, { status, passed }] of this.previous?.ended ?? []) {
      if (row > this.total) continue;
      if (restart && status === 'unknown') continue;
      skip.add(row);
      this.count(status, passed);
      this.ended++;
    }
    const service = this.options.mode.kind === 'service';
    const resumed: ResumedExecution[] = [];
    if (service) {
      for (const [row, { id, t }] of this.previous?.started ?? []) {
        if (row > this.total || skip.has(row)) continue;
        resumed.push({ row, executionId: id, startedAtMs: t });
        skip.add(row);
      }
    }
    await this.resumedContexts(new Set(resumed.map((entry) => entry.row)), signal);
    if (this.others) this.listener({ kind: 'other-columns', columns: this.others });
    this.listener({
      kind: 'prepared',
      total: this.total,
      alreadyEnded: this.ended,
      polledAgain: resumed.length,
      ...(this.previous && !this.previous.header?.fingerprint ? { filesUnchecked: true } : {}),
    });

    // Starts sent by an earlier run with no answer recorded: not started twice unless asked.
    for (const [row] of this.previous?.unknown ?? []) {
      if (row > this.total || skip.has(row) || (restart && service) || !service) continue;
      skip.add(row);
      const recorded = this.record(() =>
        this.finish({
          row,
          status: 'unknown',
          error:
            "the start request of this row was sent but its answer was not recorded (the batch stopped): the execution may be running. It is not started again; check the service's executions, then restart the rows whose start is unknown to start it again (it may then run twice).",
        }),
      );
      if (!recorded) break;
    }

    const rows = this.readyRows(skip, signal);
    let stopped: SchedulerStop | undefined;
    if (this.options.mode.kind === 'service') {
      stopped = await this.runService(this.options.mode.scheduler, rows, resumed, signal);
    } else {
      stopped = await this.runLocal(this.options.mode, rows, signal);
    }
    // A failed write stops the batch through the signal: it, not an interruption, is why.
    if (this.recordFailure) stopped = this.recordFailure;
    await rows.return(undefined);
    const sorted = [...this.durations].sort((a, b) => a - b);
    const percentile = (p: number): number | undefined =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : undefined;
    const p50 = percentile(0.5);
    const p95 = percentile(0.95);
    return {
      ...this.snapshot(),
      ...(p50 !== undefined ? { p50Ms: p50 } : {}),
      ...(p95 !== undefined ? { p95Ms: p95 } : {}),
      ...(stopped ? { stopped } : {}),
      problems: this.problems,
      ...(this.statePath ? { statePath: this.statePath } : {}),
    };
  }

  /**
   * The inputs and expectations of the rows polled again, for their results: one pass over the data
   * up to the last of them (they are at most the concurrency of the run that started them).
   */
  private async resumedContexts(rows: ReadonlySet<number>, signal: AbortSignal): Promise<void> {
    if (!rows.size) return;
    const last = Math.max(...rows);
    const baseDir = dirname(this.options.dataPath);
    for await (const data of readDataRows(this.options.dataPath, { signal })) {
      if (data.row > last) break;
      if (!rows.has(data.row) || 'problem' in data) continue;
      const checked = await rowInputs(this.options.model, data, this.mapping(baseDir));
      if (!('problems' in checked)) this.contexts.set(data.row, contextOf(checked));
    }
  }

  /** How a data row's columns are read, as rowInputs takes it. */
  private mapping(baseDir: string): RowMapping {
    return {
      baseDir,
      ...(this.options.allowedFolders ? { allowedFolders: this.options.allowedFolders } : {}),
      ...(this.options.columnMap ? { map: this.options.columnMap } : {}),
      ...(this.options.strictColumns ? { strictColumns: true } : {}),
    };
  }

  /** The rows to run, checked; bad ones are reported and recorded as they are met. */
  private async *readyRows(
    skip: ReadonlySet<number>,
    signal: AbortSignal,
  ): AsyncGenerator<ScheduledRow & { readonly files: Readonly<Record<string, string>> }> {
    const baseDir = dirname(this.options.dataPath);
    try {
      for await (const data of readDataRows(this.options.dataPath, { signal })) {
        if (data.row > this.total || signal.aborted) return;
        if (skip.has(data.row)) continue;
        let checked: RowInputs | RowProblems;
        if ('problem' in data) checked = { row: data.row, problems: [data.problem] };
        else checked = await rowInputs(this.options.model, data, this.mapping(baseDir));
        if ('problems' in checked) {
          for (const problem of checked.problems) if (this.problems.length < MAX_LISTED_PROBLEMS) this.problems.push(problem);
          const notListed = checked.problemsNotListed ? { problemsNotListed: checked.problemsNotListed } : {};
          this.listener({ kind: 'row-skipped', row: data.row, problems: checked.problems, ...notListed });
          const recorded = this.record(() =>
            this.finish({
              row: data.row,
              status: 'skipped',
              ...(checked.columns ? { columns: checked.columns } : {}),
              problems: checked.problems,
              ...notListed,
            }),
          );
          if (!recorded) return;
          continue;
        }
        this.contexts.set(data.row, contextOf(checked));
        yield { row: data.row, prepared: checked.prepared, files: checked.files };
      }
    } catch (error) {
      // The file changed or vanished while the batch ran: the rows left are not read.
      if (error instanceof DataFileError) {
        this.listener({ kind: 'data-error', message: error.message });
        return;
      }
      throw error;
    }
  }

  private async runService(
    schedulerOptions: SchedulerOptions,
    rows: AsyncGenerator<ScheduledRow>,
    resumed: readonly ResumedExecution[],
    signal: AbortSignal,
  ): Promise<SchedulerStop | undefined> {
    const scheduler = new BatchScheduler(schedulerOptions, {
      nextRow: async () => (await rows.next()).value ?? undefined,
      starting: (row) => this.state?.starting(row),
      started: (row, executionId) => {
        this.state?.started(row, executionId);
        this.listener({ kind: 'row-started', row, executionId });
        this.progress();
      },
      refused: (row) => this.state?.refused(row),
      ended: (row, executionId, end, timing) => this.finish(this.resultOf(row, executionId, end, timing)),
      throttled: (info) => {
        this.listener({ kind: 'throttled', info });
        this.progress();
      },
    });
    this.scheduler = scheduler;
    return scheduler.run(resumed, signal);
  }

  private async runLocal(
    mode: Extract<BatchMode, { kind: 'local' }>,
    rows: AsyncGenerator<ScheduledRow & { readonly files: Readonly<Record<string, string>> }>,
    signal: AbortSignal,
  ): Promise<SchedulerStop | undefined> {
    const worker = async (): Promise<void> => {
      for (;;) {
        if (signal.aborted) return;
        const next = await rows.next();
        // A row read as the batch stopped is not started: it runs on resume.
        if (next.done || signal.aborted) return;
        const { row, prepared, files } = next.value;
        const startedAtMs = Date.now();
        this.running++;
        this.listener({ kind: 'row-started', row });
        this.progress();
        let end: ExecutionEnd;
        // What makes each node's last exchange: a failed row's results line sums up the exchange of
        // the node it failed at, made only then.
        const exchanges = new Map<string, () => Exchange>();
        let failedAt: string | undefined;
        try {
          const inputs = resolveInputs(mode.agent.model, { values: prepared.inputs, files: await filesFromPaths(files) });
          const result = await executeAgent(mode.agent, inputs, {
            ...mode.engine,
            signal,
            timeoutMs: mode.executionTimeoutMs,
            ...{
              onExchange: (record: () => Exchange, node: string) => exchanges.set(node, record),
              exchangeBodyLimit: EXCHANGE_BODY_LIMITS.execution,
            },
          });
          if (result.status === 'failed') failedAt = result.error.node;
          if (result.status === 'cancelled') {
            this.running--;
            return; // stopped: run again on resume
          }
          end =
            result.status === 'finished'
              ? { kind: 'finished', outputs: result.outputs }
              : result.error.kind === 'timeout'
                ? { kind: 'timeout', message: result.error.message }
                : { kind: 'failed', status: 'failed', answer: { ...result.error } };
        } catch (error) {
          end = { kind: 'error', message: error instanceof InputError ? error.problems.join(' ') : errorMessage(error) };
        }
        this.running--;
        const made = failedAt === undefined ? undefined : exchanges.get(failedAt)?.();
        const exchange = made && exchangeSummary(made);
        const result = this.resultOf(row, undefined, end, { startedAtMs, endedAtMs: Date.now(), requests: 0 });
        this.record(() => this.finish(exchange ? { ...result, exchange } : result));
      }
    };
    // Rows are pulled one at a time by each worker: an async generator serves one next() at a time.
    await Promise.all(Array.from({ length: Math.max(1, mode.concurrency) }, worker));
    return signal.aborted ? { kind: 'interrupted' } : undefined;
  }

  private resultOf(row: number, executionId: string | undefined, end: ExecutionEnd, timing: ExecutionTiming): RowResult {
    const context = this.contexts.get(row);
    this.contexts.delete(row);
    const times = {
      startedAt: new Date(timing.startedAtMs).toISOString(),
      endedAt: new Date(timing.endedAtMs).toISOString(),
      durationMs: timing.endedAtMs - timing.startedAtMs,
      ...(executionId !== undefined || timing.requests ? { requests: timing.requests } : {}),
    };
    const base = {
      ...(executionId !== undefined ? { executionId } : {}),
      ...(context ? { inputs: context.shown } : {}),
      ...(context?.columns ? { columns: context.columns } : {}),
    };
    if (end.kind === 'finished') {
      const check = checkExpectations(context?.expectations ?? [], end.outputs, this.options.outputExpectations);
      return {
        row,
        status: 'finished',
        ...(check ? { passed: check.passed } : {}),
        ...base,
        outputs: end.outputs ?? null,
        ...(check && !check.passed ? { expectations: check.failures } : {}),
        ...times,
      };
    }
    const error = boundedError(end.kind === 'failed' ? end.answer : end.message);
    const checked = context?.expectations.length || this.options.outputExpectations?.size ? { passed: false } : {};
    return { row, status: end.kind, ...checked, ...base, error, ...times };
  }

  /**
   * Runs a write of a row's result or state, as the scheduler runs its hooks: when it throws (a full
   * disk, a file made read-only), nothing more is started and the rows running on this machine are
   * stopped, instead of going on without a record. False then.
   */
  private record(write: () => void): boolean {
    try {
      write();
      return true;
    } catch (error) {
      this.recordFailure ??= { kind: 'record-failed', message: errorMessage(error) };
      this.recordStop.abort();
      return false;
    }
  }

  private finish(result: RowResult): void {
    this.results?.write(result);
    this.state?.ended(result.row, result.status, result.passed);
    this.count(result.status, result.passed);
    this.ended++;
    this.endedNow++;
    if (result.status === 'finished' && result.durationMs !== undefined) this.sampleDuration(result.durationMs);
    this.listener({ kind: 'row-ended', result });
    this.progress();
  }

  /** Durations for p50/p95: all of them up to MAX_DURATION_SAMPLES, then a uniform sample (reservoir). */
  private sampleDuration(ms: number): void {
    this.finishedNow++;
    if (this.durations.length < MAX_DURATION_SAMPLES) this.durations.push(ms);
    else {
      const slot = Math.floor(Math.random() * this.finishedNow);
      if (slot < MAX_DURATION_SAMPLES) this.durations[slot] = ms;
    }
  }

  private count(status: RowStatus, passed: boolean | undefined): void {
    if (Object.hasOwn(this.counts, status)) this.counts[status as keyof typeof this.counts]++;
    else this.counts.error++;
    if (passed !== undefined) {
      this.counts.checked++;
      if (passed) this.counts.passed++;
    }
  }

  private snapshot(): BatchCounts {
    const stats = this.scheduler?.stats();
    const local = this.options.mode.kind === 'local' ? this.options.mode : undefined;
    return {
      total: this.total,
      ended: this.ended,
      running: stats ? stats.active : this.running,
      ...this.counts,
      requests: stats?.requests ?? 0,
      throttled: stats?.throttled ?? 0,
      concurrency: stats?.concurrency ?? local?.concurrency ?? 1,
      ...(stats ? { ratePerSecond: stats.ratePerSecond } : {}),
      elapsedMs: Date.now() - this.started,
      endedNow: this.endedNow,
    };
  }

  private progress(): void {
    this.listener({ kind: 'progress', counts: this.snapshot() });
  }
}
