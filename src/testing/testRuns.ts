// Runs of agent tests from the Test Explorer: two profiles, "Run Locally" (the workflow engine with
// mocked APIs; cases marked `deployed: true` on the deployment) and "Run on Deployment" (every
// chosen case sent to the deployed agent through the real client, with the key of its origin).
// Run Locally also runs continuously (continuousRuns.ts). A run reads each chosen file for the
// suite it runs in the language worker (discovery's readForRun), never on the extension host; how
// each case ended is decided by the core (core/testing/caseOutcome) and shown by testOutcomes.ts.
import * as vscode from 'vscode';
import { errorDetail, errorMessage } from '../core/errors';
import { summarizeExchange } from '../core/exchange/executionExchanges';
import type { AgentTarget } from '../core/service/target';
import {
  caseOutcome,
  continuousSkip,
  fileErrored,
  NOT_REACHED,
  TestFileLocations,
  UNTRUSTED,
  unrunnableFileOutcome,
} from '../core/testing/caseOutcome';
import type { CaseResult } from '../core/testing/caseResult';
import type { LoadedSuite } from '../core/testing/loadSuite';
import { allowedFolders, allowFilesHint, allowFoldersOnce } from '../runs/allowFiles';
import type { FileAllowances } from '../runs/fileAllowances';
import { runContinuously } from './continuousRuns';
import { loadTestCore } from './testCore';
import type { TestCore } from './testCore';
import { snapshotRefusalWords } from './snapshotRefusalWords';
import type { TestFileDiscovery } from './testFileDiscovery';
import { exchangeMessage, sayOutcome, showOutcome } from './testOutcomes';
import type { ItemOutcome } from './testOutcomes';
import { caseNameOf, itemsOf } from './testTree';
import type { TestTree } from './testTree';

/** Where an agent file's deployed cases go, with the key; undefined when the user declined to give one. */
export type DeployedTarget = (agentFile: vscode.Uri) => Promise<AgentTarget | undefined>;

/** How a run was asked for, beyond what it runs. */
export interface RunOptions {
  /** Started by a continuous run: the cases that would leave the machine are left out. */
  readonly continuous?: boolean;
  /** Update Snapshot: the snapshot cases' outputs are written into the test file (as `test --update`). */
  readonly updateSnapshots?: boolean;
}

/** One run under way: where it shows results, what it gathered, whether it was stopped, and how it was asked. */
interface RunUnderWay {
  readonly run: vscode.TestRun;
  readonly outcomes: Map<string, ItemOutcome>;
  readonly signal: AbortSignal;
  readonly excluded: ReadonlySet<string>;
  /** Every case on the deployment ("Run on Deployment"). */
  readonly allDeployed: boolean;
  /** Started by a continuous run: the cases that would leave the machine are left out. */
  readonly continuous: boolean;
  readonly updateSnapshots: boolean;
}

export class TestRuns implements vscode.Disposable {
  readonly localProfile: vscode.TestRunProfile;
  readonly deployedProfile: vscode.TestRunProfile;
  private readonly runStarted = new vscode.EventEmitter<vscode.TestRunRequest>();
  /** Fires when a run starts (continuous runs' included), with what it runs. */
  readonly onDidStartRun = this.runStarted.event;
  private readonly runEnded = new vscode.EventEmitter<Map<string, ItemOutcome>>();
  /** Fires at the end of each run (continuous runs included) with how each item ended. */
  readonly onDidEndRun = this.runEnded.event;

  constructor(
    private readonly controller: vscode.TestController,
    private readonly tree: TestTree,
    private readonly discovery: TestFileDiscovery,
    private readonly deps: {
      readonly logger: vscode.LogOutputChannel;
      readonly deployedTarget: DeployedTarget;
      readonly fileAllowances: FileAllowances;
    },
  ) {
    // Local runs may also run continuously (the Test Explorer's auto run): each change of a test
    // file or its agent runs that file's chosen cases again, but for those marked deployed or live.
    // Deployed runs do not: each would reach the service.
    this.localProfile = controller.createRunProfile(
      'Run Locally',
      vscode.TestRunProfileKind.Run,
      async (request, token) => {
        if (request.continuous)
          await runContinuously(request, token, {
            fileItem: (uri) => tree.fileItem(uri),
            onDidChangeTestContent: discovery.onDidChangeTestContent,
            runTests: (fileRequest) => this.runTests(fileRequest, token, { continuous: true }),
            logger: deps.logger,
          });
        else await this.runTests(request, token);
      },
      true,
      undefined,
      true,
    );
    this.deployedProfile = controller.createRunProfile(
      'Run on Deployment',
      vscode.TestRunProfileKind.Run,
      async (request, token) => {
        await this.runTests(request, token);
      },
      false,
    );
  }

  /**
   * Runs the cases a request selects (every test file's, without include), one file after the
   * other, the cases of a file several at a time. Returns how each item ended, by item id. A run a
   * continuous run started (`continuous`) leaves out the cases that would leave the machine.
   */
  async runTests(
    request: vscode.TestRunRequest,
    token: vscode.CancellationToken,
    started: RunOptions = {},
  ): Promise<Map<string, ItemOutcome>> {
    const outcomes = new Map<string, ItemOutcome>();
    if (!request.include) await this.discovery.discover();
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
      for (const item of request.include ?? [...itemsOf(this.controller.items)]) {
        if (excluded.has(item.id)) continue;
        const file = item.parent ?? item;
        const entry = selection.get(file.id);
        if (!item.parent) selection.set(file.id, { file, cases: undefined });
        else if (entry) entry.cases?.add(caseNameOf(item));
        else selection.set(file.id, { file, cases: new Set([caseNameOf(item)]) });
      }
      const underWay: RunUnderWay = {
        run,
        outcomes,
        signal: abort.signal,
        excluded,
        allDeployed: request.profile === this.deployedProfile,
        continuous: started.continuous === true,
        updateSnapshots: started.updateSnapshots === true,
      };
      for (const { file, cases } of selection.values()) {
        if (abort.signal.aborted) break;
        if (!vscode.workspace.isTrusted) {
          outcomes.set(file.id, showOutcome(run, file, UNTRUSTED));
          continue;
        }
        await this.runFile(file, cases, underWay);
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

  /** Runs a test file's chosen cases (`only`; all of them without), read again for the run. */
  private async runFile(file: vscode.TestItem, only: Set<string> | undefined, underWay: RunUnderWay): Promise<void> {
    const { run, outcomes, signal, excluded, allDeployed, continuous, updateSnapshots } = underWay;
    const uri = file.uri!;
    const state = await this.discovery.readForRun(uri);
    if (state && 'gone' in state) {
      // Deleted since it was listed: its items went with it, and nothing of it runs.
      run.appendOutput(`${vscode.workspace.asRelativePath(uri)} no longer exists: not run.\r\n`);
      return;
    }
    const current = this.tree.fileItem(uri);
    if (!state || !current || 'unreadable' in state) {
      // Deleted, or unreadable since it was listed: said as its item says it (else why is in the log).
      const errored = fileErrored(
        state && 'unreadable' in state
          ? state.unreadable
          : `${vscode.workspace.asRelativePath(uri)} cannot be read; see the Agent Workflows log.`,
      );
      outcomes.set((current ?? file).id, showOutcome(run, current ?? file, errored));
      sayOutcome(run, errored);
      return;
    }
    const locations = new TestFileLocations(uri.toString(), state.text);
    const chosen = [...itemsOf(current.children)].filter((item) => !excluded.has(item.id) && (!only || only.has(caseNameOf(item))));
    run.appendOutput(`${vscode.workspace.asRelativePath(uri)}\r\n`);
    const { loaded, summary } = state;
    if (!loaded) {
      const unrunnable = unrunnableFileOutcome(summary.failure, summary.problems, locations);
      for (const item of [current, ...chosen]) outcomes.set(item.id, showOutcome(run, item, unrunnable));
      sayOutcome(run, unrunnable);
      return;
    }
    const items = new Map(chosen.map((item) => [caseNameOf(item), item]));
    if (continuous) {
      // Runs on a deployment and calls of real APIs never start on their own: said, and left to an explicit run.
      for (const testCase of loaded.suite.cases) {
        const item = items.get(testCase.name);
        const skipped = item && continuousSkip(testCase, { allDeployed });
        if (!item || !skipped) continue;
        outcomes.set(item.id, showOutcome(run, item, skipped));
        sayOutcome(run, skipped, item);
        items.delete(testCase.name);
      }
    }
    const core = await loadTestCore();
    let deployment: { target: AgentTarget } | undefined;
    let deploymentError: string | undefined;
    if (core.needsDeployment(loaded.suite, { only: new Set(items.keys()), allDeployed })) {
      // The deployed cases cannot run without a target and key: they error saying why (at their
      // line, as the CLI's do), the others run.
      const target = await this.deps.deployedTarget(vscode.Uri.file(loaded.agentFile)).catch((error: unknown) => errorMessage(error));
      if (typeof target === 'object') deployment = { target };
      else
        deploymentError = `This case runs on the deployment, which is not reachable from here: ${target ?? 'it was not confirmed, or no API key was given for it.'}`;
    }
    // Files outside the test file's folder: asked about once, before the run (never in a continuous one).
    const selection = { only: new Set(items.keys()), allowedFolders: allowedFolders(this.deps.fileAllowances, uri) };
    const refused = items.size > 0 && !continuous ? await core.refusedFileFolders(loaded, selection) : [];
    const allowed = await allowFoldersOnce(refused, uri.fsPath, 'test file', uri, this.deps.fileAllowances);
    for (const item of items.values()) run.started(item);
    // Update Snapshot: the cases whose snapshot would be written are told once it is (or is not).
    const snapshotCases = new Map(
      loaded.suite.cases.filter((testCase) => testCase.snapshot && !testCase.deployed).map((testCase) => [testCase.name, testCase]),
    );
    const held: CaseResult[] = [];
    // `shownAt`: the places in the text written, once snapshots are.
    const report = (result: CaseResult, shownAt?: TestFileLocations): void => {
      const item = items.get(result.name);
      if (!item) return;
      if (updateSnapshots && !shownAt && snapshotCases.has(result.name) && result.execution?.status === 'finished') {
        held.push(result);
        return;
      }
      const outcome = caseOutcome(result, shownAt ?? locations, { cancelled: signal.aborted });
      // The request and answer of the node it failed at, one click away.
      const exchange = outcome.kind === 'failed' || outcome.kind === 'errored' ? core.failureExchange(result) : undefined;
      const summary = exchange ? summarizeExchange(exchange) : '';
      outcomes.set(item.id, showOutcome(run, item, outcome, exchange ? [exchangeMessage(exchange, summary, outcome, item)] : []));
      sayOutcome(
        run,
        exchange ? { ...outcome, output: [...outcome.output, `    exchange of node "${exchange.node}": ${summary}`] } : outcome,
        item,
      );
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
        ...(allowed.length ? { allowedFolders: allowed } : {}),
        allowHint: allowFilesHint,
      });
    if (held.length > 0) {
      const written = await writeSnapshots(uri, state.text, loaded, held, core);
      for (const result of held) {
        if (!written) report(result, locations);
        else report(written.shown(result), written.locations);
      }
    }
    for (const item of items.values()) if (!outcomes.has(item.id)) outcomes.set(item.id, showOutcome(run, item, NOT_REACHED));
  }

  dispose(): void {
    this.localProfile.dispose();
    this.deployedProfile.dispose();
    this.runStarted.dispose();
    this.runEnded.dispose();
  }
}

/**
 * Writes the held cases' outputs into the test file as their snapshots (the editor's `test
 * --update`), in its editor so that Undo takes them back, and saves it: how each case then reads,
 * at its place in the text written. Undefined, and said, when nothing was written.
 */
async function writeSnapshots(
  uri: vscode.Uri,
  ranText: string,
  loaded: LoadedSuite,
  held: readonly CaseResult[],
  core: TestCore,
): Promise<{ readonly locations: TestFileLocations; shown(result: CaseResult): CaseResult } | undefined> {
  const update = core.updatedTestFile(loaded, core.snapshotOutputs(loaded.suite.cases, held));
  const refused =
    'refused' in update ? snapshotRefusalWords(update.refused) : await replaceDocumentText(uri, ranText, update.text).catch(errorMessage);
  if (refused !== undefined || 'refused' in update) {
    void vscode.window.showErrorMessage(`Update Snapshot: ${vscode.workspace.asRelativePath(uri)} is left as it was. ${refused ?? ''}`);
    return undefined;
  }
  const after = core.spansAfterWriting(ranText, update.text);
  return {
    locations: new TestFileLocations(uri.toString(), update.text),
    shown: (result) => {
      const written = core.afterSnapshot(result);
      return { ...written, failures: written.failures.map((failure) => ({ ...failure, span: after(failure.span) })) };
    },
  };
}

/** Puts `text` in place of a document's whole text and saves it; why not when it changed since `expected` was read. */
async function replaceDocumentText(uri: vscode.Uri, expected: string, text: string): Promise<string | undefined> {
  const document = await vscode.workspace.openTextDocument(uri);
  if (document.getText() !== expected) return 'It changed while its cases ran: run Update Snapshot again.';
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(expected.length)), text);
  if (!(await vscode.workspace.applyEdit(edit))) return 'The editor refused the change.';
  if (!(await document.save())) return 'It could not be saved.';
  return undefined;
}
