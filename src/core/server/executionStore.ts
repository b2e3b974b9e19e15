// The executions of a local server: started in the background (at most `maxRunning` at a time, the
// rest queued), readable by id while they run and for `retentionMs` after they end, with their
// uploaded files removed as soon as they end.
import { randomUUID } from 'node:crypto';
import { executeAgent } from '../engine/engine';
import type { EngineOptions, ExecutionResult } from '../engine/engine';
import type { LoadedAgent } from '../engine/agentPlan';
import type { ResolvedInputs } from '../engine/inputs';
import type { NodeTrace } from '../engine/trace';
import { HttpError } from './httpErrors';

export type ExecutionState = 'queued' | 'running' | 'finished' | 'failed' | 'cancelled';

export interface ExecutionStoreOptions {
  /** Engine settings shared by every execution (not the signal or trace callback). */
  readonly engine: Omit<EngineOptions, 'signal' | 'onTrace'>;
  readonly maxRunning: number;
  /** More waiting executions than this are refused (429). */
  readonly maxQueued: number;
  readonly retentionMs: number;
  /** The most ended executions kept; the oldest go first. */
  readonly maxRetained: number;
  readonly onEnded?: (execution: ExecutionView) => void;
}

/** What the status route shows of an execution. */
export interface ExecutionView {
  readonly executionId: string;
  readonly account: string;
  readonly agent: string;
  readonly status: ExecutionState;
  readonly startedAt: string;
  readonly endedAt?: string;
  readonly durationMs?: number;
  readonly outputs?: unknown;
  readonly error?: string;
  /** The node that failed, when one did. */
  readonly node?: string;
  readonly trace: readonly NodeTrace[];
}

interface Execution {
  readonly id: string;
  readonly account: string;
  readonly agent: string;
  readonly loaded: LoadedAgent;
  readonly inputs: ResolvedInputs;
  readonly createdAt: Date;
  readonly controller: AbortController;
  readonly cleanup: () => Promise<void>;
  state: ExecutionState;
  trace: Map<string, NodeTrace>;
  result?: ExecutionResult;
  /** The view of an ended execution, made once: it no longer changes. */
  endedView?: ExecutionView;
  endedAt?: number;
  done?: Promise<void>;
}

export interface StartRequest {
  readonly account: string;
  readonly agent: string;
  readonly loaded: LoadedAgent;
  readonly inputs: ResolvedInputs;
  /** Removes what the execution was given (uploaded files); called once it has ended. */
  readonly cleanup?: () => Promise<void>;
}

export class ExecutionStore {
  private readonly executions = new Map<string, Execution>();
  private readonly queue: Execution[] = [];
  private readonly ended: string[] = [];
  private readonly running = new Set<Execution>();
  private readonly sweeper: NodeJS.Timeout;
  private closing = false;

  constructor(private readonly options: ExecutionStoreOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(options.retentionMs, 60_000)));
    this.sweeper.unref();
  }

  /** Starts an execution, or queues it when `maxRunning` are running; returns its id. */
  start(request: StartRequest): string {
    if (this.closing) throw new HttpError(503, 'internal', 'The server is shutting down.');
    if (this.running.size >= this.options.maxRunning && this.queue.length >= this.options.maxQueued) {
      throw new HttpError(429, 'too-many-executions', `${this.queue.length} executions are already waiting to run; try again shortly.`, {}, { 'retry-after': '1' });
    }
    const execution: Execution = {
      id: randomUUID(),
      account: request.account,
      agent: request.agent,
      loaded: request.loaded,
      inputs: request.inputs,
      createdAt: new Date(),
      controller: new AbortController(),
      cleanup: request.cleanup ?? (async () => undefined),
      state: 'queued',
      trace: new Map(request.loaded.plan.nodes.map((node) => [node.id, { node: node.id, type: node.kind, status: 'pending' }])),
    };
    this.executions.set(execution.id, execution);
    if (this.running.size < this.options.maxRunning) this.run(execution);
    else this.queue.push(execution);
    return execution.id;
  }

  get(id: string): ExecutionView | undefined {
    const execution = this.executions.get(id);
    return execution ? view(execution) : undefined;
  }

  get size(): number {
    return this.executions.size;
  }

  /** Cancels what is queued or running, waits for it to stop and for its files to be removed. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    for (const execution of this.queue.splice(0)) {
      execution.state = 'cancelled';
      execution.endedAt = Date.now();
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
    })
      .then(
        (result) => {
          execution.result = result;
          execution.state = result.status;
        },
        (error: unknown) => {
          // The engine reports failures as results; reaching here is a bug, still shown as a failure.
          execution.state = 'failed';
          execution.result = {
            status: 'failed',
            error: { kind: 'request', message: `Internal error: ${error instanceof Error ? error.message : String(error)}` },
            trace: [...execution.trace.values()],
            startedAt: execution.createdAt.toISOString(),
            endedAt: new Date().toISOString(),
            durationMs: Date.now() - execution.createdAt.getTime(),
          };
        },
      )
      .then(async () => {
        execution.endedAt = Date.now();
        this.running.delete(execution);
        await execution.cleanup().catch(() => undefined);
        this.ended.push(execution.id);
        this.trim();
        this.options.onEnded?.(view(execution));
        const next = this.closing ? undefined : this.queue.shift();
        if (next) this.run(next);
      });
  }

  private sweep(): void {
    const before = Date.now() - this.options.retentionMs;
    while (this.ended.length > 0) {
      const execution = this.executions.get(this.ended[0]!);
      if (execution && (execution.endedAt ?? 0) > before) break;
      this.ended.shift();
      if (execution) this.executions.delete(execution.id);
    }
  }

  private trim(): void {
    while (this.ended.length > this.options.maxRetained) this.executions.delete(this.ended.shift()!);
  }
}

function view(execution: Execution): ExecutionView {
  if (execution.endedView) return execution.endedView;
  const base = { executionId: execution.id, account: execution.account, agent: execution.agent };
  const result = execution.result;
  if (!result) {
    return { ...base, status: execution.state, startedAt: execution.createdAt.toISOString(), trace: [...execution.trace.values()] };
  }
  const ended = { ...base, status: result.status, startedAt: result.startedAt, endedAt: result.endedAt, durationMs: result.durationMs, trace: result.trace };
  execution.endedView =
    result.status === 'finished' ? { ...ended, outputs: result.outputs } : { ...ended, error: result.error.message, ...(result.error.node !== undefined ? { node: result.error.node } : {}) };
  return execution.endedView;
}
