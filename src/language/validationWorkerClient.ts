// Runs validations (and the outline's symbols, and what the Test Explorer shows of a test file) in
// one long-lived worker thread (dist/validationWorker.js), started on first use, so that parsing a
// large or hostile file never freezes the extension host. Latest wins per document and task: a newer text replaces a waiting
// one, and the result of a replaced one is dropped. Each task is bounded: one that takes longer than
// the time limit has its worker terminated (a new one starts for the next task); a stopped check
// ends with a validation-stopped problem. No vscode here, so it is unit-tested in plain Node. The
// thread itself is the host's (StartThread): Node's worker_threads on the desktop
// (nodeWorkerThread.ts), a Web Worker in the browser (webWorkerThread.ts).
import type { OutlineSymbol } from '../core/document/outlineSymbol';
import { LineIndex } from '../core/document/lineIndex';
import type { LineRange } from '../core/document/problems';
import type { LoadedSuite, SuiteLoadFailure } from '../core/testing/loadSuite';
import type { ParsedFileKind } from '../core/document/parse';
import { ProblemSink } from '../core/document/problemSink';
import type { Problem } from '../core/document/problems';
import type { EnvironmentChecks } from '../core/validation/validate';
import { errorMessage } from '../core/errors';

/**
 * What the Test Explorer shows of a test file (the 'testFile' task): the test file and its agent
 * parsed in the worker, only plain data back.
 */
export interface TestFileSummary {
  /** The agent file the test file names, as an absolute path (undefined when it names none that resolves). */
  readonly agentFile?: string;
  /** The cases as far as they could be read, in file order, with their 1-based ranges. */
  readonly cases: ReadonlyArray<{ readonly name: string; readonly range: LineRange }>;
  /** The test file's problems (its agent's are said in `failure`). */
  readonly problems: Problem[];
  /** Why the cases cannot run (problems, an agent that cannot be read or has errors); undefined when they can. */
  readonly failure?: string;
}

/** What the Test Explorer shows of a loaded test file (`agentFile`: the agent it names, when resolved). */
export function testFileSummary(loaded: LoadedSuite | SuiteLoadFailure, text: string, agentFile: string | undefined): TestFileSummary {
  const suite = 'suite' in loaded ? loaded.suite : loaded.readSuite;
  const lines = new LineIndex(text);
  return {
    ...(agentFile !== undefined ? { agentFile } : {}),
    cases: (suite?.cases ?? []).map((testCase) => ({ name: testCase.name, range: lines.range(testCase.span) })),
    problems: [...loaded.problems],
    ...('suite' in loaded ? {} : { failure: loaded.message }),
  };
}

/**
 * A test file read for a run (the 'testRun' task): what the explorer shows of it, and the suite
 * loaded and checked with its agent when its cases can run (`summary.failure` says why not). The
 * suite is plain data (spans, maps, patterns), so the worker's copy runs as the one loaded in place.
 */
export interface TestFileForRun {
  readonly summary: TestFileSummary;
  readonly loaded?: LoadedSuite;
}

/** What the worker computes for a text. */
export interface WorkerTasks {
  readonly validate: Problem[];
  readonly symbols: OutlineSymbol[];
  readonly testFile: TestFileSummary;
  readonly testRun: TestFileForRun;
}
export type WorkerTask = keyof WorkerTasks;

/** What a task may need besides the text. */
export interface TaskContext {
  /** symbols: which kind of file the text is (agent when not said). */
  readonly fileKind?: ParsedFileKind;
  /** What the agent's agent-workflows.yaml says, for the checks of its overrides. */
  readonly environments?: EnvironmentChecks;
  /** testFile, testRun: the test file's absolute path (its agent is resolved from it). */
  readonly file?: string;
  /** testFile, testRun: texts of agent files that differ from disk (unsaved editors), by absolute path; others are read from disk. */
  readonly agentTexts?: ReadonlyArray<readonly [path: string, text: string]>;
  /**
   * testFile in the browser, whose worker reads no disk: the agent files of the test file's folder
   * (names), listed by the host, for the "did you mean" of an agent that cannot be read. Its agent's
   * text is in agentTexts, or it cannot be read.
   */
  readonly agentFilesThere?: readonly string[];
}

export interface WorkerRequest extends TaskContext {
  readonly id: number;
  readonly task: WorkerTask;
  readonly text: string;
}

export type WorkerReply =
  { readonly id: number; readonly result: WorkerTasks[WorkerTask] } | { readonly id: number; readonly error: string };

/** How one task ended. */
export type TaskOutcome<R> =
  | { readonly kind: 'done'; readonly result: R }
  | { readonly kind: 'superseded' }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'failed'; readonly error: string };

export type ValidationOutcome =
  /** The problems of the text. */
  | { readonly kind: 'checked'; readonly problems: Problem[] }
  /** A newer text of the same document was given: this result would be stale. */
  | { readonly kind: 'superseded' }
  /** The check took too long and was stopped; `problems` holds the validation-stopped problem. */
  | { readonly kind: 'stopped'; readonly problems: Problem[] }
  /** The worker failed (a bug, or it could not start). */
  | { readonly kind: 'failed'; readonly error: string };

/** What the client is told of its thread. */
export interface WorkerThreadEvents {
  readonly onMessage: (reply: WorkerReply) => void;
  /** The thread failed or ended (it is not used again). */
  readonly onFailure: (error: string) => void;
}

/** One worker thread running the language worker's script, as the client drives it. */
export interface WorkerThread {
  postMessage(request: WorkerRequest): void;
  terminate(): void;
}

/** Starts a thread of the language worker (throws when the host cannot). */
export type StartThread = (events: WorkerThreadEvents) => WorkerThread;

export interface ValidationWorkerOptions {
  /** Starts the worker thread: the host's kind of thread, running the host's worker script. */
  readonly startThread: StartThread;
  /** How long one check may take before its worker is terminated. */
  readonly timeLimitMs: number;
}

/** How long a check may take in the editor (the largest file, 768 KB, needs about 1 s on a slow machine). */
export const VALIDATION_TIME_LIMIT_MS = 5000;

interface Job {
  readonly id: number;
  readonly task: WorkerTask;
  /** The task and the document: latest wins per key. */
  readonly key: string;
  readonly text: string;
  readonly context: TaskContext;
  readonly resolve: (outcome: TaskOutcome<unknown>) => void;
  superseded: boolean;
}

export class ValidationWorker {
  private worker: WorkerThread | undefined;
  /** Checks waiting for the worker, at most one per document. */
  private readonly waiting: Job[] = [];
  private running: { job: Job; timer: ReturnType<typeof setTimeout>; worker: WorkerThread } | undefined;
  private nextId = 1;
  private disposed = false;
  /** How many workers were terminated for taking too long (for tests and logs). */
  restarts = 0;

  constructor(private readonly options: ValidationWorkerOptions) {}

  /** Validates the text of the document named by `document`; a newer call for the same document supersedes this one. */
  async validate(document: string, text: string, environments?: EnvironmentChecks): Promise<ValidationOutcome> {
    const outcome = await this.run('validate', document, text, environments ? { environments } : {});
    switch (outcome.kind) {
      case 'done':
        return { kind: 'checked', problems: outcome.result };
      case 'stopped':
        return { kind: 'stopped', problems: stoppedProblems(this.options.timeLimitMs, text.length) };
      default:
        return outcome;
    }
  }

  /** Runs a task in the worker; a newer call for the same task and document supersedes this one. */
  run<T extends WorkerTask>(task: T, document: string, text: string, context: TaskContext = {}): Promise<TaskOutcome<WorkerTasks[T]>> {
    if (this.disposed) return Promise.resolve({ kind: 'superseded' });
    const key = `${task}\u0000${document}`;
    return new Promise((resolve) => {
      // A check (validate, testFile) that a newer one replaces is told so: its result must not be
      // shown. A query (the outline, a run's suite) still wants an answer: a waiting one gets the
      // newer query's, and a running one its own.
      const isCheck = task === 'validate' || task === 'testFile';
      const answerToo: Array<(outcome: TaskOutcome<unknown>) => void> = [];
      const index = this.waiting.findIndex((job) => job.key === key);
      if (index !== -1) {
        const replaced = this.waiting.splice(index, 1)[0]!;
        if (isCheck) replaced.resolve({ kind: 'superseded' });
        else answerToo.push(replaced.resolve);
      }
      if (isCheck && this.running?.job.key === key) this.running.job.superseded = true;
      this.waiting.push({
        id: this.nextId++,
        task,
        key,
        text,
        context,
        resolve: (outcome) => {
          (resolve as (outcome: TaskOutcome<unknown>) => void)(outcome);
          for (const answer of answerToo) answer(outcome);
        },
        superseded: false,
      });
      this.startNext();
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const job of this.waiting.splice(0)) job.resolve({ kind: 'superseded' });
    if (this.running) {
      clearTimeout(this.running.timer);
      this.running.job.resolve({ kind: 'superseded' });
      this.running = undefined;
    }
    this.worker?.terminate();
    this.worker = undefined;
  }

  private startNext(): void {
    if (this.running || this.disposed) return;
    const job = this.waiting.shift();
    if (!job) return;
    let worker: WorkerThread;
    try {
      worker = this.ensureWorker();
    } catch (error) {
      job.resolve({ kind: 'failed', error: errorMessage(error) });
      this.startNext();
      return;
    }
    const timer = setTimeout(() => this.stop(job), this.options.timeLimitMs);
    this.running = { job, timer, worker };
    worker.postMessage({
      id: job.id,
      task: job.task,
      text: job.text,
      ...job.context,
    } satisfies WorkerRequest);
  }

  private ensureWorker(): WorkerThread {
    if (this.worker) return this.worker;
    // The events may come before startThread returns (a thread that fails at once): they name the thread through `started`.
    const started: { thread?: WorkerThread } = {};
    const worker = this.options.startThread({
      onMessage: (reply) => started.thread && this.onReply(started.thread, reply),
      onFailure: (error) => started.thread && this.onFailure(started.thread, error),
    });
    started.thread = worker;
    this.worker = worker;
    return worker;
  }

  private onReply(worker: WorkerThread, reply: WorkerReply): void {
    const running = this.running;
    if (!running || running.worker !== worker || running.job.id !== reply.id) return;
    this.finish(
      running.job.superseded
        ? { kind: 'superseded' }
        : 'error' in reply
          ? { kind: 'failed', error: reply.error }
          : { kind: 'done', result: reply.result },
    );
  }

  private onFailure(worker: WorkerThread, error: string): void {
    if (this.worker === worker) this.worker = undefined;
    if (this.running?.worker === worker) this.finish({ kind: 'failed', error });
  }

  /** The task took too long: terminate its worker; the next task starts a new one. */
  private stop(job: Job): void {
    const running = this.running;
    if (!running || running.job !== job) return;
    this.restarts++;
    if (this.worker === running.worker) this.worker = undefined;
    running.worker.terminate();
    this.finish(job.superseded ? { kind: 'superseded' } : { kind: 'stopped' });
  }

  private finish(outcome: TaskOutcome<unknown>): void {
    const running = this.running;
    if (!running) return;
    clearTimeout(running.timer);
    this.running = undefined;
    running.job.resolve(outcome);
    this.startNext();
  }
}

function stoppedProblems(limitMs: number, length: number): Problem[] {
  const sink = new ProblemSink('');
  sink.add(
    'validation-stopped',
    { start: 0, end: 0 },
    `Validation was stopped after ${limitMs} ms: checking this file (${Math.ceil(length / 1024)} KB) takes too long, so its problems are not shown. Simplify or split the file, or run "agent-workflows validate" on it.`,
  );
  return sink.result();
}
