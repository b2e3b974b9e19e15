// The workflow engine: runs a loaded agent with resolved inputs. Secrets are looked up first (a
// missing one fails the run before any call is made); then each node starts as soon as the nodes
// it references have succeeded, at most `concurrency` at a time; the first failure stops the nodes
// still running and skips the rest; outputs are evaluated last. Everything reported (trace, error,
// outputs) has secret values redacted.
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { EXCHANGE_BODY_LIMITS } from '../exchange/exchange';
import type { Exchange } from '../exchange/exchange';
import type { PendingExchangeSize } from '../exchange/executionExchanges';
import { BudgetShare } from '../http/byteBudget';
import type { ByteBudget } from '../http/byteBudget';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../http/httpRequest';
import { formatSeconds } from '../http/networkError';
import { isoTime } from '../clock';
import { MAX_TIMER_MS } from '../limits';
import type { LoadedAgent, NodePlan } from './agentPlan';
import { runApiNode } from './apiNode';
import type { ApiRequest } from './apiRequest';
import { evaluateString, ExpressionError } from './evaluate';
import type { NodeResult, Scope } from './evaluate';
import type { ResolvedInputs } from './inputs';
import { NodeError } from './nodeError';
import type { NodeFailureKind } from './nodeError';
import type { SecretResolver } from './secrets';
import type { NodePauses } from './nodePauses';
import type { NodeStatus, NodeTrace } from './trace';
import type { Mutable } from '../mutable';
import { Redactor } from '../redaction';
import { renderText } from './values';
import { errorMessage } from '../errors';

export const ENGINE_DEFAULTS = {
  /** Nodes of one execution running at the same time. */
  concurrency: 16,
  nodeTimeoutMs: 30_000,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  followRedirects: true,
  maxRedirects: 5,
} as const;

export interface EngineOptions {
  /** Where `{{ secrets.NAME }}` values come from. Without it, an agent that uses secrets fails. */
  readonly secrets?: SecretResolver;
  /** How to provide a missing secret, for the error message (e.g. "set AGENT_SECRET_NAME"). */
  readonly secretHint?: (name: string) => string;
  readonly concurrency?: number;
  /** Time limit of each API node's call, redirects included. */
  readonly nodeTimeoutMs?: number;
  /** Answers larger than this fail the node. */
  readonly maxResponseBytes?: number;
  readonly followRedirects?: boolean;
  readonly maxRedirects?: number;
  /** Time limit of the whole execution. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly dispatcher?: Dispatcher;
  /** The dispatcher of one node's calls, over `dispatcher` (agent tests answer each node with its mock). */
  readonly dispatcherFor?: (node: string) => Dispatcher | undefined;
  /** Called when a node starts and when it ends (entries are redacted). */
  readonly onTrace?: (entry: NodeTrace) => void;
  /** Called with each node's result (redacted) when it succeeds: what agent tests check. */
  readonly onNodeResult?: (node: string, result: NodeResult) => void;
  /**
   * Called with each node's result as later nodes see it, NOT redacted: for a caller that keeps it
   * in memory only (the editor, for Send Request's upstream values).
   */
  readonly onNodeValue?: (node: string, result: NodeResult) => void;
  /**
   * Results the user pinned in the editor, by node id: those nodes are not run, later nodes see
   * the pinned result, and their trace says `pinned`. Agent tests, batches and servers never pass it.
   */
  readonly pinnedResults?: ReadonlyMap<string, NodeResult>;
  /**
   * Bytes the answers of API nodes take from, shared with other executions (a local server's):
   * an execution holds its nodes' answers until it ends, and gives them back then.
   */
  readonly answerBudget?: ByteBudget;
  /**
   * The run's redactor, when the caller keeps what the nodes sent (agent tests): the engine adds
   * each secret it reads, and the forms a node sends them in (userinfo as Basic), as it would to its own.
   */
  readonly redactor?: Redactor;
  /**
   * Called with the exchange of every API node call (an answer, a 4xx/5xx, a network failure, a
   * request that could not be built), secrets written as `{{ secrets.NAME }}`: called with what
   * makes the exchange, for a caller to make those it keeps. Without it nothing is recorded.
   */
  readonly onExchange?: (record: () => Exchange, node: string, size: () => PendingExchangeSize) => void;
  /** The most bytes of each body an exchange keeps (default EXCHANGE_BODY_LIMITS.execution). */
  readonly exchangeBodyLimit?: number;
  /** A debugger's hold points (nodePauses.ts): before a node, after its answer, after a failure. */
  readonly pauses?: NodePauses;
}

export type ExecutionFailureKind = NodeFailureKind | 'secret' | 'output' | 'timeout';

export interface ExecutionFailure {
  /** What failed and why, naming the node, output or secret. */
  readonly message: string;
  readonly kind: ExecutionFailureKind;
  readonly node?: string;
  readonly output?: string;
}

interface ExecutionTimes {
  readonly trace: readonly NodeTrace[];
  readonly startedAt: string;
  readonly endedAt: string;
  readonly durationMs: number;
}

export type ExecutionResult =
  | (ExecutionTimes & { readonly status: 'finished'; readonly outputs: Readonly<Record<string, unknown>> })
  | (ExecutionTimes & { readonly status: 'failed' | 'cancelled'; readonly error: ExecutionFailure });

type MutableTrace = Mutable<NodeTrace>;

export async function executeAgent(agent: LoadedAgent, inputs: ResolvedInputs, options: EngineOptions = {}): Promise<ExecutionResult> {
  const startedAt = new Date();
  const started = performance.now();
  const redactor = options.redactor ?? new Redactor();
  const plan = agent.plan;
  const traces = new Map<string, MutableTrace>(
    plan.nodes.map((node) => [node.id, { node: node.id, type: node.kind, status: 'pending' as NodeStatus }]),
  );
  const finish = (outcome: { outputs: Record<string, unknown> } | { error: ExecutionFailure; cancelled?: boolean }): ExecutionResult => {
    const times: ExecutionTimes = {
      trace: [...traces.values()].map((entry) => ({ ...entry, ...(entry.status === 'pending' ? { status: 'skipped' as const } : {}) })),
      startedAt: startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
    if ('outputs' in outcome) return { ...times, status: 'finished', outputs: redactor.value(outcome.outputs) as Record<string, unknown> };
    const error = { ...outcome.error, message: redactor.text(outcome.error.message) };
    return { ...times, status: outcome.cancelled ? 'cancelled' : 'failed', error };
  };

  // One controller stops every running node: on cancellation, on the time limit, or on a failure.
  const stop = new AbortController();
  let stopReason: 'cancelled' | 'timeout' | 'failed' | undefined;
  const halt = (reason: 'cancelled' | 'timeout' | 'failed'): void => {
    if (stopReason) return;
    stopReason = reason;
    stop.abort();
  };
  const onCancel = (): void => halt('cancelled');
  options.signal?.addEventListener('abort', onCancel, { once: true });
  if (options.signal?.aborted) halt('cancelled');
  const timer = options.timeoutMs !== undefined ? setTimeout(() => halt('timeout'), Math.min(options.timeoutMs, MAX_TIMER_MS)) : undefined;
  // The answers are held in `results` until the execution ends: their bytes are given back then.
  const answers = options.answerBudget ? new BudgetShare(options.answerBudget) : undefined;
  const stoppedFailure = (): { error: ExecutionFailure; cancelled?: boolean } => {
    const stopped = [...traces.values()].filter((entry) => entry.status === 'cancelled').map((entry) => `"${entry.node}"`);
    const which = stopped.length ? ` (stopped: ${stopped.join(', ')})` : '';
    return stopReason === 'timeout'
      ? {
          error: {
            kind: 'timeout',
            message: `The execution did not finish within its time limit of ${formatSeconds(options.timeoutMs ?? 0)}${which}.`,
          },
        }
      : { error: { kind: 'cancelled', message: `The execution was cancelled${which}.` }, cancelled: true };
  };

  try {
    const secrets = await resolveSecrets(plan.secretNames, options);
    if ('error' in secrets) return finish({ error: secrets.error });
    for (const value of secrets.values.values()) redactor.add(value);
    if (stopReason) return finish(stoppedFailure());

    const results = new Map<string, NodeResult>();
    const scope = { inputs: inputs.values, nodes: results, secrets: secrets.values };
    options.pauses?.started?.(scope);
    const failure = await runNodes(plan.nodes, scope, options, stop.signal, traces, redactor, answers, () => halt('failed'));
    if (stopReason && stopReason !== 'failed') return finish(stoppedFailure());
    if (failure) return finish({ error: failure });

    const outputs: Array<[string, unknown]> = [];
    for (const output of plan.outputs) {
      try {
        outputs.push([output.name, evaluateString(output.from, scope, { output: output.name, field: 'from' })]);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        return finish({
          error: { kind: 'output', output: output.name, message: `Output "${output.name}": ${error.expression} ${error.reason}` },
        });
      }
    }
    // fromEntries defines each name as a field, even "__proto__".
    return finish({ outputs: Object.fromEntries(outputs) });
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
    answers?.releaseAll();
  }
}

async function resolveSecrets(
  names: readonly string[],
  options: EngineOptions,
): Promise<{ values: Map<string, string> } | { error: ExecutionFailure }> {
  const values = new Map<string, string>();
  const missing: string[] = [];
  const failed: string[] = [];
  await Promise.all(
    names.map(async (name) => {
      try {
        const value = options.secrets ? await options.secrets(name) : undefined;
        if (value === undefined || value === '') missing.push(name);
        else values.set(name, value);
      } catch (error) {
        failed.push(`Secret "${name}" could not be read: ${errorMessage(error)}.`);
      }
    }),
  );
  if (missing.length === 0 && failed.length === 0) return { values };
  // Secrets read so far must not show up in the message either.
  const redactor = new Redactor();
  for (const value of values.values()) redactor.add(value);
  const hint = options.secretHint ?? ((name: string) => `store it as secret ${name}`);
  const lines = [...missing.sort().map((name) => `Secret "${name}" is not set: ${hint(name)}.`), ...failed];
  return {
    error: {
      kind: 'secret',
      message: redactor.text(
        `The agent uses ${missing.length + failed.length === 1 ? 'a secret that is' : 'secrets that are'} not available. ${lines.join(' ')}`,
      ),
    },
  };
}

/** Runs the nodes in dependency order, at most `concurrency` at a time. Returns the first failure. */
function runNodes(
  nodes: readonly NodePlan[],
  scope: Scope & { nodes: Map<string, NodeResult> },
  options: EngineOptions,
  signal: AbortSignal,
  traces: Map<string, MutableTrace>,
  redactor: Redactor,
  answers: BudgetShare | undefined,
  onFailure: () => void,
): Promise<ExecutionFailure | undefined> {
  const limit = Math.max(1, Math.floor(options.concurrency ?? ENGINE_DEFAULTS.concurrency));
  const waitingFor = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  const byId = new Map(nodes.map((node) => [node.id, node]));
  for (const node of nodes) {
    waitingFor.set(node.id, node.dependencies.size);
    for (const dependency of node.dependencies) {
      const list = dependents.get(dependency);
      if (list) list.push(node.id);
      else dependents.set(dependency, [node.id]);
    }
  }
  const ready = nodes.filter((node) => node.dependencies.size === 0);
  let running = 0;
  let failure: ExecutionFailure | undefined;
  const report = (entry: MutableTrace): void => {
    if (entry.error !== undefined) entry.error = redactor.text(entry.error);
    if (entry.url !== undefined) entry.url = redactor.text(entry.url);
    options.onTrace?.({ ...entry });
  };

  return new Promise((resolve) => {
    const pump = (): void => {
      while (!failure && !signal.aborted && running < limit && ready.length > 0) launch(ready.shift()!);
      if (running === 0) resolve(failure);
    };
    const launch = (node: NodePlan): void => {
      running++;
      const entry = traces.get(node.id)!;
      const startedAt = performance.now();
      entry.status = 'running';
      entry.startedAt = isoTime(Date.now());
      report(entry);
      const end = (status: NodeStatus, extra: Partial<MutableTrace>): void => {
        Object.assign(entry, extra, {
          status,
          endedAt: isoTime(Date.now()),
          durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
        });
        report(entry);
      };
      const pinned = options.pinnedResults?.get(node.id);
      const outcome = pinned
        ? Promise.resolve(pinnedOutcome(pinned))
        : runNode(node, scope, options, signal, redactor, answers, (request) => {
            entry.method = request.method;
            entry.url = redactor.text(request.url);
          });
      (options.pauses && !pinned ? heldOutcome(node, scope, options.pauses, signal, outcome) : outcome)
        .then(
          ({ result, bytes, httpStatus }) => {
            scope.nodes.set(node.id, result);
            options.onNodeValue?.(node.id, result);
            options.onNodeResult?.(node.id, redactor.value(result) as NodeResult);
            end('succeeded', { bytes, ...(httpStatus !== undefined ? { httpStatus } : {}), ...(pinned ? { pinned: true } : {}) });
            for (const dependent of dependents.get(node.id) ?? []) {
              const left = waitingFor.get(dependent)! - 1;
              waitingFor.set(dependent, left);
              if (left === 0) ready.push(byId.get(dependent)!);
            }
          },
          (error: unknown) => {
            const nodeError = asNodeError(node.id, error);
            // A node stopped because the run was already stopping is not the cause.
            if (signal.aborted && (nodeError.kind === 'cancelled' || failure)) {
              end('cancelled', {});
              return;
            }
            end('failed', {
              error: nodeError.reason,
              ...(nodeError.details.httpStatus !== undefined ? { httpStatus: nodeError.details.httpStatus } : {}),
              ...(nodeError.details.bytes !== undefined ? { bytes: nodeError.details.bytes } : {}),
            });
            failure = { kind: nodeError.kind, node: node.id, message: nodeError.message };
            onFailure();
          },
        )
        .finally(() => {
          running--;
          pump();
        });
    };
    pump();
  });
}

/**
 * A node's outcome, held by a debugger after an API node's answer and after a failure (not one
 * that comes from the execution stopping): the node ends when the debugger lets it go.
 */
async function heldOutcome<T extends { result: NodeResult }>(
  node: NodePlan,
  scope: Scope & { nodes: Map<string, NodeResult> },
  pauses: NodePauses,
  signal: AbortSignal,
  outcome: Promise<T>,
): Promise<T> {
  let done: T;
  try {
    done = await outcome;
  } catch (error) {
    const nodeError = asNodeError(node.id, error);
    if (!(signal.aborted && nodeError.kind === 'cancelled')) await pauses.afterFailure({ node, scope, error: nodeError });
    throw nodeError;
  }
  if (node.kind === 'api') await pauses.afterResponse({ node, scope, result: done.result });
  return done;
}

/** A pinned result as if the node had produced it (its size as JSON, or as text). */
function pinnedOutcome(result: NodeResult): { result: NodeResult; bytes: number; httpStatus?: number } {
  const body = typeof result.body === 'string' ? result.body : (JSON.stringify(result.body) ?? '');
  return { result, bytes: Buffer.byteLength(body), ...(result.status !== undefined ? { httpStatus: result.status } : {}) };
}

async function runNode(
  node: NodePlan,
  scope: Scope,
  options: EngineOptions,
  signal: AbortSignal,
  redactor: Redactor,
  answers: BudgetShare | undefined,
  onRequest: (request: { method: string; url: string }) => void,
): Promise<{ result: NodeResult; bytes: number; httpStatus?: number }> {
  if (node.kind === 'template') {
    if (options.pauses) {
      await options.pauses.beforeNode({ node, scope });
      if (signal.aborted) throw new NodeError(node.id, 'The execution was stopped while the node was held.', 'cancelled');
    }
    const text = renderText(evaluateString(node.text, scope, { node: node.id, field: 'text' }));
    return { result: { body: text }, bytes: Buffer.byteLength(text) };
  }
  const dispatcher = options.dispatcherFor?.(node.id) ?? options.dispatcher;
  const outcome = await runApiNode(
    node,
    scope,
    {
      timeoutMs: options.nodeTimeoutMs ?? ENGINE_DEFAULTS.nodeTimeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? ENGINE_DEFAULTS.maxResponseBytes,
      followRedirects: options.followRedirects ?? ENGINE_DEFAULTS.followRedirects,
      maxRedirects: options.maxRedirects ?? ENGINE_DEFAULTS.maxRedirects,
      signal,
      redactor,
      ...(dispatcher ? { dispatcher } : {}),
      ...(answers ? { responseBudget: answers } : {}),
      ...(options.onExchange
        ? { onExchange: options.onExchange, exchangeBodyLimit: options.exchangeBodyLimit ?? EXCHANGE_BODY_LIMITS.execution }
        : {}),
      ...(options.pauses ? { beforeSend: beforeSendOf(node, scope, options.pauses) } : {}),
    },
    onRequest,
  );
  return {
    result: outcome.result,
    bytes: outcome.bytes,
    ...(outcome.result.status !== undefined ? { httpStatus: outcome.result.status } : {}),
  };
}

function beforeSendOf(node: NodePlan, scope: Scope, pauses: NodePauses): (request: ApiRequest) => Promise<ApiRequest | void> {
  return (request) => pauses.beforeNode({ node, scope, request });
}

function asNodeError(node: string, error: unknown): NodeError {
  if (error instanceof NodeError) return error;
  if (error instanceof ExpressionError)
    return new NodeError(node, `${error.where.field}: ${error.expression} ${error.reason}`, 'expression', { cause: error });
  return new NodeError(node, errorMessage(error), 'request', { cause: error });
}
