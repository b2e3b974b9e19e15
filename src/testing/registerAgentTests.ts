// Agent tests in VS Code, registered at activation without loading the test core (see testCore.ts):
// the Test Explorer's controller, a "Run tests" code lens on agent files that have a test file,
// the command it runs, and "New Test Case from This Execution" in the Agent Executions view.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import { registerRunTestsCodeLens } from '../language/codeLensProvider';
import { guardedCommand } from '../commandErrors';
import type { ExecutionHistory } from '../runs/executionHistory';
import { isExecutionItem } from '../views/treeItemKinds';
import { AgentTestController } from './agentTestController';
import type { DeployedTarget, ItemOutcome } from './agentTestController';
import { newTestCaseFromExecution, NewTestCaseRefused, testFileBeside } from './newTestCase';
import { loadTestCore } from './testCore';

/** What the agent tests give the extension's API (the integration tests drive them through it). */
export interface AgentTestsApi {
  readonly controller: vscode.TestController;
  /** The "Run on Deployment" profile, for a request that sends every case to the deployment. */
  readonly deployedProfile: vscode.TestRunProfile;
  /** The "Run Locally" profile (it runs continuously too). */
  readonly localProfile: vscode.TestRunProfile;
  /** Fires when a run starts, continuous runs' included. */
  readonly onDidStartRun: vscode.Event<vscode.TestRunRequest>;
  /** Fires at the end of each run, continuous runs' included, with how each item ended. */
  readonly onDidEndRun: vscode.Event<Map<string, ItemOutcome>>;
  /** Fires when a test file or its agent changed and the test file was read again. */
  readonly onDidChangeTestContent: vscode.Event<vscode.Uri>;
  /** Runs the cases a request selects, as its profile does (Run Locally without one); how each item ended, by item id. */
  runTests(request: vscode.TestRunRequest, token?: vscode.CancellationToken): Promise<Map<string, ItemOutcome>>;
  /** Reads a test file again (as an edit or the watcher does, in the language worker); resolves once its items are updated. */
  refresh(uri: vscode.Uri): Promise<unknown>;
}

export function registerAgentTests(
  context: vscode.ExtensionContext,
  deps: {
    readonly logger: vscode.LogOutputChannel;
    readonly store: ExecutionHistory;
    readonly deployedTarget: DeployedTarget;
  },
): AgentTestsApi {
  const tests = new AgentTestController({
    logger: deps.logger,
    docsUri: vscode.Uri.joinPath(context.extensionUri, 'docs', 'testing-agents.md'),
    deployedTarget: deps.deployedTarget,
    workerPath: vscode.Uri.joinPath(context.extensionUri, 'dist', 'validationWorker.js').fsPath,
  });
  registerRunTestsCodeLens(context, { tests });
  // Without a caller's token, only the TestRun's own (the Test Results' Stop) stops the run.
  const run = async (request: vscode.TestRunRequest, token?: vscode.CancellationToken): Promise<Map<string, ItemOutcome>> => {
    if (token) return tests.runTests(request, token);
    const never = new vscode.CancellationTokenSource();
    try {
      return await tests.runTests(request, never.token);
    } finally {
      never.dispose();
    }
  };

  context.subscriptions.push(
    tests,
    vscode.commands.registerCommand(
      COMMANDS.runAgentTests,
      guardedCommand(
        'Run Tests',
        deps.logger,
        async (argument) => {
          const target = argument instanceof vscode.Uri ? argument : vscode.window.activeTextEditor?.document.uri;
          if (!target) throw new Error('Open an agent file or its test file first, or run the tests from the Test Explorer.');
          const testFiles = await tests.testFilesFor(target);
          if (testFiles.length === 0) {
            void vscode.window.showInformationMessage(
              `${vscode.workspace.asRelativePath(target)} has no test file. Create ${vscode.workspace.asRelativePath(testFileBeside(target))} beside it, or use "New Test Case from This Execution" in the Agent Executions view.`,
            );
            return undefined;
          }
          const read = await Promise.all(
            testFiles.map(async (uri) => ({ uri, readable: await tests.update(uri), item: tests.fileItem(uri) })),
          );
          // A test file that cannot be read (too large, not a regular file, gone) is said, not skipped in silence.
          const unreadable = read.filter(({ readable }) => !readable);
          if (unreadable.length > 0)
            void vscode.window.showWarningMessage(
              `Run Tests: ${unreadable.map(({ uri, item }) => (item?.error !== undefined ? errorTextOf(item.error) : `${vscode.workspace.asRelativePath(uri)} is gone.`)).join(' ')}`,
            );
          const items = read.flatMap(({ readable, item }) => (readable && item ? [item] : []));
          if (items.length === 0) return undefined;
          return Object.fromEntries(await run(new vscode.TestRunRequest(items)));
        },
        { trusted: 'Running agent tests' },
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.newTestCase,
      guardedCommand('New Test Case from This Execution', deps.logger, async (argument) => {
        const record = await recordOf(argument, deps.store);
        if (!record) return undefined;
        try {
          return await newTestCaseFromExecution(record);
        } catch (error) {
          const core = await loadTestCore();
          if (!(error instanceof NewTestCaseRefused) && !(error instanceof core.NewCaseError)) throw error;
          void vscode.window.showErrorMessage(`New Test Case from This Execution: ${error.message}`);
          return undefined;
        }
      }),
    ),
  );
  return {
    controller: tests.controller,
    deployedProfile: tests.deployedProfile,
    localProfile: tests.localProfile,
    onDidStartRun: tests.onDidStartRun,
    onDidEndRun: tests.onDidEndRun,
    onDidChangeTestContent: tests.onDidChangeTestContent,
    runTests: run,
    refresh: (uri) => tests.update(uri),
  };
}

function errorTextOf(error: string | vscode.MarkdownString): string {
  return typeof error === 'string' ? error : error.value;
}

async function recordOf(argument: unknown, store: ExecutionHistory): Promise<ExecutionRecord | undefined> {
  if (isExecutionItem(argument)) return store.get(argument.record.key) ?? argument.record;
  const candidates = store
    .all()
    .filter((record) => record.state === 'finished' && record.file !== undefined && record.outputs !== undefined);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(
      'No finished execution of an agent file in the history. Run an agent first, then make a test case of its execution.',
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((record) => ({
      label: record.agentName,
      description: `${record.mode} · ${new Date(record.startedAt).toLocaleString()}`,
      record,
    })),
    { placeHolder: 'The execution to make a test case of' },
  );
  return picked?.record;
}
