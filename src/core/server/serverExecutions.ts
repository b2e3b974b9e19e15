// The executions of a local server: started in the background (at most `maxRunning` at a time, the
// rest queued), readable by id while they run and for `retentionMs` after they end, with their
// uploaded files removed as soon as they end. Memory is bounded both ways: the work in flight by
// count and by the bytes of inputs it holds, the bodies being received included (beyond, starts and
// uploads are refused with 429), the ended executions by count and by the bytes of their status
// answers (the oldest removed first, and a read of a removed one says why).
import { randomUUID } from 'node:crypto';
import { executeAgent } from '../engine/engine';
import type { EngineOptions, ExecutionResult } from '../engine/engine';
import type { LoadedAgent } from '../engine/agentPlan';
import type { ResolvedInputs } from '../engine/inputs';
import type { NodeTrace } from '../engine/trace';
import { formatDuration } from '../executions/executionRecord';
import { HttpError } from './httpErrors';
import { formatBytes } from './requestBody';
import { errorMessage } from '../errors';
import type { ServerLimits } from '../limits';
import { FileValue } from '../engine/values';
import { EXCHANGE_BODY_LIMITS } from '../exchange/exchange';
import type { Exchange } from '../exchange/exchange';
import { ExchangeLog } from '../exchange/executionExchanges';
import type { ExecutionExchanges, PendingExchangeSize } from '../exchange/executionExchanges';

export type ServerExecutionState = 'queued' | 'running' | 'finished' | 'failed' | 'cancelled';

/** The limits (documented in src/core/limits.ts) the executions keep, and what they run with. */
export interface ServerExecutionsOptions extends Pick<
  ServerLimits,
  | 'maxRunning'
  | 'maxQueued'
  | 'maxInFlightInputBytes'
  | 'retentionMs'
  | 'maxRetained'
  | 'maxRetainedBytes'
  | 'maxStatusAnswerBytes'
  | 'maxRetainedExchangeBytes'
> {
  /** Engine settings shared by every execution (not the signal or trace callback). */
  readonly engine: Omit<EngineOptions, 'signal' | 'onTrace'>;
  readonly onEnded?: (execution: ExecutionView) => void;
}

/** What the status route shows of an execution. */
export interface ExecutionView {
  readonly executionId: string;
  readonly account: string;
  readonly agent: string;
  readonly status: ServerExecutionState;
  readonly startedAt: string;
  readonly endedAt?: string;
  readonly durationMs?: number;
  readonly outputs?: unknown;
  /** Outputs replaced by a note because the status answer would have been too large. */
  readonly outputsLeftOut?: readonly string[];
  readonly error?: string;
  /** The node that failed, when one did. */
  readonly node?: string;
  readonly trace: readonly NodeTrace[];
  /** Trace entries left out at the end because the status answer would have been too large. */
  readonly traceLeftOut?: number;
}

/**
 * What a read of an execution's exchanges finds: the JSON answer (`{ executionId, exchanges,
 * bodiesNotKept, notKept }`), or why they are not (any more) kept.
 */
export type ExchangesRead = { readonly account: string; readonly answer: Buffer } | { readonly account: string; readonly notKept: string };

/** What a status read finds: the JSON answer, or why the execution is no longer kept. */
export type StatusRead = { readonly account: string; readonly answer: Buffer } | { readonly account: string; readonly removed: string };

interface Execution {
  readonly id: string;
  readonly account: string;
  readonly agent: string;
  readonly loaded: LoadedAgent;
  readonly inputs: ResolvedInputs;
  /** Estimated memory held by the inputs, counted against maxInFlightInputBytes while in flight. */
  readonly inputBytes: number;
  readonly createdAt: Date;
  readonly controller: AbortController;
  readonly cleanup: () => Promise<void>;
  state: ServerExecutionState;
  trace: Map<string, NodeTrace>;
  /** Its API nodes' exchanges; undefined when the server records none. */
  readonly exchanges?: ExchangeLog;
  done?: Promise<void>;
}

/** An ended execution keeps only its status answer (serialized once), so its size is known. */
interface EndedExecution {
  readonly account: string;
  readonly answer: Buffer;
  readonly endedAt: number;
}

export interface StartRequest {
  readonly account: string;
  readonly agent: string;
  readonly loaded: LoadedAgent;
  readonly inputs: ResolvedInputs;
  /** Removes what the execution was given (uploaded files); called once it has ended. */
  readonly cleanup?: () => Promise<void>;
  /** The body the inputs came from: the execution takes over the bytes it holds once started. */
  readonly body?: BodyReservation;
}

/** What a reservation counts, as a refusal names it. */
export type ReservedBody = 'this upload' | 'this request body';

/**
 * The bytes of a request body being received (an upload's files, a start's JSON), counted against
 * maxInFlightInputBytes as they arrive, so that requests received at once cannot fill the disk or
 * the memory before any of them starts an execution.
 */
export interface BodyReservation {
  /** Counts `bytes` more; answers the 429 to give instead (counting nothing) when they would pass the limit. */
  take(bytes: number): HttpError | undefined;
  /** Gives back what the body holds (an upload: once its files are removed); nothing once an execution took it over. */
  release(): void;
}

interface Removal {
  readonly account: string;
  /** Past the retention time, or removed early to keep the memory bounded. */
  readonly why: 'expired' | 'evicted';
}

/** Ids of removed executions remembered, to say why a read finds nothing; older ones answer 404. */
const MAX_REMEMBERED_REMOVALS = 50_000;

export class ServerExecutions {
  /** Queued and running executions. */
  private readonly inFlight = new Map<string, Execution>();
  private readonly queue: Execution[] = [];
  private readonly running = new Set<Execution>();
  /** Bytes of inputs held by the executions in flight and the bodies being received (uploads, JSON). */
  private inFlightInputBytes = 0;
  /** Bodies being received, with the bytes each holds. */
  private readonly receiving = new Map<BodyReservation, number>();
  /** Ended executions, oldest first (a Map keeps insertion order). */
  private readonly ended = new Map<string, EndedExecution>();
  private endedBytes = 0;
  private readonly removed = new Map<string, Removal>();
  /**
   * The exchanges of ended executions, oldest first, within maxRetainedExchangeBytes as their logs
   * count bytes. Kept as logs, their records made and written as JSON when read: most are never
   * read, and making and writing each when its execution ended was most of what recording cost.
   */
  private readonly endedExchanges = new Map<string, ExchangeLog>();
  private endedExchangeBytes = 0;
  private readonly sweeper: NodeJS.Timeout;
  private closing = false;

  constructor(private readonly options: ServerExecutionsOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(options.retentionMs, 60_000)));
    this.sweeper.unref();
  }

  /** Starts an execution, or queues it when `maxRunning` are running; returns its id. */
  start(request: StartRequest): string {
    if (this.closing) throw new HttpError(503, 'internal', 'The server is shutting down.');
    if (this.running.size >= this.options.maxRunning && this.queue.length >= this.options.maxQueued) {
      throw new HttpError(
        429,
        'too-many-executions',
        `${this.queue.length === 1 ? '1 execution is' : `${this.queue.length} executions are`} already waiting to run; try again shortly.`,
        {},
        { 'retry-after': '1' },
      );
    }
    // Uploaded files count with their size: they stay on disk until the execution ends.
    const inputBytes = jsonBytes(request.inputs.values) + uploadedBytes(request.inputs.values);
    // Its body's bytes are counted already: the execution's replace them, not add to them.
    const bodyBytes = request.body ? (this.receiving.get(request.body) ?? 0) : 0;
    const refusal = this.inputsRefusal(bodyBytes, inputBytes, 'this one');
    if (refusal) throw refusal;
    const execution: Execution = {
      id: randomUUID(),
      account: request.account,
      agent: request.agent,
      loaded: request.loaded,
      inputs: request.inputs,
      inputBytes,
      createdAt: new Date(),
      controller: new AbortController(),
      cleanup: request.cleanup ?? (async () => undefined),
      state: 'queued',
      trace: new Map(request.loaded.plan.nodes.map((node) => [node.id, { node: node.id, type: node.kind, status: 'pending' }])),
      ...(this.options.maxRetainedExchangeBytes > 0 ? { exchanges: new ExchangeLog() } : {}),
    };
    this.inFlight.set(execution.id, execution);
    if (request.body) this.receiving.delete(request.body);
    this.inFlightInputBytes += inputBytes - bodyBytes;
    if (this.running.size < this.options.maxRunning) this.run(execution);
    else this.queue.push(execution);
    return execution.id;
  }

  /** Bytes of inputs held now: by the executions running or waiting, and by the bodies being received. */
  heldInputBytes(): number {
    return this.inFlightInputBytes;
  }

  /**
   * Counts the bytes of a request body (`what` names it in a refusal) as they arrive;
   * start() takes them over, or release() gives them back.
   */
  reserveBody(what: ReservedBody = 'this upload'): BodyReservation {
    const reservation: BodyReservation = {
      take: (bytes) => {
        const held = this.receiving.get(reservation);
        // Nothing is counted once taken over or given back, so nothing more may be written.
        if (held === undefined) return new HttpError(500, 'internal', 'The request body went on after it had ended.');
        const refusal = this.inputsRefusal(held, held + bytes, what);
        if (refusal) return refusal;
        this.receiving.set(reservation, held + bytes);
        this.inFlightInputBytes += bytes;
        return undefined;
      },
      release: () => {
        const held = this.receiving.get(reservation);
        if (held === undefined) return;
        this.receiving.delete(reservation);
        this.inFlightInputBytes -= held;
      },
    };
    this.receiving.set(reservation, 0);
    return reservation;
  }

  /** The status answer of an execution, or why it is no longer kept; undefined for an id never seen (or long forgotten). */
  read(id: string): StatusRead | undefined {
    const ended = this.ended.get(id);
    if (ended) return ended;
    const execution = this.inFlight.get(id);
    if (execution) return { account: execution.account, answer: statusAnswer(liveView(execution), this.options.maxStatusAnswerBytes) };
    const removed = this.removed.get(id);
    return removed ? { account: removed.account, removed: this.removalReason(removed.why) } : undefined;
  }

  /** The exchanges of an execution, or why they are not kept; undefined for an id never seen (or long forgotten). */
  readExchanges(id: string): ExchangesRead | undefined {
    const kept = this.endedExchanges.get(id);
    const ended = this.ended.get(id);
    if (kept && ended) return { account: ended.account, answer: exchangesAnswer(id, kept.snapshot()) };
    const execution = this.inFlight.get(id);
    if (execution)
      return execution.exchanges
        ? { account: execution.account, answer: exchangesAnswer(id, execution.exchanges.snapshot()) }
        : { account: execution.account, notKept: this.exchangesNotKept() };
    if (ended) return { account: ended.account, notKept: this.exchangesNotKept() };
    const removed = this.removed.get(id);
    return removed
      ? { account: removed.account, notKept: `The execution is no longer kept. ${this.removalReason(removed.why)}` }
      : undefined;
  }

  /** Bytes of the exchanges of the ended executions kept. */
  get retainedExchangeBytes(): number {
    return this.endedExchangeBytes;
  }

  /** Executions kept: in flight and ended. */
  get size(): number {
    return this.inFlight.size + this.ended.size;
  }

  /** Bytes of the status answers of the ended executions kept. */
  get retainedBytes(): number {
    return this.endedBytes;
  }

  /** Cancels what is queued or running, waits for it to stop and for its files to be removed. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    for (const execution of this.queue.splice(0)) {
      execution.state = 'cancelled';
      this.inFlight.delete(execution.id);
      await execution.cleanup().catch(() => undefined);
    }
    const running = [...this.running];
    for (const execution of running) execution.controller.abort();
    await Promise.all(running.map((execution) => execution.done));
  }

  private run(execution: Execution): void {
    this.running.add(execution);
    execution.state = 'running';
    execution.done = executeAgent(execution.loaded, execution.inputs, {
      ...this.options.engine,
      signal: execution.controller.signal,
      onTrace: (entry) => execution.trace.set(entry.node, entry),
      ...(execution.exchanges
        ? {
            onExchange: (record: () => Exchange, _node: string, size: () => PendingExchangeSize) =>
              execution.exchanges!.offer(record, size()),
            exchangeBodyLimit: EXCHANGE_BODY_LIMITS.execution,
          }
        : {}),
    })
      .catch((error: unknown): ExecutionResult => {
        // The engine reports failures as results; reaching here is a bug, still shown as a failure.
        return {
          status: 'failed',
          error: { kind: 'request', message: `Internal error: ${errorMessage(error)}` },
          trace: [...execution.trace.values()],
          startedAt: execution.createdAt.toISOString(),
          endedAt: new Date().toISOString(),
          durationMs: Date.now() - execution.createdAt.getTime(),
        };
      })
      .then(async (result) => {
        // Moved to the ended executions in one step, so a read never sees an ended state without its outputs.
        execution.state = result.status;
        this.running.delete(execution);
        const view = endedView(execution, result);
        const answer = statusAnswer(view, this.options.maxStatusAnswerBytes);
        // The inputs and the live trace go with the in-flight entry; only the answer is kept.
        this.inFlight.delete(execution.id);
        this.inFlightInputBytes -= execution.inputBytes;
        this.ended.set(execution.id, { account: execution.account, answer, endedAt: Date.now() });
        this.endedBytes += answer.length;
        if (execution.exchanges) this.keepExchanges(execution.id, execution.exchanges);
        this.trim();
        await execution.cleanup().catch(() => undefined);
        this.options.onEnded?.(view);
        const next = this.closing ? undefined : this.queue.shift();
        if (next) this.run(next);
      });
  }

  /**
   * The 429 for inputs that would hold `bytes` where `held` of them are counted already, when the
   * work in flight holds too many. Alone, whatever holds inputs is let in at any size: its own
   * limits (of a body, of the files of an upload) bound it already.
   */
  private inputsRefusal(held: number, bytes: number, what: 'this one' | ReservedBody): HttpError | undefined {
    const others = this.inFlightInputBytes - held;
    if (others === 0 || others + bytes <= this.options.maxInFlightInputBytes) return undefined;
    const receiving = [...this.receiving.values()].filter((bytes) => bytes > 0).length - (held > 0 ? 1 : 0);
    const holders = [
      ...(this.inFlight.size > 0 ? [`${this.inFlight.size} executions running or waiting`] : []),
      ...(receiving > 0 ? [`${receiving} requests being received`] : []),
    ];
    return new HttpError(
      429,
      'too-many-executions',
      `The ${holders.join(' and ')} already hold ${formatBytes(others)} of inputs (uploaded files included), and ${what}'s ${formatBytes(bytes)} would pass the ${formatBytes(this.options.maxInFlightInputBytes)} this server holds at once; try again shortly.`,
      {},
      { 'retry-after': '1' },
    );
  }

  private sweep(): void {
    const before = Date.now() - this.options.retentionMs;
    for (const [id, ended] of this.ended) {
      if (ended.endedAt > before) break;
      this.remove(id, ended, 'expired');
    }
  }

  private trim(): void {
    for (const [id, ended] of this.ended) {
      if (this.ended.size <= this.options.maxRetained && this.endedBytes <= this.options.maxRetainedBytes) break;
      this.remove(id, ended, 'evicted');
    }
  }

  /** Keeps an ended execution's exchanges, letting go of the oldest kept past the byte budget. */
  private keepExchanges(id: string, log: ExchangeLog): void {
    const budget = this.options.maxRetainedExchangeBytes;
    if (log.keptBytes > budget) return;
    this.endedExchanges.set(id, log);
    this.endedExchangeBytes += log.keptBytes;
    for (const [oldest, kept] of this.endedExchanges) {
      if (this.endedExchangeBytes <= budget) break;
      this.dropExchanges(oldest, kept);
    }
  }

  private dropExchanges(id: string, kept: ExchangeLog): void {
    this.endedExchanges.delete(id);
    this.endedExchangeBytes -= kept.keptBytes;
  }

  private exchangesNotKept(): string {
    return this.options.maxRetainedExchangeBytes > 0
      ? `Its exchanges were let go to keep the server's memory bounded: the server keeps at most ${formatBytes(this.options.maxRetainedExchangeBytes)} of the exchanges of ended executions, the oldest going first. Read them sooner after the execution ends.`
      : 'This server records no exchanges (its exchange budget is 0).';
  }

  private remove(id: string, ended: EndedExecution, why: Removal['why']): void {
    const exchanges = this.endedExchanges.get(id);
    if (exchanges) this.dropExchanges(id, exchanges);
    this.ended.delete(id);
    this.endedBytes -= ended.answer.length;
    this.removed.set(id, { account: ended.account, why });
    if (this.removed.size > MAX_REMEMBERED_REMOVALS) this.removed.delete(this.removed.keys().next().value!);
  }

  private removalReason(why: Removal['why']): string {
    const { retentionMs, maxRetained, maxRetainedBytes } = this.options;
    const retention = retentionMs >= 60_000 ? `${Math.round(retentionMs / 60_000)} minutes` : formatDuration(retentionMs);
    return why === 'expired'
      ? `It ended more than ${retention} ago, and ended executions are kept for ${retention}.`
      : `It was removed to keep the server's memory bounded: the server keeps at most ${maxRetained} ended executions and ${formatBytes(maxRetainedBytes)} of their status answers, removing the oldest first. Read the status sooner after the execution ends.`;
  }
}

function liveView(execution: Execution): ExecutionView {
  return {
    executionId: execution.id,
    account: execution.account,
    agent: execution.agent,
    status: execution.state,
    startedAt: execution.createdAt.toISOString(),
    trace: [...execution.trace.values()],
  };
}

function endedView(execution: Execution, result: ExecutionResult): ExecutionView {
  const ended = {
    executionId: execution.id,
    account: execution.account,
    agent: execution.agent,
    status: result.status,
    startedAt: result.startedAt,
    endedAt: result.endedAt,
    durationMs: result.durationMs,
    trace: result.trace,
  };
  return result.status === 'finished'
    ? { ...ended, outputs: result.outputs }
    : { ...ended, error: result.error.message, ...(result.error.node !== undefined ? { node: result.error.node } : {}) };
}

/** The JSON answer of an execution's exchanges: within 2 MiB, as its log is bounded. */
function exchangesAnswer(executionId: string, log: ExecutionExchanges): Buffer {
  return Buffer.from(JSON.stringify({ executionId, ...log }));
}

/** Bytes of a value as JSON: what it costs to keep or to send, near enough. */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/** The size of the files among the inputs (uploads, on disk while the execution is in flight). */
function uploadedBytes(values: Readonly<Record<string, unknown>>): number {
  let total = 0;
  for (const value of Object.values(values)) if (value instanceof FileValue) total += value.size;
  return total;
}

/**
 * The JSON status answer of an execution, at most `maxBytes` long so that any client reading
 * answers up to that size can read it: the largest outputs are left out first (each replaced by a
 * note saying why), then trace entries from the end, then the error is cut. Linear in the view.
 */
export function statusAnswer(view: ExecutionView, maxBytes: number): Buffer {
  const whole = Buffer.from(JSON.stringify(view));
  if (whole.length <= maxBytes) return whole;
  let fitted: ExecutionView = view;
  let over = whole.length - maxBytes;
  const outputs = view.outputs;
  if (outputs !== null && typeof outputs === 'object' && !Array.isArray(outputs)) {
    const kept: Record<string, unknown> = { ...(outputs as Record<string, unknown>) };
    const bySize = Object.entries(kept)
      .map(([name, value]) => [name, jsonBytes(value)] as const)
      .sort((a, b) => b[1] - a[1]);
    const leftOut: string[] = [];
    // Room for the "outputsLeftOut" field itself.
    over += 32;
    for (const [name, size] of bySize) {
      if (over <= 0) break;
      const note = `Output "${name}" is left out: it is ${formatBytes(size)} as JSON, and a status answer of this server is at most ${formatBytes(maxBytes)}, the most a client reads. Make the output smaller, or split it over several outputs.`;
      // Largest first: once an output is no larger than its note, leaving out the rest gains nothing.
      if (size <= jsonBytes(note)) break;
      kept[name] = note;
      leftOut.push(name);
      // The names in outputsLeftOut cost their length plus quotes and a comma.
      over -= size - jsonBytes(note) - jsonBytes(name) - 1;
    }
    fitted = { ...fitted, outputs: kept, outputsLeftOut: leftOut };
    over = Buffer.byteLength(JSON.stringify(fitted)) - maxBytes;
  }
  if (over > 0 && fitted.trace.length > 0) {
    const trace = [...fitted.trace];
    let dropped = 0;
    while (over > 0 && trace.length > 0) {
      over -= jsonBytes(trace.pop()) + 1;
      dropped++;
    }
    fitted = { ...fitted, trace, traceLeftOut: dropped };
    over = Buffer.byteLength(JSON.stringify(fitted)) - maxBytes;
  }
  if (over > 0 && fitted.error !== undefined) {
    // Every character is at least one byte of JSON: cutting `over` characters (and room for the note) fits.
    const keep = Math.max(0, fitted.error.length - over - 100);
    fitted = { ...fitted, error: `${fitted.error.slice(0, keep)}… (cut: the whole error does not fit in a status answer)` };
  }
  const answer = Buffer.from(JSON.stringify(fitted));
  if (answer.length <= maxBytes) return answer;
  // Nothing left to shorten (e.g. thousands of output names): the status alone, saying why.
  const { executionId, account, agent, status, startedAt, endedAt, durationMs } = view;
  const bare = { executionId, account, agent, status, startedAt, endedAt, durationMs, trace: [], traceLeftOut: view.trace.length };
  return Buffer.from(
    JSON.stringify({
      ...bare,
      error: `The status answer of this execution would be larger than ${formatBytes(maxBytes)}, the most a client reads; only its status is shown.${view.error !== undefined ? ` Its error begins: ${view.error.slice(0, 1000)}` : ''}`,
    }),
  );
}
