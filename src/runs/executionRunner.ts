// Drives runs: starts an execution (on the service, or in the engine for a local run), watches it
// with a cancellable progress notification, keeps its record in the history at every step (so a
// window reload loses nothing and resumes watching), and reports the end in the results channel
// and a notification whose actions open the result.
import { basename } from 'node:path';
import type { Dispatcher } from 'undici';
import * as vscode from 'vscode';
import { formatDuration, hasNodeAndStatus, keptChange, keptError } from '../core/executions/executionRecord';
import { statusWriter } from '../core/executions/statusWrites';
import type { ExecutionRecord, ExecutionTargetInfo, RecordedInput, TraceEntry } from '../core/executions/executionRecord';
import { executeAgent } from '../core/engine/engine';
import type { ExecutionResult } from '../core/engine/engine';
import type { LoadedAgent } from '../core/engine/agentPlan';
import type { NodeResult } from '../core/engine/evaluate';
import type { ResolvedInputs } from '../core/engine/inputs';
import type { SecretResolver } from '../core/engine/secrets';
import type { NodeTrace } from '../core/engine/trace';
import { getExchanges, startAgent } from '../core/service/agentClient';
import { isLocalServerUrl } from '../core/service/target';
import type { InputValues, StatusAnswer } from '../core/service/agentClient';
import { checkFiles } from '../core/service/multipartBody';
import type { FilePart } from '../core/inputs/inputValues';
import { pollExecution } from '../core/service/poller';
import { ServiceError } from '../core/service/serviceError';
import type { AgentTarget } from '../core/service/target';
import { serviceSettings } from '../config';
import type { ExecutionHistory } from './executionHistory';
import type { ExecutionExchangeFiles } from './executionExchanges';
import { ExchangeLog } from '../core/exchange/executionExchanges';
import { EXCHANGE_BODY_LIMITS } from '../core/exchange/exchange';
import type { Exchange } from '../core/exchange/exchange';
import type { ResultsChannel } from './resultsChannel';
import { openResultDocument } from './resultsChannel';

import { COMMANDS } from '../commandIds';
import { errorMessage } from '../core/errors';

/** How long reading a local server's exchanges of an ended execution may take. */
const EXCHANGES_READ_TIMEOUT_MS = 5000;

export interface RunnerDeps {
  readonly store: ExecutionHistory;
  readonly results: ResultsChannel;
  readonly logger: vscode.LogOutputChannel;
  /** Where a local execution's exchanges are kept (the Agent Executions view opens them). */
  readonly executionExchanges?: ExecutionExchangeFiles;
}

export interface DeployedRunRequest {
  readonly agentName: string;
  readonly file?: vscode.Uri;
  readonly info: ExecutionTargetInfo;
  readonly target: AgentTarget;
  readonly inputs: InputValues;
  readonly files: readonly FilePart[];
  /** Stops watching, as the notification's Cancel does (a language model tool's call cancelled). */
  readonly signal?: AbortSignal;
}

export interface LocalRunRequest {
  readonly agentName: string;
  readonly file: vscode.Uri;
  readonly agent: LoadedAgent;
  readonly inputs: ResolvedInputs;
  readonly recordedInputs: Readonly<Record<string, RecordedInput>>;
  readonly filePaths: Readonly<Record<string, string>>;
  /** The SHA-256 of the agent file's text this run runs. */
  readonly fileDigest?: string;
  readonly secrets: SecretResolver;
  /** For the API nodes' calls (VS Code's proxy settings). */
  readonly dispatcher?: Dispatcher;
  /** Pinned results, by node: those nodes are not called. */
  readonly pinnedResults?: ReadonlyMap<string, NodeResult>;
  /** Each node's result as later nodes see it (not redacted: kept in memory only). */
  readonly onNodeValue?: (node: string, result: NodeResult) => void;
  /** Cancels the run, as the notification's Cancel does (a language model tool's call cancelled). */
  readonly signal?: AbortSignal;
}

/** Where a watch shows its progress: a cancellable notification, or the status bar (resumed watches). */
export type ProgressStyle = 'notification' | 'window';

export class ExecutionRunner implements vscode.Disposable {
  /** Runs being watched or executed, by record key: aborting one stops it. */
  private readonly active = new Map<string, AbortController>();
  private disposed = false;

  constructor(private readonly deps: RunnerDeps) {}

  isWatching(key: string): boolean {
    return this.active.has(key);
  }

  /** Stops watching (or, for a local run, cancels) an execution. False when it was not active. */
  stop(key: string): boolean {
    const controller = this.active.get(key);
    controller?.abort();
    return controller !== undefined;
  }

  /** Starts an execution on the service and watches it to the end. Resolves to its final record. */
  async runDeployed(request: DeployedRunRequest): Promise<ExecutionRecord> {
    // Unreadable files stop the run before anything is sent; sizes go in the record, never content.
    const sizes = request.files.length ? await checkFiles(request.files) : {};
    const recorded: Record<string, RecordedInput> = { ...request.inputs };
    const filePaths: Record<string, string> = {};
    for (const file of request.files) {
      filePaths[file.field] = file.path;
      recorded[file.field] = { file: basename(file.path), size: sizes[file.field] ?? 0 };
    }
    let record: ExecutionRecord = await this.deps.store.put({
      key: newKey(),
      mode: 'deployed',
      agentName: request.agentName,
      ...(request.file ? { file: request.file.toString() } : {}),
      target: request.info,
      inputs: recorded,
      filePaths,
      state: 'starting',
      startedAt: Date.now(),
    });
    this.deps.results.started(record);
    return this.withProgress(
      record,
      'notification',
      async (report, signal) => {
        report('starting');
        try {
          const options = { signal };
          const started = await startAgent(request.target, request, options);
          record = (await this.deps.store.update(record.key, { executionId: started.executionId, state: 'running' })) ?? record;
          this.deps.logger.info(
            `Started ${request.agentName} on ${request.info.baseUrl} (account ${request.info.account}, agent ${request.info.agent}): execution ${started.executionId}.`,
          );
          this.deps.results.note(`  execution: ${started.executionId} (started)`);
        } catch (error) {
          return this.fail(record, error);
        }
        return this.pollToEnd(record, request.target, report, signal);
      },
      request.signal,
    );
  }

  /** Watches an execution that was started earlier (Poll Execution…, Watch Again, a resumed watch). */
  async watch(record: ExecutionRecord, target: AgentTarget, style: ProgressStyle, onFirstStatus?: () => void): Promise<ExecutionRecord> {
    if (this.active.has(record.key)) throw new Error(`Execution ${record.executionId ?? record.key} is already being watched.`);
    // A record still running as stored (a watch resumed after a reload) is read at once: saving the
    // same state again first would wait for VS Code's storage before the first read.
    const stored = this.deps.store.get(record.key);
    const current =
      stored?.state === 'running'
        ? stored
        : ((await this.deps.store.update(record.key, { state: 'running' })) ??
          (await this.deps.store.put({ ...record, state: 'running' })));
    // A watch taken up after a reload goes on with the schedule the execution had (read at once, then
    // at the interval reached by now), not from the first, fastest interval again.
    const resumed = style === 'window';
    return this.withProgress(current, style, (report, signal) => this.pollToEnd(current, target, report, signal, resumed, onFirstStatus));
  }

  /** Runs an agent in this window with the engine, trace included. */
  async runLocal(request: LocalRunRequest): Promise<ExecutionRecord> {
    const record: ExecutionRecord = await this.deps.store.put({
      key: newKey(),
      mode: 'local',
      agentName: request.agentName,
      file: request.file.toString(),
      inputs: request.recordedInputs,
      filePaths: request.filePaths,
      ...(request.fileDigest !== undefined ? { fileDigest: request.fileDigest } : {}),
      state: 'running',
      startedAt: Date.now(),
    });
    this.deps.results.started(record);
    return this.withProgress(
      record,
      'notification',
      async (report, signal) => {
        report('running');
        const running = new Set<string>();
        const exchanges = this.deps.executionExchanges ? new ExchangeLog() : undefined;
        let result: ExecutionResult;
        try {
          result = await executeAgent(request.agent, request.inputs, {
            ...(exchanges
              ? { onExchange: (record: () => Exchange) => exchanges.add(record()), exchangeBodyLimit: EXCHANGE_BODY_LIMITS.execution }
              : {}),
            secrets: request.secrets,
            secretHint: (name) => `run "Agent Workflows: Set Secret…" for ${name}`,
            timeoutMs: serviceSettings(request.file).runTimeoutMs,
            signal,
            ...(request.dispatcher ? { dispatcher: request.dispatcher } : {}),
            ...(request.pinnedResults?.size ? { pinnedResults: request.pinnedResults } : {}),
            ...(request.onNodeValue ? { onNodeValue: request.onNodeValue } : {}),
            onTrace: (entry) => {
              if (entry.status === 'running') running.add(entry.node);
              else running.delete(entry.node);
              report(running.size ? `running ${[...running].join(', ')}` : 'running');
              this.deps.logger.debug(
                `Local run of ${request.agentName}: node ${entry.node} ${entry.status}${entry.durationMs !== undefined ? ` in ${entry.durationMs} ms` : ''}.`,
              );
            },
          });
        } catch (error) {
          return this.fail(record, error);
        }
        // Kept before the record ends, so the view lists the nodes with their exchanges at once.
        if (exchanges)
          await this.deps.executionExchanges
            ?.keep(record.key, exchanges.snapshot())
            .catch((error: unknown) => this.deps.logger.warn(`Exchanges of ${request.agentName} not kept: ${errorMessage(error)}`));
        const trace = result.trace.map(traceEntry);
        const ended =
          result.status === 'finished'
            ? { state: 'finished' as const, serviceStatus: 'finished', outputs: result.outputs, trace, endedAt: Date.now() }
            : result.status === 'cancelled'
              ? { state: 'stopped' as const, serviceStatus: 'cancelled', error: result.error.message, trace, endedAt: Date.now() }
              : { state: 'problem' as const, serviceStatus: 'failed', error: result.error.message, trace, endedAt: Date.now() };
        return this.end(record, ended);
      },
      request.signal,
    );
  }

  dispose(): void {
    this.disposed = true;
    // Polling stops; the records stay "running" in workspace state, and the next window resumes them.
    for (const controller of this.active.values()) controller.abort(new Error('disposed'));
    this.active.clear();
  }

  private async pollToEnd(
    record: ExecutionRecord,
    target: AgentTarget,
    report: (state: string) => void,
    signal: AbortSignal,
    resumed = false,
    onFirstStatus?: () => void,
  ): Promise<ExecutionRecord> {
    const executionId = record.executionId;
    if (!executionId) return this.fail(record, new Error('The execution has no id to watch.'));
    const settings = serviceSettings();
    report('running');
    const writeStatus = statusWriter(
      record,
      (change) => this.deps.store.update(record.key, change),
      (error) => this.deps.logger.warn(`Status of ${executionId} not saved in the execution history: ${errorMessage(error)}`),
    );
    try {
      const outcome = await pollExecution(target, executionId, {
        signal,
        ...(resumed ? { startedAt: record.startedAt } : {}),
        maxIntervalMs: settings.pollMaxIntervalMs,
        timeoutMs: settings.runTimeoutMs,
        onRequest: () => {
          onFirstStatus?.();
          onFirstStatus = undefined;
        },
        onUpdate: (answer, progress) => {
          report(answer.status);
          this.deps.logger.trace(`Status of ${executionId}: ${answer.status} (check ${progress.requests}).`);
          writeStatus({ serviceStatus: answer.status, ...traceOf(answer) });
        },
        onRetry: (error, attempt, delayMs) =>
          this.deps.logger.warn(
            `Status of ${executionId}: ${error.message} Trying again in ${formatDuration(delayMs)} (attempt ${attempt}).`,
          ),
      });
      const base = { serviceStatus: outcome.answer.status, endedAt: Date.now(), ...traceOf(outcome.answer) };
      // Kept before the record ends, so the view lists the nodes with their exchanges at once.
      await this.keepServerExchanges(record, target, executionId, signal);
      if (outcome.kind === 'finished') return this.end(record, { ...base, state: 'finished', outputs: outcome.outputs ?? null });
      const error = typeof outcome.answer.body.error === 'string' ? outcome.answer.body.error : JSON.stringify(outcome.answer.body);
      return this.end(record, { ...base, state: 'problem', error });
    } catch (error) {
      return this.fail(record, error);
    }
  }

  /**
   * The exchanges of an execution that ran on a local agent server (this window's, or `serve` on
   * this machine), read from its …/exchanges and kept as a local run's are. The service has none.
   */
  private async keepServerExchanges(record: ExecutionRecord, target: AgentTarget, executionId: string, signal: AbortSignal): Promise<void> {
    const files = this.deps.executionExchanges;
    if (!files || !isLocalServerUrl(target.baseUrl)) return;
    try {
      const log = await getExchanges(target, executionId, { signal, timeoutMs: EXCHANGES_READ_TIMEOUT_MS });
      if (log) await files.keep(record.key, log);
    } catch (error) {
      this.deps.logger.warn(`Exchanges of ${record.agentName} ${executionId} not read from ${target.baseUrl}: ${errorMessage(error)}`);
    }
  }

  /** Runs the body with progress and a cancel that aborts it; the record is active meanwhile. */
  private async withProgress(
    record: ExecutionRecord,
    style: ProgressStyle,
    body: (report: (state: string) => void, signal: AbortSignal) => Promise<ExecutionRecord>,
    stopped?: AbortSignal,
  ): Promise<ExecutionRecord> {
    const controller = new AbortController();
    if (stopped?.aborted) controller.abort();
    else stopped?.addEventListener('abort', () => controller.abort(), { once: true });
    this.active.set(record.key, controller);
    const label = `${record.agentName}${record.executionId ? ` (${record.executionId.slice(0, 8)})` : ''}`;
    try {
      return await vscode.window.withProgress(
        {
          location: style === 'notification' ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window,
          title:
            style === 'notification'
              ? `${record.mode === 'local' ? 'Running locally' : 'Running'}: ${record.agentName}`
              : `$(sync~spin) ${label}`,
          cancellable: style === 'notification',
        },
        async (progress, token) => {
          const subscription = token.onCancellationRequested(() => controller.abort());
          let state = 'starting';
          const show = (): void => progress.report({ message: `${state} · ${formatDuration(Date.now() - record.startedAt)}` });
          const timer = setInterval(show, 1000);
          try {
            return await body((next) => {
              state = next;
              show();
            }, controller.signal);
          } finally {
            clearInterval(timer);
            subscription.dispose();
          }
        },
      );
    } finally {
      this.active.delete(record.key);
    }
  }

  private async end(record: ExecutionRecord, change: Partial<ExecutionRecord>): Promise<ExecutionRecord> {
    // The window is closing: its channels are gone; the next window sees the record as it was.
    if (this.disposed) return record;
    const kept = keptChange(change);
    const ended = (await this.deps.store.update(record.key, kept)) ?? { ...record, ...kept };
    const truncated = this.deps.results.ended(ended);
    this.deps.logger.info(
      `${ended.agentName}${ended.executionId ? ` ${ended.executionId}` : ''}: ${ended.state}${ended.serviceStatus ? ` (${ended.serviceStatus})` : ''}.`,
    );
    void this.notify(ended, truncated);
    return ended;
  }

  private async fail(record: ExecutionRecord, error: unknown): Promise<ExecutionRecord> {
    // The window is closing: keep the record as it is, so the next window resumes watching.
    if (this.disposed) return record;
    if (error instanceof ServiceError && error.kind === 'cancelled') return this.end(record, { state: 'stopped', endedAt: Date.now() });
    const message = errorMessage(error);
    if (!(error instanceof ServiceError))
      this.deps.logger.error(`Run of ${record.agentName} failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
    else this.deps.logger.warn(`Run of ${record.agentName}: ${error.kind}: ${message}`);
    const ended = (await this.deps.store.update(record.key, { state: 'error', error: keptError(message), endedAt: Date.now() })) ?? record;
    this.deps.results.ended(ended);
    const actions = error instanceof ServiceError && error.kind === 'auth' ? ['Set API Key', 'Show Output'] : ['Show Output'];
    void vscode.window.showErrorMessage(`${record.agentName}: ${message}`, ...actions).then((choice) => {
      if (choice === 'Set API Key') void vscode.commands.executeCommand(COMMANDS.setApiKey, record.target?.baseUrl);
      else if (choice === 'Show Output') this.deps.results.show();
    });
    return ended;
  }

  private async notify(record: ExecutionRecord, truncated: boolean): Promise<void> {
    const took = record.endedAt !== undefined ? ` in ${formatDuration(record.endedAt - record.startedAt)}` : '';
    let choice: string | undefined;
    if (record.state === 'finished') {
      choice = await vscode.window.showInformationMessage(
        `${record.agentName} finished${took}.${truncated ? ' The output is long: open the result to see all of it.' : ''}`,
        'Open Result',
        'Show Output',
      );
    } else if (record.state === 'stopped') {
      choice = await vscode.window.showInformationMessage(
        record.mode === 'local'
          ? `${record.agentName} was cancelled.`
          : `Stopped watching ${record.agentName}; it may still be running. Watch it again from the Agent Executions view.`,
        'Show Output',
      );
    } else {
      choice = await vscode.window.showWarningMessage(
        `${record.agentName} ended with status "${record.serviceStatus ?? record.state}"${took}: ${record.error ?? ''}`.trim(),
        'Open Result',
        'Show Output',
      );
    }
    if (choice === 'Open Result') await openResultDocument(record);
    else if (choice === 'Show Output') this.deps.results.show();
  }
}

function newKey(): string {
  return `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function traceEntry(entry: NodeTrace): TraceEntry {
  return {
    node: entry.node,
    status: entry.status,
    ...(entry.durationMs !== undefined ? { durationMs: entry.durationMs } : {}),
    ...(entry.bytes !== undefined ? { bytes: entry.bytes } : {}),
    ...(entry.error !== undefined
      ? { detail: entry.error }
      : entry.pinned
        ? { detail: 'pinned (not called)' }
        : entry.httpStatus !== undefined
          ? { detail: `HTTP ${entry.httpStatus}` }
          : {}),
  };
}

/** The per-node trace a status answer carries (the local server sends one), as record fields. */
function traceOf(answer: StatusAnswer): { trace?: TraceEntry[] } {
  const trace = answer.body.trace;
  if (!Array.isArray(trace)) return {};
  return { trace: trace.filter(hasNodeAndStatus).map((entry) => traceEntry(entry as NodeTrace)) };
}
