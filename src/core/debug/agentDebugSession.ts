// The agent debugger, on the Debug Adapter Protocol (debug type `agent-workflow`): it runs an agent
// (or an agent test case with its mocks) with the workflow engine, holding nodes at the engine's
// hold points (engine/nodePauses.ts). Each running node is a thread; a held node's thread is
// stopped while the others go on. VS Code runs it inline; `agent-workflows dap` serves it over
// stdio for other editors. Every value shown is redacted, secrets written as {{ secrets.NAME }}.
import type { FileRefusal } from '../inputs/fileAccess';
import { basename, resolve } from 'node:path';
import {
  Breakpoint,
  BreakpointEvent,
  DebugSession,
  ExitedEvent,
  InitializedEvent,
  OutputEvent,
  Scope as DebugScope,
  Source,
  StackFrame,
  StoppedEvent,
  TerminatedEvent,
  Thread,
  ThreadEvent,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { parseAgentFile } from '../document/parse';
import { shownOutputs } from '../executions/runReport';
import { readModel } from '../document/model';
import type { NodePlan } from '../engine/agentPlan';
import { changeRequest } from '../engine/apiRequest';
import type { ApiRequest } from '../engine/apiRequest';
import { executeAgent } from '../engine/engine';
import type { NodeResult, Scope } from '../engine/evaluate';
import type { NodeError } from '../engine/nodeError';
import type { NodePauses } from '../engine/nodePauses';
import type { SecretResolver } from '../engine/secrets';
import type { NodeTrace } from '../engine/trace';
import { renderText } from '../engine/values';
import { errorMessage } from '../errors';
import { namedSecretRedactor } from '../exchange/recordExchange';
import { MASK } from '../redaction';
import type { Redactor } from '../redaction';
import { readText } from '../testing/loadSuite';
import { runCase } from '../testing/runCase';
import { evaluateDebugExpression, typedDebugValue } from './debugExpressions';
import { shownString, VariableStore } from './debugValues';
import type { ShownVariable } from './debugValues';
import { resolveLaunch } from './launchConfig';
import type { AgentLaunchArguments, DebugTarget, TextReader } from './launchConfig';
import { NodeBreakpoints } from './nodeBreakpoints';
import { NodeLines } from './nodeLines';

export const DEBUG_TYPE = 'agent-workflow';

/** The exception breakpoint filters. */
export const EXCEPTION_FILTERS = {
  failed: 'failed',
  httpStatus: 'httpStatus',
} as const;

export interface AgentDebugSessionOptions {
  /** What relative paths of a launch configuration are relative to. */
  readonly cwd: string;
  /** Where secrets not given in the launch configuration come from. */
  readonly secrets: SecretResolver;
  /** How to provide a missing secret, for the launch error. */
  readonly secretHint: (name: string) => string;
  /** Where the agent and test files' text comes from (default: disk); an editor gives its unsaved text. */
  readonly readText?: TextReader;
  /** Called once when the client disconnects or the connection closes (instead of exiting the process). */
  readonly onShutdown?: () => void;
  /** Where files of "files" may come from besides `cwd`, and how to allow more (see LaunchSources). */
  readonly allowedFolders?: readonly string[];
  readonly chosenFiles?: () => readonly string[];
  readonly allowHint?: (refusal: FileRefusal) => string | undefined;
}

/** Logpoint and condition messages one execution prints at most; then one line says the rest is left out. */
const MAX_LOG_LINES = 1000;
/** Characters of one logpoint message printed at most. */
const MAX_LOG_CHARS = 4000;
/** Frames of one stack (the node and the nodes it uses) at most. */
const MAX_FRAMES = 1000;
/** Frame ids are the thread's id times this, plus the frame's place in the stack. */
const FRAMES_PER_THREAD = 1024;

type HoldKind = 'before' | 'response' | 'failure';

interface Hold {
  readonly thread: number;
  readonly node: NodePlan;
  readonly kind: HoldKind;
  /** The held API node's request, as changed so far. */
  request?: ApiRequest;
  readonly result?: NodeResult;
  readonly error?: NodeError;
  readonly release: () => void;
}

interface Execution {
  readonly target: DebugTarget;
  readonly lines: NodeLines;
  readonly controller: AbortController;
  readonly redactor: Redactor;
  readonly threadIds: ReadonlyMap<string, number>;
  readonly nodesByThread: ReadonlyMap<number, NodePlan>;
  readonly running: Set<string>;
  readonly holds: Map<number, Hold>;
  readonly traces: Map<string, NodeTrace>;
  scope?: Scope;
  entryPending: boolean;
  /** Step Over asked: the next node to start stops. */
  stepNext: boolean;
  /** Step Into asked on these API nodes: each stops again with its answer. */
  readonly stepInto: Set<string>;
  pauseRequested: boolean;
  logLines: number;
  /** The agent file was seen changed on disk (said once). */
  stale: boolean;
  done?: Promise<void>;
  ended: boolean;
}

/** What a variables reference the session made is, when Set Value applies to it. */
type Editable = { readonly kind: 'inputs' } | { readonly kind: 'request' | 'requestHeaders'; readonly thread: number };

export class AgentDebugSession extends DebugSession {
  private readonly breakpoints = new NodeBreakpoints();
  private readonly variables = new VariableStore();
  private readonly editable = new Map<number, Editable>();
  private exceptionFilters = new Set<string>();
  private launchArgs: AgentLaunchArguments | undefined;
  /** The launch configuration being resolved: its secrets redact a launch's error. */
  private launching: AgentLaunchArguments | undefined;
  private execution: Execution | undefined;
  private configured!: () => void;
  private readonly configurationDone = new Promise<void>((done) => (this.configured = done));
  private shutDown = false;

  /** The files' text as the client sees it (an editor's unsaved text), else from disk. */
  private readonly readText: TextReader;

  constructor(private readonly options: AgentDebugSessionOptions) {
    super();
    this.readText = options.readText ?? readText;
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  override shutdown(): void {
    if (this.execution && !this.execution.ended) this.stopExecution(this.execution);
    if (!this.options.onShutdown) return super.shutdown();
    if (this.shutDown) return;
    this.shutDown = true;
    this.options.onShutdown();
  }

  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsEvaluateForHovers: true,
      supportsSetVariable: true,
      supportsRestartRequest: true,
      supportsTerminateRequest: true,
      supportsExceptionInfoRequest: true,
      supportsSingleThreadExecutionRequests: true,
      exceptionBreakpointFilters: [
        { filter: EXCEPTION_FILTERS.failed, label: 'Node failed', description: 'Stop when a node fails, before the run stops.' },
        {
          filter: EXCEPTION_FILTERS.httpStatus,
          label: 'HTTP status 400 or more',
          description: 'Stop when an API node is answered 4xx or 5xx.',
        },
      ],
    };
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.sendResponse(response);
    this.configured();
  }

  protected override async launchRequest(
    response: DebugProtocol.LaunchResponse,
    args: DebugProtocol.LaunchRequestArguments,
  ): Promise<void> {
    // A client may send no arguments at all.
    const launchArgs = (args ?? {}) as AgentLaunchArguments;
    this.launching = launchArgs;
    let target: DebugTarget;
    try {
      target = await this.resolveTarget(launchArgs);
    } catch (error) {
      this.fail(response, error);
      this.sendEvent(new TerminatedEvent());
      return;
    }
    this.launchArgs = launchArgs;
    await this.configurationDone;
    this.sendResponse(response);
    this.startExecution(target);
  }

  protected override async restartRequest(response: DebugProtocol.RestartResponse): Promise<void> {
    if (!this.launchArgs) return this.fail(response, new Error('Nothing was launched to restart.'));
    const previous = this.execution;
    if (previous) {
      previous.ended = true;
      this.stopExecution(previous);
      await previous.done;
    }
    let target: DebugTarget;
    try {
      // The file is read again: a Restart picks up an edit.
      target = await this.resolveTarget(this.launchArgs);
    } catch (error) {
      this.fail(response, error);
      this.sendEvent(new TerminatedEvent());
      return;
    }
    this.sendResponse(response);
    this.startExecution(target);
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    const execution = this.execution;
    if (execution) {
      this.stopExecution(execution);
      await execution.done;
    }
    this.sendResponse(response);
  }

  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    const execution = this.execution;
    if (execution) {
      this.stopExecution(execution);
      await execution.done;
    }
    this.sendResponse(response);
    this.shutdown();
  }

  protected override setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): void {
    const path = args.source.path;
    const specs = (args.breakpoints ?? []).map((breakpoint) => ({
      line: this.convertClientLineToDebugger(breakpoint.line),
      ...(breakpoint.condition !== undefined ? { condition: breakpoint.condition } : {}),
      ...(breakpoint.hitCondition !== undefined ? { hitCondition: breakpoint.hitCondition } : {}),
      ...(breakpoint.logMessage !== undefined ? { logMessage: breakpoint.logMessage } : {}),
    }));
    if (!path) {
      response.body = { breakpoints: specs.map((spec) => ({ verified: false, line: spec.line, message: 'The source has no path.' })) };
      return this.sendResponse(response);
    }
    const file = resolve(this.convertClientPathToDebugger(path));
    const lines = this.linesOf(file);
    const bound = this.breakpoints.set(file, specs, 'lines' in lines ? lines.lines : undefined, 'why' in lines ? lines.why : undefined);
    response.body = { breakpoints: bound.map((breakpoint) => this.shownBreakpoint(file, breakpoint)) };
    this.sendResponse(response);
  }

  protected override setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: DebugProtocol.SetExceptionBreakpointsArguments,
  ): void {
    this.exceptionFilters = new Set(args.filters);
    this.sendResponse(response);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const execution = this.execution;
    const threads: Thread[] = [];
    if (execution)
      for (const node of execution.running) {
        const id = execution.threadIds.get(node)!;
        threads.push(new Thread(id, `${node} (${execution.nodesByThread.get(id)?.kind ?? 'node'})`));
      }
    response.body = { threads };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    const execution = this.execution;
    const node = execution?.nodesByThread.get(args.threadId);
    if (!execution || !node) {
      response.body = { stackFrames: [], totalFrames: 0 };
      return this.sendResponse(response);
    }
    const chain = [node, ...upstreamOf(node, execution.target.agent.plan.nodes)].slice(0, MAX_FRAMES);
    const hold = execution.holds.get(args.threadId);
    const source = new Source(basename(execution.target.agentFile), this.convertDebuggerPathToClient(execution.target.agentFile));
    const start = Math.max(0, args.startFrame ?? 0);
    const end = args.levels ? Math.min(chain.length, start + args.levels) : chain.length;
    const frames = chain.slice(start, end).map((frameNode, offset) => {
      const index = start + offset;
      const line = execution.lines.lineOf(frameNode.id) ?? 1;
      const name =
        index === 0 ? `${frameNode.id}${hold ? ` (${holdWords(hold, execution.redactor)})` : ''}` : `${frameNode.id} (used by ${node.id})`;
      const frame = new StackFrame(
        args.threadId * FRAMES_PER_THREAD + index,
        name,
        source,
        this.convertDebuggerLineToClient(line),
        this.convertDebuggerColumnToClient(1),
      );
      if (index > 0) frame.presentationHint = 'subtle';
      return frame;
    });
    response.body = { stackFrames: frames, totalFrames: chain.length };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const execution = this.execution;
    if (!execution) return this.fail(response, new Error('Nothing is running.'));
    const thread = Math.floor(args.frameId / FRAMES_PER_THREAD);
    const hold = args.frameId % FRAMES_PER_THREAD === 0 ? execution.holds.get(thread) : undefined;
    const scopes: DebugScope[] = [];
    const inputs = this.variables.list(() => this.inputVariables(execution));
    this.markEditable(inputs, { kind: 'inputs' });
    scopes.push(new DebugScope('Inputs', inputs));
    scopes.push(
      new DebugScope(
        'Secrets',
        this.variables.list(() => secretVariables(execution)),
      ),
    );
    scopes.push(
      new DebugScope(
        'Nodes',
        this.variables.list(() => this.nodeVariables(execution)),
      ),
    );
    if (hold?.kind === 'before' && hold.request) {
      const request = this.variables.list(() => this.requestVariables(execution, thread));
      this.markEditable(request, { kind: 'request', thread });
      scopes.push(new DebugScope('Request', request));
    }
    if (hold?.kind === 'response' && hold.result) {
      const result = hold.result;
      scopes.push(
        new DebugScope(
          'Response',
          this.variables.list(() => this.resultVariables(result, `nodes.${hold.node.id}`, execution)),
        ),
      );
    }
    if (hold?.kind === 'failure' && hold.error) {
      const error = hold.error;
      scopes.push(
        new DebugScope(
          'Failure',
          this.variables.list(() => [
            plainVariable('message', JSON.stringify(execution.redactor.text(error.reason))),
            plainVariable('kind', error.kind),
            ...(error.details.httpStatus !== undefined ? [plainVariable('status', String(error.details.httpStatus))] : []),
          ]),
        ),
      );
    }
    response.body = { scopes };
    this.sendResponse(response);
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    const redactor = this.execution?.redactor;
    const variables = redactor
      ? this.variables.children(args.variablesReference, redactor, {
          ...(args.filter ? { filter: args.filter } : {}),
          ...(args.start !== undefined ? { start: args.start } : {}),
          ...(args.count !== undefined ? { count: args.count } : {}),
        })
      : [];
    response.body = { variables };
    this.sendResponse(response);
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    try {
      const execution = this.execution;
      const editable = this.editable.get(args.variablesReference);
      if (!execution?.scope || !editable)
        throw new Error('Only an input, and the URL, a header or the body of a request held before it is sent, can be changed.');
      const scope = execution.scope;
      if (editable.kind === 'inputs') {
        if (!Object.hasOwn(scope.inputs, args.name)) throw new Error(`The agent has no input "${args.name}".`);
        const value = typedDebugValue(args.value, scope);
        (scope.inputs as Record<string, unknown>)[args.name] = value;
        response.body = this.variables.show(args.name, value, `inputs.${args.name}`, execution.redactor);
        return this.sendResponse(response);
      }
      const hold = execution.holds.get(editable.thread);
      if (hold?.kind !== 'before' || !hold.request)
        throw new Error('The request was sent already: it can be changed only while its node is held before sending.');
      const request = hold.request;
      const text = renderText(typedDebugValue(args.value, scope));
      if (editable.kind === 'requestHeaders') {
        const headers: Record<string, string> = {};
        let found = false;
        const wanted = args.name.toLowerCase();
        for (const [name, value] of Object.entries(request.headers)) {
          // The client names a header as it was shown: a name holding a secret, redacted.
          if (name.toLowerCase() === wanted || execution.redactor.text(name).toLowerCase() === wanted) {
            found = true;
            if (args.value.trim() !== '') headers[name] = text;
          } else headers[name] = value;
        }
        if (!found && args.value.trim() !== '') headers[args.name] = text;
        hold.request = changeRequest(request, { headers }, execution.redactor);
        response.body = { value: shownString(execution.redactor.text(text), execution.redactor) };
        return this.sendResponse(response);
      }
      if (args.name === 'url') hold.request = changeRequest(request, { url: text }, execution.redactor);
      else if (args.name === 'body') hold.request = changeRequest(request, { body: text }, execution.redactor);
      else throw new Error(`"${args.name}" cannot be changed: change the url, a header (under headers) or the body.`);
      response.body = { value: shownString(text, execution.redactor) };
      this.sendResponse(response);
    } catch (error) {
      this.fail(response, error);
    }
  }

  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    try {
      const execution = this.execution;
      if (!execution?.scope) throw new Error('Nothing is running: evaluate while the session is stopped at a node.');
      const value = evaluateDebugExpression(args.expression, execution.scope);
      const path = pathOf(args.expression);
      const shown = this.variables.show('', value, path, execution.redactor);
      response.body = {
        result: shown.value,
        variablesReference: shown.variablesReference,
        ...(shown.type ? { type: shown.type } : {}),
        ...(shown.indexedVariables !== undefined ? { indexedVariables: shown.indexedVariables } : {}),
      };
      this.sendResponse(response);
    } catch (error) {
      this.fail(response, error);
    }
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse, args: DebugProtocol.ExceptionInfoArguments): void {
    const execution = this.execution;
    const hold = execution?.holds.get(args.threadId);
    if (!execution || hold?.kind !== 'failure' || !hold.error)
      return this.fail(response, new Error('This thread is not stopped on a failure.'));
    response.body = {
      exceptionId: hold.error.kind,
      description: execution.redactor.text(hold.error.message),
      breakMode: 'always',
    };
    this.sendResponse(response);
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: DebugProtocol.ContinueArguments): void {
    const all = this.releaseThread(args.threadId, () => undefined);
    response.body = { allThreadsContinued: all };
    this.sendResponse(response);
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.releaseThread(args.threadId, (execution) => (execution.stepNext = true));
    this.sendResponse(response);
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.releaseThread(args.threadId, (execution, hold) => {
      // Into an API node held before sending: it stops again with its answer. Elsewhere, as Step Over.
      if (hold?.kind === 'before' && hold.node.kind === 'api') execution.stepInto.add(hold.node.id);
      else execution.stepNext = true;
    });
    this.sendResponse(response);
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    this.releaseThread(args.threadId, () => undefined);
    this.sendResponse(response);
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    if (this.execution && !this.execution.ended) this.execution.pauseRequested = true;
    this.sendResponse(response);
  }

  /** Lets a held thread go (every held one when it is not held); true when every thread goes on. */
  private releaseThread(thread: number, before: (execution: Execution, hold: Hold | undefined) => void): boolean {
    const execution = this.execution;
    if (!execution) return true;
    const hold = execution.holds.get(thread);
    before(execution, hold);
    if (hold) hold.release();
    else for (const other of [...execution.holds.values()]) other.release();
    return !hold;
  }

  private async resolveTarget(args: AgentLaunchArguments): Promise<DebugTarget> {
    const target = await resolveLaunch(args, {
      cwd: this.options.cwd,
      secrets: this.options.secrets,
      secretHint: this.options.secretHint,
      readText: this.readText,
      ...(this.options.allowedFolders ? { allowedFolders: this.options.allowedFolders } : {}),
      ...(this.options.chosenFiles ? { chosenFiles: this.options.chosenFiles() } : {}),
      ...(this.options.allowHint ? { allowHint: this.options.allowHint } : {}),
    });
    // The breakpoints set before the launch (or before a Restart's edit) bind to the file as it is now.
    const lines = new NodeLines(target.text, target.agent.model);
    for (const changed of this.breakpoints.rebind(target.agentFile, lines))
      this.sendEvent(new BreakpointEvent('changed', this.shownBreakpoint(target.agentFile, changed)));
    return target;
  }

  private startExecution(target: DebugTarget): void {
    const nodes = target.agent.plan.nodes;
    const threadIds = new Map(nodes.map((node, index) => [node.id, index + 1]));
    const secrets = target.kind === 'agent' ? target.secrets : new Map(Object.entries(target.testCase.secrets));
    const execution: Execution = {
      target,
      lines: new NodeLines(target.text, target.agent.model),
      controller: new AbortController(),
      redactor: namedSecretRedactor(secrets),
      threadIds,
      nodesByThread: new Map(nodes.map((node, index) => [index + 1, node])),
      running: new Set(),
      holds: new Map(),
      traces: new Map(),
      entryPending: true,
      stepNext: false,
      stepInto: new Set(),
      pauseRequested: false,
      logLines: 0,
      stale: false,
      ended: false,
    };
    this.execution = execution;
    this.breakpoints.resetHits();
    execution.done = this.run(execution).catch((error: unknown) => {
      this.output(`The debug session failed (please report it): ${errorMessage(error)}`, 'stderr');
    });
  }

  private async run(execution: Execution): Promise<void> {
    const { target } = execution;
    const onTrace = (entry: NodeTrace): void => this.traced(execution, entry);
    const pauses = this.pauses(execution);
    let exitCode = 0;
    if (target.kind === 'agent') {
      const result = await executeAgent(target.agent, target.inputs, {
        secrets: async (name) => target.secrets.get(name),
        signal: execution.controller.signal,
        pauses,
        onTrace,
      });
      // Cut as the results channel cuts them: one Debug Console message of megabytes stalls it.
      if (result.status === 'finished') this.output(`Outputs: ${shownOutputs(result.outputs).text}`, 'stdout');
      else {
        this.output(result.error.message, 'stderr');
        exitCode = 1;
      }
    } else {
      const result = await runCase(target.agent, target.testCase, {
        baseDir: resolve(target.testFile, '..'),
        signal: execution.controller.signal,
        pauses,
        onTrace,
        recordExchanges: false,
      });
      if (result.passed) this.output(`Case "${target.testCase.name}" passed.`, 'stdout');
      else {
        this.output(
          `Case "${target.testCase.name}" failed:\n${result.failures.map((failure) => `  ${failure.message}`).join('\n')}`,
          'stderr',
        );
        exitCode = 1;
      }
    }
    this.finish(execution, exitCode);
  }

  private finish(execution: Execution, exitCode: number): void {
    for (const node of execution.running) this.sendEvent(new ThreadEvent('exited', execution.threadIds.get(node)!));
    execution.running.clear();
    for (const hold of [...execution.holds.values()]) hold.release();
    if (this.execution !== execution) return;
    // A Restart ends the execution itself and starts the next: the session goes on.
    if (execution.ended) return;
    execution.ended = true;
    this.sendEvent(new ExitedEvent(exitCode));
    this.sendEvent(new TerminatedEvent());
  }

  /** Stops an execution: its in-flight requests are cancelled and its held nodes let go (they end cancelled). */
  private stopExecution(execution: Execution): void {
    execution.controller.abort();
    for (const hold of [...execution.holds.values()]) hold.release();
  }

  private traced(execution: Execution, entry: NodeTrace): void {
    if (this.execution !== execution) return;
    const thread = execution.threadIds.get(entry.node);
    if (thread === undefined) return;
    if (entry.status === 'running') {
      execution.running.add(entry.node);
      this.sendEvent(new ThreadEvent('started', thread));
    } else if (entry.status !== 'pending') {
      execution.traces.set(entry.node, entry);
      if (execution.running.delete(entry.node)) this.sendEvent(new ThreadEvent('exited', thread));
    }
  }

  private pauses(execution: Execution): NodePauses {
    const live = (): boolean => this.execution === execution && !execution.controller.signal.aborted;
    return {
      started: (scope) => (execution.scope = scope),
      beforeNode: async (stop) => {
        execution.scope ??= stop.scope;
        if (!live()) return undefined;
        const entry = execution.entryPending;
        execution.entryPending = false;
        let reason: string | undefined;
        let hit: readonly number[] = [];
        if (entry && execution.target.stopOnEntry) reason = 'entry';
        else if (execution.stepNext) reason = 'step';
        else if (execution.pauseRequested) reason = 'pause';
        else {
          const verdict = this.breakpoints.check(execution.target.agentFile, stop.node.id, stop.scope);
          for (const message of verdict.messages) this.log(execution, message);
          if (verdict.stop) {
            reason = 'breakpoint';
            hit = verdict.hit;
          }
        }
        if (!reason) return undefined;
        if (reason === 'step') execution.stepNext = false;
        if (reason === 'pause') execution.pauseRequested = false;
        const hold: Partial<Hold> = stop.request ? { request: stop.request } : {};
        await this.hold(execution, stop.node, 'before', hold, reason, hit);
        // The request as Set Value left it.
        return hold.request;
      },
      afterResponse: async (stop) => {
        if (!live()) return;
        const stepped = execution.stepInto.delete(stop.node.id);
        const reason = stepped ? 'step' : execution.pauseRequested ? 'pause' : undefined;
        if (!reason) return;
        if (reason === 'pause') execution.pauseRequested = false;
        await this.hold(execution, stop.node, 'response', { result: stop.result }, reason);
      },
      afterFailure: async (stop) => {
        if (!live()) return;
        const stepped = execution.stepInto.delete(stop.node.id);
        const status = stop.error.details.httpStatus;
        const matches =
          this.exceptionFilters.has(EXCEPTION_FILTERS.failed) ||
          (this.exceptionFilters.has(EXCEPTION_FILTERS.httpStatus) && status !== undefined && status >= 400);
        if (!matches && !stepped) return;
        await this.hold(
          execution,
          stop.node,
          'failure',
          { error: stop.error },
          matches ? 'exception' : 'step',
          [],
          execution.redactor.text(stop.error.message),
        );
      },
    };
  }

  /** Holds a node's thread until it is let go, and says so to the client. */
  private hold(
    execution: Execution,
    node: NodePlan,
    kind: HoldKind,
    facts: Partial<Hold>,
    reason: string,
    hitBreakpointIds: readonly number[] = [],
    text?: string,
  ): Promise<void> {
    const thread = execution.threadIds.get(node.id)!;
    this.sayIfStale(execution);
    return new Promise<void>((done) => {
      // `facts` itself becomes the hold: the hook that made it reads the request as changed from it.
      const hold: Hold = Object.assign(facts, {
        thread,
        node,
        kind,
        release: () => {
          if (execution.holds.get(thread) !== hold) return;
          execution.holds.delete(thread);
          if (execution.holds.size === 0) {
            this.variables.clear();
            this.editable.clear();
          }
          done();
        },
      }) as Hold;
      execution.holds.set(thread, hold);
      const event = new StoppedEvent(reason, thread, text) as DebugProtocol.StoppedEvent;
      event.body.allThreadsStopped = false;
      event.body.description = `Paused ${kind === 'before' ? 'before' : kind === 'response' ? 'with the answer of' : 'on the failure of'} node "${node.id}"`;
      if (hitBreakpointIds.length) event.body.hitBreakpointIds = [...hitBreakpointIds];
      this.sendEvent(event);
    });
  }

  /** At a stop: when the agent file changed since the launch, its lines here are not the editor's. */
  private sayIfStale(execution: Execution): void {
    if (execution.stale) return;
    const read = this.readText(execution.target.agentFile, 'agent');
    if ('text' in read && read.text === execution.target.text) return;
    execution.stale = true;
    this.output(
      `${basename(execution.target.agentFile)} changed since this session started: the lines shown are those of the file as it was. Restart to run the file as it is now.`,
      'console',
    );
  }

  private inputVariables(execution: Execution): ShownVariable[] {
    const inputs = execution.scope?.inputs ?? (execution.target.kind === 'agent' ? execution.target.inputs.values : {});
    return Object.keys(inputs).map((name) => this.variables.show(name, inputs[name], `inputs.${name}`, execution.redactor));
  }

  private nodeVariables(execution: Execution): ShownVariable[] {
    const shown: ShownVariable[] = [];
    for (const node of execution.target.agent.plan.nodes) {
      const trace = execution.traces.get(node.id);
      const result = execution.scope?.nodes.get(node.id);
      if (!trace && !result) continue;
      const status = trace?.status ?? 'running';
      const summary = [status, trace?.httpStatus !== undefined ? String(trace.httpStatus) : undefined].filter(Boolean).join(' ');
      const reference = this.variables.list(() => [
        plainVariable('status', status),
        ...(result ? this.resultVariables(result, `nodes.${node.id}`, execution) : []),
        ...(!result && trace?.httpStatus !== undefined ? [plainVariable('http status', String(trace.httpStatus))] : []),
        ...(trace?.error !== undefined ? [plainVariable('error', JSON.stringify(execution.redactor.text(trace.error)))] : []),
        ...(trace?.durationMs !== undefined ? [plainVariable('duration', `${trace.durationMs} ms`)] : []),
      ]);
      shown.push({ name: node.id, value: summary, variablesReference: reference });
    }
    return shown;
  }

  private resultVariables(result: NodeResult, path: string, execution: Execution): ShownVariable[] {
    return [
      ...(result.status !== undefined ? [this.variables.show('status', result.status, `${path}.status`, execution.redactor)] : []),
      ...(result.headers ? [this.variables.show('headers', result.headers, `${path}.headers`, execution.redactor)] : []),
      this.variables.show('body', result.body, `${path}.body`, execution.redactor),
    ];
  }

  private requestVariables(execution: Execution, thread: number): ShownVariable[] {
    const request = execution.holds.get(thread)?.request;
    if (!request) return [];
    const redactor = execution.redactor;
    const headers = this.variables.list(() =>
      Object.entries(execution.holds.get(thread)?.request?.headers ?? {}).map(([name, value]) =>
        plainVariable(redactor.text(name), shownString(value, redactor)),
      ),
    );
    this.markEditable(headers, { kind: 'requestHeaders', thread });
    const body = request.body;
    return [
      plainVariable('method', request.method),
      plainVariable('url', shownString(request.url, redactor)),
      { name: 'headers', value: `${Object.keys(request.headers).length} headers`, variablesReference: headers },
      body === undefined
        ? plainVariable('body', 'none')
        : typeof body.content === 'string'
          ? bodyVariable(body.content, redactor, this.variables)
          : plainVariable('body', `the file ${body.file?.name ?? ''} (${body.file?.size ?? 0} bytes)`),
    ];
  }

  /** Set Value applies to this reference (none when the store was full: 0 is no reference). */
  private markEditable(reference: number, editable: Editable): void {
    if (reference > 0) this.editable.set(reference, editable);
  }

  private log(execution: Execution, message: string): void {
    if (execution.logLines > MAX_LOG_LINES) return;
    execution.logLines++;
    if (execution.logLines > MAX_LOG_LINES)
      return this.output(`Logpoints: more than ${MAX_LOG_LINES} messages; the rest are left out.`, 'console');
    const redacted = execution.redactor.excerpt(message, MAX_LOG_CHARS);
    this.output(redacted, 'console');
  }

  private output(text: string, category: 'console' | 'stdout' | 'stderr'): void {
    this.sendEvent(new OutputEvent(`${text}\n`, category));
  }

  /** The lines of an agent file's nodes: the launched one's, else read from disk. */
  private linesOf(file: string): { lines: NodeLines } | { why: string } {
    const execution = this.execution;
    if (execution && execution.target.agentFile === file) return { lines: execution.lines };
    const read = this.readText(file, 'agent');
    if ('error' in read) return { why: `the file cannot be read (${read.error})` };
    const parsed = parseAgentFile(read.text);
    if (!parsed.root) return { why: 'the file is not an agent file that can be read' };
    return { lines: new NodeLines(read.text, readModel(parsed.root)) };
  }

  private shownBreakpoint(
    file: string,
    breakpoint: { id: number; line: number; verified: boolean; message?: string },
  ): DebugProtocol.Breakpoint {
    const shown: DebugProtocol.Breakpoint = new Breakpoint(
      breakpoint.verified,
      this.convertDebuggerLineToClient(breakpoint.line),
      undefined,
      new Source(basename(file), this.convertDebuggerPathToClient(file)),
    );
    shown.id = breakpoint.id;
    if (breakpoint.message !== undefined) shown.message = breakpoint.message;
    return shown;
  }

  private fail(response: DebugProtocol.Response, error: unknown): void {
    // Placeholders are {word}: the {{ … }} of a message are left as they are by every client.
    // Redacted where it is sent (sendResponse).
    this.sendErrorResponse(response, { id: 1001, format: errorMessage(error), showUser: true });
  }

  /**
   * Every answer leaves here: an error's words (a Set Value's, a launch's, the library's own on a
   * request that threw) are redacted in this one place, whoever wrote them, so no call site can
   * forget: an error may quote a value the user gave, and a value may be `{{ secrets.NAME }}`.
   */
  override sendResponse(response: DebugProtocol.Response): void {
    if (!response.success) {
      const redactor = this.redactor();
      if (response.message !== undefined) response.message = redactor.text(response.message);
      const error = (response.body as { error?: DebugProtocol.Message } | undefined)?.error;
      if (error) {
        error.format = redactor.text(error.format);
        if (error.variables) error.variables = redactor.value(error.variables) as Record<string, string>;
      }
    }
    super.sendResponse(response);
  }

  /** Every Debug Console line leaves here, redacted as errors are (see sendResponse). */
  override sendEvent(event: DebugProtocol.Event): void {
    if (event.event === 'output') {
      const body = (event as DebugProtocol.OutputEvent).body;
      body.output = this.redactor().text(body.output);
    }
    super.sendEvent(event);
  }

  /**
   * The secrets the session knows: the execution's, else (a launch that failed) those the launch
   * configuration gave.
   */
  private redactor(): Redactor {
    if (this.execution) return this.execution.redactor;
    const configured = this.launching?.secrets;
    const secrets = new Map<string, string>();
    if (configured !== null && typeof configured === 'object')
      for (const [name, value] of Object.entries(configured)) if (typeof value === 'string') secrets.set(name, value);
    return namedSecretRedactor(secrets);
  }
}

/** The nodes a node uses, nearest first, each once. */
function upstreamOf(node: NodePlan, nodes: readonly NodePlan[]): NodePlan[] {
  const byId = new Map(nodes.map((candidate) => [candidate.id, candidate]));
  const seen = new Set([node.id]);
  const chain: NodePlan[] = [];
  const queue = [...node.dependencies];
  while (queue.length && chain.length < MAX_FRAMES) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const found = byId.get(id);
    if (!found) continue;
    chain.push(found);
    queue.push(...found.dependencies);
  }
  return chain;
}

function holdWords(hold: Hold, redactor: Redactor): string {
  if (hold.kind === 'before')
    return hold.request ? `before ${hold.request.method} ${redactor.text(hold.request.shownUrl)}` : 'before it runs';
  if (hold.kind === 'response') return `answered ${hold.result?.status ?? ''}`.trim();
  return 'failed';
}

function secretVariables(execution: Execution): ShownVariable[] {
  const names = execution.target.kind === 'agent' ? [...execution.target.secrets.keys()] : Object.keys(execution.target.testCase.secrets);
  return names.sort().map((name) => plainVariable(name, MASK));
}

function plainVariable(name: string, value: string): ShownVariable {
  return { name, value, variablesReference: 0 };
}

/** A request body: its text, and its JSON as a tree when it is JSON. */
function bodyVariable(content: string, redactor: Redactor, variables: VariableStore): ShownVariable {
  if (content.length <= 10 * 1024 * 1024 && /^\s*[[{]/.test(content)) {
    try {
      const value = JSON.parse(content) as unknown;
      const shown = variables.show('body', value, undefined, redactor);
      return { ...shown, value: shownString(content, redactor) };
    } catch {
      // Not JSON: shown as text.
    }
  }
  return plainVariable('body', shownString(content, redactor));
}

/** The path an expression names, for the children's evaluate names (a bare path, or one {{ }}). */
function pathOf(expression: string): string | undefined {
  const trimmed = expression.trim();
  const inner = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(trimmed)?.[1] ?? trimmed;
  return /^(inputs|nodes|secrets)(?:[.[][^{}]*)?$/.test(inner) && !inner.startsWith('secrets') ? inner : undefined;
}
