// Agent tests in the Test Explorer: every NAME.agent.test.yaml in the workspace is a test item with
// a child per case at the case's line, kept up to date from disk (a file watcher) and from open
// editors (unsaved text included). "Run Locally" runs the chosen cases with the workflow engine and
// mocked APIs (cases marked `deployed: true` on the deployment); "Run on Deployment" sends every
// chosen case to the deployed agent through the real client, with the key of its origin; a failed
// expectation is a TestMessage at its own line, with a diff when it has an expected value. Run
// Locally also runs continuously (auto run): a file's cases again on each change of it or its
// agent, but for deployed and live cases (left to an explicit run). A test file's problems are
// diagnostics ("agent-tests") and error its item. What the explorer lists (cases, problems) is read
// in the language worker (validationWorker.ts), and so is what a run runs (the test file and its
// agent loaded and checked), so that a large or hostile test file or agent never blocks the
// extension host: a file the worker gives up on is not runnable, and its run says why.
import * as vscode from 'vscode';
import { TEST_LANGUAGE_ID } from '../language/languageIds';
import type { Problem } from '../core/document/problems';
import type { AgentTarget } from '../core/service/target';
import type { CaseFailure, CaseResult } from '../core/testing/caseResult';
import type { Exchange } from '../core/exchange/exchange';
import { summarizeExchange } from '../core/exchange/executionExchanges';
import { COMMANDS } from '../commandIds';
import { shownFailure } from '../core/testing/shownValue';
import type { LoadedSuite } from '../core/testing/loadSuite';
import { rangeOf, textPositions, toDiagnostic } from '../language/problemsToDiagnostics';
import { VALIDATION_TIME_LIMIT_MS, ValidationWorker } from '../language/validationWorkerClient';
import type { TestFileSummary } from '../language/validationWorkerClient';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';
import { KnownTestFiles } from './knownTestFiles';
import { loadTestCore } from './testCore';
import { workerRead } from './workerReads';
import { TEST_FILE } from '../core/testing/testFileName';
import { errorDetail, errorMessage } from '../core/errors';
import { openDocument, savedText } from '../workspaceFiles';
import { allowedFileFolders } from '../config';
import { allowFilesHint, allowFoldersOnce } from '../runs/allowFiles';

export const TEST_FILE_GLOB = '**/*.agent.test.{yaml,yml}';
const AGENT_FILE_GLOB = '**/*.agent.{yaml,yml}';
const EXCLUDE_GLOB = '**/node_modules/**';
/** Test files read when the explorer opens; a workspace with more lists the first ones and says so. */
const MAX_DISCOVERED = 2000;
const EDIT_DELAY_MS = 250;
/** How long test file changes are gathered before the code lens is told (once for all). */
const FILES_CHANGED_DELAY_MS = 100;
/** Test files read for the explorer at the same time (each holds its text until the worker answers). */
const MAX_READS = 4;

/** How one test item ended in the last run (what the Test Explorer shows, for callers and tests). */
export interface ItemOutcome {
  readonly state: 'passed' | 'failed' | 'errored' | 'skipped';
  readonly durationMs?: number;
  readonly messages: readonly OutcomeMessage[];
  /** What the run's output said of how the case ran (e.g. what a deployment leaves out). */
  readonly notes?: readonly string[];
}

export interface OutcomeMessage {
  readonly message: string;
  /** Zero-based line of the message's location. */
  readonly line?: number;
  readonly expected?: string;
  readonly actual?: string;
}

/** Where an agent file's deployed cases go, with the key; undefined when the user declined to give one. */
export type DeployedTarget = (agentFile: vscode.Uri) => Promise<AgentTarget | undefined>;

/** What a test file gave when read for a run: what its item shows, and the suite to run when it can run. */
interface FileState {
  readonly text: string;
  readonly summary: TestFileSummary;
  readonly loaded?: LoadedSuite;
}

type Positions = ReturnType<typeof textPositions>;

export class AgentTestController implements vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly diagnostics: vscode.DiagnosticCollection;
  /** The test files listed, each with the agent file it names (for the code lens and agent edits). */
  private readonly files = new KnownTestFiles();
  /** The latest read of each test file (a number unique to it): an older read's result is dropped. */
  private readonly versions = new Map<string, number>();
  private reads = 0;
  /** Test files waiting to be read for the explorer (one entry per file), and those being read. */
  private readonly readQueue = new Map<
    string,
    { readonly uri: vscode.Uri; readonly done: Promise<boolean>; readonly resolve: (read: boolean) => void }
  >();
  private readonly reading = new Set<string>();
  private filesChangedTimer: NodeJS.Timeout | undefined;
  /** Reads test files for the explorer; started on first use. */
  private worker: ValidationWorker | undefined;
  private readonly pendingEdits = new Map<string, NodeJS.Timeout>();
  private readonly filesChanged = new vscode.EventEmitter<void>();
  /** Fires when test files appear, go, or change the agent they test (for the code lens). */
  readonly onDidChangeTestFiles = this.filesChanged.event;
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  /** Fires when a test file or its agent changed (edited, or on disk), once the test file is read again. */
  readonly onDidChangeTestContent = this.contentChanged.event;
  private readonly runStarted = new vscode.EventEmitter<vscode.TestRunRequest>();
  /** Fires when a run starts (continuous runs' included), with what it runs. */
  readonly onDidStartRun = this.runStarted.event;
  private readonly runEnded = new vscode.EventEmitter<Map<string, ItemOutcome>>();
  /** Fires at the end of each run (continuous runs included) with how each item ended. */
  readonly onDidEndRun = this.runEnded.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  private discovery: Promise<void> | undefined;
  readonly deployedProfile: vscode.TestRunProfile;
  readonly localProfile: vscode.TestRunProfile;

  constructor(
    private readonly deps: {
      readonly logger: vscode.LogOutputChannel;
      readonly docsUri: vscode.Uri;
      readonly deployedTarget: DeployedTarget;
      /** The language worker script, dist/validationWorker.js. */
      readonly workerPath: string;
      /** How long the worker may take to read a test file and its agent (VALIDATION_TIME_LIMIT_MS unless a test says). */
      readonly readTimeLimitMs?: number;
      /** The test controller's id (another for a second controller, in tests). */
      readonly controllerId?: string;
    },
  ) {
    this.controller = vscode.tests.createTestController(deps.controllerId ?? 'agentWorkflows.agentTests', 'Agent Tests');
    this.diagnostics = vscode.languages.createDiagnosticCollection('agent-tests');
    this.controller.resolveHandler = async (item) => {
      if (!item) await this.discover();
    };
    this.controller.refreshHandler = async () => {
      this.discovery = undefined;
      await this.discover();
    };
    // Local runs may also run continuously (the Test Explorer's auto run): each change of a test
    // file or its agent runs that file's chosen cases again, but for those marked deployed or live.
    // Deployed runs do not: each would reach the service.
    this.localProfile = this.controller.createRunProfile(
      'Run Locally',
      vscode.TestRunProfileKind.Run,
      async (request, token) => {
        if (request.continuous) await this.runContinuously(request, token);
        else await this.runTests(request, token);
      },
      true,
      undefined,
      true,
    );
    this.deployedProfile = this.controller.createRunProfile(
      'Run on Deployment',
      vscode.TestRunProfileKind.Run,
      async (request, token) => {
        await this.runTests(request, token);
      },
      false,
    );
    const watcher = vscode.workspace.createFileSystemWatcher(TEST_FILE_GLOB);
    const agentWatcher = vscode.workspace.createFileSystemWatcher(AGENT_FILE_GLOB, true, false, true);
    // A deleted (or renamed) folder may be reported alone, not each test file in it, and its name
    // does not match the test files' glob: deletions of anything are watched for it.
    const deletionWatcher = vscode.workspace.createFileSystemWatcher('**/*', true, true, false);
    this.subscriptions.push(
      this.localProfile,
      this.deployedProfile,
      this.controller,
      this.diagnostics,
      this.filesChanged,
      this.contentChanged,
      this.runStarted,
      this.runEnded,
      watcher,
      agentWatcher,
      deletionWatcher,
      watcher.onDidCreate((uri) => void this.changed([uri])),
      watcher.onDidChange((uri) => {
        // An open document is read from the editor, which has the newest text.
        if (!openDocument(uri)?.isDirty) void this.changed([uri]);
      }),
      // An agent changed on disk (a checkout, another editor) changes what its tests give.
      agentWatcher.onDidChange((uri) => {
        if (!openDocument(uri)?.isDirty) void this.changed(this.testFilesOf(uri));
      }),
      watcher.onDidDelete((uri) => this.forget(uri)),
      deletionWatcher.onDidDelete((uri) => this.forgetUnder(uri)),
      // A folder renamed in the editor brings its test files under a new name, which the watcher
      // may not report one by one.
      vscode.workspace.onDidRenameFiles((event) => {
        for (const { oldUri, newUri } of event.files) {
          this.forgetUnder(oldUri);
          void this.discoverUnder(newUri);
        }
      }),
      vscode.workspace.onDidOpenTextDocument((document) => {
        if (this.isTestDocument(document)) void this.update(document.uri);
      }),
      vscode.workspace.onDidChangeTextDocument((event) => this.onEdit(event.document)),
      vscode.workspace.onDidCloseTextDocument((document) => {
        // Unsaved edits are gone with the editor: back to the file on disk.
        if (this.isTestDocument(document)) void this.update(document.uri);
      }),
    );
    for (const document of vscode.workspace.textDocuments) if (this.isTestDocument(document)) void this.update(document.uri);
  }

  /** Finds the workspace's test files (once; refresh finds them again, and so does a call after a failed search). */
  discover(): Promise<void> {
    this.discovery ??= (async () => {
      // One more than listed: to know that some were left out, and say so.
      const found = await vscode.workspace.findFiles(TEST_FILE_GLOB, EXCLUDE_GLOB, MAX_DISCOVERED + 1);
      if (found.length > MAX_DISCOVERED) {
        const message = `The workspace has more than ${MAX_DISCOVERED} agent test files: the Test Explorer lists ${MAX_DISCOVERED} of them and leaves the others out (an opened test file is listed too). Open the folder of the tests you work on as the workspace to list them all.`;
        this.deps.logger.warn(message);
        void vscode.window.showWarningMessage(message);
      }
      await Promise.all(found.slice(0, MAX_DISCOVERED).map((uri) => this.update(uri)));
    })().catch((error: unknown) => {
      this.deps.logger.error(`Finding the workspace's agent test files failed: ${errorDetail(error)}`);
      this.discovery = undefined;
      throw error;
    });
    return this.discovery;
  }

  /** Lists the test files at or under `uri` (a file or a folder renamed). */
  private async discoverUnder(uri: vscode.Uri): Promise<void> {
    try {
      const found = TEST_FILE.test(uri.path)
        ? [uri]
        : await vscode.workspace.findFiles(new vscode.RelativePattern(uri, TEST_FILE_GLOB), EXCLUDE_GLOB, MAX_DISCOVERED);
      await Promise.all(found.map((file) => this.update(file)));
    } catch (error) {
      this.deps.logger.error(`Finding the agent test files under ${uri.fsPath} failed: ${errorDetail(error)}`);
    }
  }

  /** The test files known to test `agentFile` (read so far; see discover). */
  testFilesOf(agentFile: vscode.Uri): vscode.Uri[] {
    return this.files.namingAgent(agentFile.fsPath).map((key) => vscode.Uri.parse(key));
  }

  fileItem(uri: vscode.Uri): vscode.TestItem | undefined {
    return this.controller.items.get(uri.toString());
  }

  /**
   * Reads a test file again (from its editor when open) in the language worker, and updates its
   * items and diagnostics; whether it could be read. What an edit, the watcher and discovery do.
   * A few files are read at a time; a file already waiting to be read is read once (then, at its
   * newest text) for all who asked.
   */
  update(uri: vscode.Uri): Promise<boolean> {
    const key = uri.toString();
    const waiting = this.readQueue.get(key);
    if (waiting) return waiting.done;
    let resolve!: (read: boolean) => void;
    const done = new Promise<boolean>((settle) => (resolve = settle));
    this.readQueue.set(key, { uri, done, resolve });
    this.startReads();
    return done;
  }

  /** Starts waiting reads, at most MAX_READS at once and one per file. */
  private startReads(): void {
    for (const [key, read] of this.readQueue) {
      if (this.reading.size >= MAX_READS) return;
      if (this.reading.has(key)) continue;
      this.readQueue.delete(key);
      this.reading.add(key);
      void this.read(read.uri).then((readable) => {
        this.reading.delete(key);
        read.resolve(readable);
        this.startReads();
      });
    }
  }

  private async read(uri: vscode.Uri): Promise<boolean> {
    const key = uri.toString();
    const version = this.newRead(key);
    try {
      const text = await testFileText(uri);
      if (text === undefined) {
        this.forget(uri);
        return false;
      }
      const outcome = await this.readWorker().run('testFile', key, text, { file: uri.fsPath, agentTexts: unsavedAgentTexts() });
      const read = workerRead(outcome, text.length, this.readTimeLimitMs);
      // A newer read started meanwhile: it decides.
      if (this.versions.get(key) !== version || read.kind === 'superseded') return this.files.has(key);
      if (read.kind === 'read') {
        this.show(uri, read.result);
        return true;
      }
      this.showUnreadable(uri, read.why);
      return false;
    } catch (error) {
      this.deps.logger.error(`Reading the test file ${uri.fsPath} failed: ${errorDetail(error)}`);
      if (this.versions.get(key) === version) this.showUnreadable(uri, errorMessage(error));
      return false;
    }
  }

  /**
   * Reads a test file and its agent for a run, in the language worker as update does (the suite
   * comes back as plain data), and updates its items and diagnostics likewise: the suite to run,
   * or why the file cannot be read (`unreadable`, what its item says); undefined when it is gone.
   */
  private async readForRun(uri: vscode.Uri): Promise<FileState | { readonly unreadable: string } | undefined> {
    const key = uri.toString();
    const version = this.newRead(key);
    try {
      const text = await testFileText(uri);
      if (text === undefined) {
        this.forget(uri);
        return undefined;
      }
      const outcome = await this.readWorker().run('testRun', key, text, { file: uri.fsPath, agentTexts: unsavedAgentTexts() });
      const read = workerRead(outcome, text.length, this.readTimeLimitMs);
      // A newer read started meanwhile: it decides what the explorer shows; this run runs what it read.
      const latest = this.versions.get(key) === version;
      if (read.kind === 'superseded') return undefined;
      if (read.kind === 'unreadable') return { unreadable: latest ? this.showUnreadable(uri, read.why) : unreadableMessage(uri, read.why) };
      if (latest) this.show(uri, read.result.summary);
      return { text, ...read.result };
    } catch (error) {
      this.deps.logger.error(`Reading the test file ${uri.fsPath} failed: ${errorDetail(error)}`);
      const why = errorMessage(error);
      return { unreadable: this.versions.get(key) === version ? this.showUnreadable(uri, why) : unreadableMessage(uri, why) };
    }
  }

  /** The language worker that reads test files, started on first use. */
  private readWorker(): ValidationWorker {
    this.worker ??= new ValidationWorker({ scriptPath: this.deps.workerPath, timeLimitMs: this.readTimeLimitMs });
    return this.worker;
  }

  private get readTimeLimitMs(): number {
    return this.deps.readTimeLimitMs ?? VALIDATION_TIME_LIMIT_MS;
  }

  private newRead(key: string): number {
    const version = ++this.reads;
    this.versions.set(key, version);
    return version;
  }

  /** A test file as read: its items, diagnostics, and the agent it names. */
  private show(uri: vscode.Uri, summary: TestFileSummary): void {
    const key = uri.toString();
    const known = this.files.has(key);
    const before = this.files.agentOf(key);
    this.files.set(key, summary.agentFile);
    this.updateItems(uri, summary);
    this.diagnostics.set(
      uri,
      summary.problems.map((problem) => toDiagnostic(problem, undefined, this.deps.docsUri)),
    );
    if (!known || before !== summary.agentFile) this.announceFilesChanged();
  }

  /** A test file that cannot be read (too large, not a regular file, too slow to parse): said at its item and in Problems; what was said. */
  private showUnreadable(uri: vscode.Uri, why: string): string {
    const key = uri.toString();
    const message = unreadableMessage(uri, why);
    if (!this.files.has(key)) {
      this.files.set(key, undefined);
      this.announceFilesChanged();
    }
    const file = this.fileItemFor(uri);
    file.error = message;
    file.children.replace([]);
    const diagnostic = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), message, vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'agent-workflows';
    this.diagnostics.set(uri, [diagnostic]);
    return message;
  }

  /**
   * Runs the cases a request selects (every test file's, without include), one file after the
   * other, the cases of a file several at a time. Returns how each item ended, by item id. A run a
   * continuous run started (`continuous`) leaves out the cases that would leave the machine.
   */
  async runTests(
    request: vscode.TestRunRequest,
    token: vscode.CancellationToken,
    started: { readonly continuous?: boolean } = {},
  ): Promise<Map<string, ItemOutcome>> {
    const outcomes = new Map<string, ItemOutcome>();
    if (!request.include) await this.discover();
    const run = this.controller.createTestRun(request);
    this.runStarted.fire(request);
    const abort = new AbortController();
    // Stopped by whoever asked for the run (a profile's handler, a caller's token) or from the Test
    // Results' Stop, which cancels only the TestRun's own token (the only way to stop a run the
    // code lens, the Run Tests command or a continuous run started).
    const stop = (): void => abort.abort();
    const cancelled = [token.onCancellationRequested(stop), run.token.onCancellationRequested(stop)];
    if (token.isCancellationRequested || run.token.isCancellationRequested) stop();
    try {
      const excluded = new Set((request.exclude ?? []).map((item) => item.id));
      // A file's chosen cases; none (all of them) once the file itself is chosen, whatever the order.
      const selection = new Map<string, { file: vscode.TestItem; cases: Set<string> | undefined }>();
      for (const item of request.include ?? [...gather(this.controller.items)]) {
        if (excluded.has(item.id)) continue;
        const file = item.parent ?? item;
        const entry = selection.get(file.id);
        if (!item.parent) selection.set(file.id, { file, cases: undefined });
        else if (entry) entry.cases?.add(caseNameOf(item));
        else selection.set(file.id, { file, cases: new Set([caseNameOf(item)]) });
      }
      for (const { file, cases } of selection.values()) {
        if (abort.signal.aborted) break;
        if (!vscode.workspace.isTrusted) {
          const message = new vscode.TestMessage(
            'Agent tests do not run in Restricted Mode: this workspace is not trusted. Trust it to run them.',
          );
          run.errored(file, message);
          outcomes.set(file.id, { state: 'errored', messages: [{ message: message.message as string }] });
          continue;
        }
        await this.runFile(file, cases, excluded, run, outcomes, abort.signal, {
          allDeployed: request.profile === this.deployedProfile,
          continuous: started.continuous === true,
        });
      }
    } catch (error) {
      this.deps.logger.error(`Running agent tests failed: ${errorDetail(error)}`);
      run.appendOutput(`Running agent tests failed: ${errorMessage(error)}\r\n`);
    } finally {
      for (const listener of cancelled) listener.dispose();
      run.end();
    }
    this.runEnded.fire(outcomes);
    return outcomes;
  }

  private async runFile(
    file: vscode.TestItem,
    only: Set<string> | undefined,
    excluded: ReadonlySet<string>,
    run: vscode.TestRun,
    outcomes: Map<string, ItemOutcome>,
    signal: AbortSignal,
    { allDeployed, continuous }: { readonly allDeployed: boolean; readonly continuous: boolean },
  ): Promise<void> {
    const uri = file.uri!;
    const state = await this.readForRun(uri);
    const current = this.fileItem(uri);
    if (!state || !current || 'unreadable' in state) {
      // Deleted, or unreadable since it was listed: said as its item says it (else why is in the log).
      const message = new vscode.TestMessage(
        state && 'unreadable' in state
          ? state.unreadable
          : `${vscode.workspace.asRelativePath(uri)} cannot be read; see the Agent Workflows log.`,
      );
      run.errored(current ?? file, message);
      outcomes.set((current ?? file).id, { state: 'errored', messages: [outcomeOf(message)] });
      run.appendOutput(`${String(message.message)}\r\n`);
      return;
    }
    const positions = textPositions(state.text);
    const chosen = [...gather(current.children)].filter((item) => !excluded.has(item.id) && (!only || only.has(caseNameOf(item))));
    run.appendOutput(`${vscode.workspace.asRelativePath(uri)}\r\n`);
    const { loaded, summary } = state;
    if (!loaded) {
      const failure = summary.failure ?? 'The test file cannot run.';
      const messages = summary.problems
        .filter((problem) => problem.severity === 'error')
        .map((problem) => problemMessage(problem, uri, positions));
      if (messages.length === 0) messages.push(new vscode.TestMessage(failure));
      for (const item of [current, ...chosen]) {
        run.errored(item, messages);
        outcomes.set(item.id, { state: 'errored', messages: messages.map((message) => outcomeOf(message)) });
      }
      run.appendOutput(`  ${failure}\r\n${messages.map((message) => `    ${String(message.message)}`).join('\r\n')}\r\n`);
      return;
    }
    const items = new Map(chosen.map((item) => [caseNameOf(item), item]));
    if (continuous) {
      // Runs on a deployment and calls of real APIs never start on their own (each edit would
      // reach the service, or ask for its key): said, and left to an explicit run.
      for (const testCase of loaded.suite.cases) {
        const item = items.get(testCase.name);
        if (!item || !(allDeployed || testCase.deployed || testCase.live)) continue;
        const note =
          allDeployed || testCase.deployed
            ? 'Not run continuously: this case runs on the deployment (deployed: true), which never starts on its own. Run it to send it.'
            : 'Not run continuously: this case calls real APIs (live: true), which never happens on its own. Run it to call them.';
        run.skipped(item);
        outcomes.set(item.id, { state: 'skipped', messages: [], notes: [note] });
        run.appendOutput(
          `  - ${testCase.name}\r\n    note: ${note}\r\n`,
          new vscode.Location(uri, item.range ?? new vscode.Range(0, 0, 0, 0)),
          item,
        );
        items.delete(testCase.name);
      }
    }
    const core = await loadTestCore();
    let deployment: { target: AgentTarget } | undefined;
    let deploymentError: string | undefined;
    if (core.needsDeployment(loaded.suite, { only: new Set(items.keys()), allDeployed })) {
      // The deployed cases cannot run without a target and key: they error saying why (at their
      // line, as the CLI's do), the others run.
      const target = await this.deployedTarget(loaded.agentFile).catch((error: unknown) => errorMessage(error));
      if (typeof target === 'object') deployment = { target };
      else
        deploymentError = `This case runs on the deployment, which is not reachable from here: ${target ?? 'it was not confirmed, or no API key was given for it.'}`;
    }
    // Files outside the test file's folder: asked about once, before the run (never in a continuous one).
    const selection = { only: new Set(items.keys()), allowedFolders: allowedFileFolders(uri) };
    const refused = items.size > 0 && !continuous ? await core.refusedFileFolders(loaded, selection) : [];
    const allowedFolders = await allowFoldersOnce(refused, uri.fsPath, 'test file', uri);
    for (const item of items.values()) run.started(item);
    const report = (result: CaseResult): void => {
      const item = items.get(result.name);
      if (!item) return;
      const location = new vscode.Location(uri, item.range ?? new vscode.Range(0, 0, 0, 0));
      if (signal.aborted && !result.passed) {
        // Stopped by the user: not a failure of the case.
        run.skipped(item);
        outcomes.set(item.id, { state: 'skipped', messages: [] });
        run.appendOutput(`  - ${result.name} (cancelled)\r\n`, location, item);
        return;
      }
      const notes = (result.notes ?? []).map((note) => `    note: ${note}\r\n`).join('');
      const ranOn = result.ranOn !== undefined ? ` (ran on ${result.ranOn})` : '';
      const noted = result.notes?.length ? { notes: result.notes } : {};
      if (result.passed) {
        run.passed(item, result.durationMs);
        outcomes.set(item.id, { state: 'passed', durationMs: result.durationMs, messages: [], ...noted });
        run.appendOutput(`  ✓ ${result.name} (${result.durationMs} ms)${ranOn}\r\n${notes}`, location, item);
        return;
      }
      const messages = result.failures.map((failure) => failureMessage(failure, uri, positions));
      const told = messages.map((message) => `    ${(message.message as string).replace(/\r?\n/g, '\r\n    ')}`);
      // The request and answer of the node it failed at, one click away.
      const exchange = core.failureExchange(result);
      if (exchange) {
        messages.push(exchangeMessage(exchange, messages[0]?.location ?? location));
        told.push(`    exchange of node "${exchange.node}": ${summarizeExchange(exchange)}`);
      }
      // A case whose inputs were refused did not run: errored, not failed.
      if (result.execution === undefined) run.errored(item, messages, result.durationMs);
      else run.failed(item, messages, result.durationMs);
      outcomes.set(item.id, {
        state: result.execution === undefined ? 'errored' : 'failed',
        durationMs: result.durationMs,
        messages: messages.map((message) => outcomeOf(message)),
        ...noted,
      });
      run.appendOutput(`  ✗ ${result.name} (${result.durationMs} ms)${ranOn}\r\n${told.join('\r\n')}\r\n${notes}`, location, item);
    };
    if (items.size > 0)
      await core.runSuite(loaded, {
        only: new Set(items.keys()),
        signal,
        onCase: report,
        // Each case is told as it ends (onCase): the run keeps none of its execution, requests or
        // exchanges (up to 1 MiB a case) until its last case.
        keep: ({ name, passed, durationMs }) => ({ name, passed, durationMs, failures: [], requests: [] }),
        allDeployed,
        ...(deployment ? { deployment } : {}),
        ...(deploymentError !== undefined ? { deploymentError } : {}),
        ...(allowedFolders.length ? { allowedFolders } : {}),
        allowHint: allowFilesHint,
      });
    for (const item of items.values()) {
      if (outcomes.has(item.id)) continue;
      run.skipped(item);
      outcomes.set(item.id, { state: 'skipped', messages: [] });
    }
  }

  private deployedTarget(agentFile: string): Promise<AgentTarget | undefined> {
    return this.deps.deployedTarget(vscode.Uri.file(agentFile));
  }

  private fileItemFor(uri: vscode.Uri): vscode.TestItem {
    const key = uri.toString();
    let file = this.controller.items.get(key);
    if (!file) {
      file = this.controller.createTestItem(key, vscode.workspace.asRelativePath(uri), uri);
      this.controller.items.add(file);
    }
    file.range = new vscode.Range(0, 0, 0, 0);
    return file;
  }

  private updateItems(uri: vscode.Uri, summary: TestFileSummary): void {
    const key = uri.toString();
    const file = this.fileItemFor(uri);
    file.error = summary.failure === undefined ? undefined : errorText(summary.failure, summary.problems);
    const children = summary.cases.map((testCase, index) => {
      const item =
        file.children.get(`${key}::${testCase.name}`) ?? this.controller.createTestItem(`${key}::${testCase.name}`, testCase.name, uri);
      item.range = rangeOf(testCase.range);
      item.sortText = String(index).padStart(6, '0');
      return item;
    });
    file.children.replace(children);
  }

  /** Fires onDidChangeTestFiles once for changes close together (discovery reads many files; each fire rescans code lenses). */
  private announceFilesChanged(): void {
    this.filesChangedTimer ??= setTimeout(() => {
      this.filesChangedTimer = undefined;
      this.filesChanged.fire();
    }, FILES_CHANGED_DELAY_MS);
  }

  /** Forgets a deleted test file, or every test file under a deleted folder. */
  private forgetUnder(uri: vscode.Uri): void {
    for (const key of this.files.deletedWith(uri.toString())) this.forget(vscode.Uri.parse(key));
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    // A read still under way finds no version of its own: its result is dropped.
    this.versions.delete(key);
    const had = this.files.delete(key);
    this.controller.items.delete(key);
    this.diagnostics.delete(uri);
    if (had) this.announceFilesChanged();
  }

  private onEdit(document: vscode.TextDocument): void {
    const key = document.uri.toString();
    const isTest = this.isTestDocument(document);
    // An agent being edited changes what its test files may say: they are read again too.
    const dependents = isTest ? [document.uri] : this.testFilesOf(document.uri);
    if (dependents.length === 0) return;
    clearTimeout(this.pendingEdits.get(key));
    this.pendingEdits.set(
      key,
      setTimeout(() => {
        this.pendingEdits.delete(key);
        void this.changed(dependents);
      }, EDIT_DELAY_MS),
    );
  }

  /** Test files whose text or agent changed: read again, their last results marked outdated, and said. */
  private async changed(uris: readonly vscode.Uri[]): Promise<void> {
    await Promise.all(
      uris.map(async (uri) => {
        if (!(await this.update(uri))) return;
        const file = this.fileItem(uri);
        if (file) this.controller.invalidateTestResults(file);
        this.contentChanged.fire(uri);
      }),
    );
  }

  /**
   * A continuous run: until cancelled, each change of a test file the request selects (or of its
   * agent) runs that file's selected cases again. Changes during a file's run run it once more after.
   */
  private async runContinuously(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const chosen = new Map<string, vscode.TestItem[]>();
    for (const item of request.include ?? []) {
      const fileId = (item.parent ?? item).id;
      chosen.set(fileId, [...(chosen.get(fileId) ?? []), item]);
    }
    const running = new Map<string, Promise<void>>();
    const again = new Set<string>();
    const runFile = (uri: vscode.Uri): void => {
      const key = uri.toString();
      const file = this.fileItem(uri);
      if (token.isCancellationRequested || !file || (request.include && !chosen.has(key))) return;
      if (running.has(key)) {
        again.add(key);
        return;
      }
      const include = chosen.get(key) ?? [file];
      const done = this.runTests(new vscode.TestRunRequest(include, request.exclude, request.profile), token, { continuous: true })
        // A run that failed is logged: it must not end the continuous run, nor keep its file from running again.
        .then(
          () => undefined,
          (error: unknown) => this.deps.logger.error(`A continuous run of ${uri.fsPath} failed: ${errorDetail(error)}`),
        )
        .finally(() => {
          running.delete(key);
          if (again.delete(key)) runFile(uri);
        });
      running.set(key, done);
    };
    const listening = this.onDidChangeTestContent(runFile);
    let stopping: vscode.Disposable | undefined;
    try {
      await new Promise<void>((resolve) => {
        if (token.isCancellationRequested) resolve();
        else stopping = token.onCancellationRequested(() => resolve());
      });
    } finally {
      stopping?.dispose();
      listening.dispose();
      await Promise.all(running.values());
    }
  }

  private isTestDocument(document: vscode.TextDocument): boolean {
    return document.languageId === TEST_LANGUAGE_ID && (document.uri.scheme === 'file' || document.uri.scheme === 'vscode-remote');
  }

  dispose(): void {
    for (const timer of this.pendingEdits.values()) clearTimeout(timer);
    clearTimeout(this.filesChangedTimer);
    for (const subscription of this.subscriptions) subscription.dispose();
    this.worker?.dispose();
  }
}

function* gather(collection: vscode.TestItemCollection): Iterable<vscode.TestItem> {
  for (const [, item] of collection) yield item;
}

function caseNameOf(item: vscode.TestItem): string {
  return item.label;
}

/** A test file's text: its editor's when it has unsaved edits, else the file's (undefined when it is gone). */
function testFileText(uri: vscode.Uri): Promise<string | undefined> {
  // A saved document is its file, which may have been deleted while open (a closed editor's
  // document lingers a while).
  const open = openDocument(uri);
  return open?.isDirty ? Promise.resolve(open.getText()) : savedText(uri);
}

/** Agent files whose editors have unsaved edits, by path: a test file is checked against those texts. */
function unsavedAgentTexts(): Array<[string, string]> {
  return vscode.workspace.textDocuments
    .filter((document) => document.isDirty && document.languageId === AGENT_LANGUAGE_ID && document.uri.scheme === 'file')
    .map((document) => [document.uri.fsPath, document.getText()]);
}

/** What the item of a test file that cannot be read says (and a run of it). */
function unreadableMessage(uri: vscode.Uri, why: string): string {
  return `${vscode.workspace.asRelativePath(uri)} cannot be read, so its cases are not listed: ${why}`;
}

function errorText(failure: string, problems: readonly Problem[]): vscode.MarkdownString {
  const errors = problems.filter((problem) => problem.severity === 'error');
  const text = new vscode.MarkdownString();
  text.appendText(failure);
  for (const problem of errors.slice(0, 10)) text.appendMarkdown('\n\n').appendText(`Line ${problem.range.line}: ${problem.message}`);
  return text;
}

function problemMessage(problem: Problem, uri: vscode.Uri, positions: Positions): vscode.TestMessage {
  const message = new vscode.TestMessage(problem.message);
  message.location = new vscode.Location(
    uri,
    new vscode.Range(positions.positionAt(problem.span.start), positions.positionAt(problem.span.end)),
  );
  return message;
}

/**
 * A failed expectation as VS Code shows it: at the expectation's line, with expected and actual
 * values (its Compare view): the expected value itself, or what an operator asks for in words
 * ("a number >= 0") beside what came, each bounded.
 */
export function failureMessage(failure: CaseFailure, uri: vscode.Uri, positions: Positions): vscode.TestMessage {
  const shown = shownFailure(failure);
  const message =
    shown.expected !== undefined && shown.actual !== undefined
      ? vscode.TestMessage.diff(shown.message, shown.expected, shown.actual)
      : new vscode.TestMessage(shown.message);
  message.location = new vscode.Location(
    uri,
    new vscode.Range(positions.positionAt(failure.span.start), positions.positionAt(failure.span.end)),
  );
  return message;
}

/**
 * A failed case's link to the exchange of the node it failed at: the request it sent and the answer,
 * secrets by name, opened in the exchange view.
 */
export function exchangeMessage(exchange: Exchange, location: vscode.Location): vscode.TestMessage {
  const link = `command:${COMMANDS.openExchange}?${encodeURIComponent(JSON.stringify([exchange]))}`;
  // Code spans: the node id and the summary (a URL) show as they are, no Markdown read in them.
  const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;
  const text = new vscode.MarkdownString(
    `Exchange of node ${code(exchange.node)}: ${code(summarizeExchange(exchange))} [Open Exchange](${link} "Open the request and answer")`,
  );
  text.isTrusted = { enabledCommands: [COMMANDS.openExchange] };
  const message = new vscode.TestMessage(text);
  message.location = location;
  return message;
}

function outcomeOf(message: vscode.TestMessage): OutcomeMessage {
  return {
    message: typeof message.message === 'string' ? message.message : message.message.value,
    ...(message.location ? { line: message.location.range.start.line } : {}),
    ...(message.expectedOutput !== undefined ? { expected: message.expectedOutput } : {}),
    ...(message.actualOutput !== undefined ? { actual: message.actualOutput } : {}),
  };
}
