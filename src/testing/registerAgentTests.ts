// Agent tests in VS Code, registered at activation without loading the test core (see testCore.ts):
// the Test Explorer's controller. The composition root hands it to the "Run tests" code lens
// (src/language/codeLensProvider.ts) and the Run Tests command (src/commands/runAgentTests.ts).
import * as vscode from 'vscode';
import type { FileAllowances } from '../runs/fileAllowances';
import type { FixableProblems } from '../language/fixableProblems';
import { AgentTestController } from './agentTestController';
import type { DeployedTarget, ItemOutcome } from './agentTestController';

/** What the agent tests give the extension's API (the integration tests drive them through it). */
export interface AgentTestsApi {
  readonly controller: vscode.TestController;
  /** The "Run on Deployment" profile, for a request that sends every case to the deployment. */
  readonly deployedProfile: vscode.TestRunProfile;
  /** The "Run Locally" profile (it runs continuously too). */
  readonly localProfile: vscode.TestRunProfile;
  /** The "Debug" profile: each case under the agent debugger. */
  readonly debugProfile: vscode.TestRunProfile;
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

/** The Test Explorer's controller of agent tests, disposed with the extension. */
export function registerAgentTests(
  context: vscode.ExtensionContext,
  deps: {
    readonly logger: vscode.LogOutputChannel;
    readonly deployedTarget: DeployedTarget;
    readonly fileAllowances: FileAllowances;
    /** Where test files' problems that suggest a name are kept, for their quick fixes. */
    readonly fixableProblems: FixableProblems;
  },
): AgentTestController {
  const tests = new AgentTestController({
    logger: deps.logger,
    docsUri: vscode.Uri.joinPath(context.extensionUri, 'docs', 'testing-agents.md'),
    deployedTarget: deps.deployedTarget,
    fileAllowances: deps.fileAllowances,
    fixableProblems: deps.fixableProblems,
    workerPath: vscode.Uri.joinPath(context.extensionUri, 'dist', 'validationWorker.js').fsPath,
  });
  context.subscriptions.push(tests);
  return tests;
}

/** What the extension's API gives of the agent tests. */
export function agentTestsApi(tests: AgentTestController): AgentTestsApi {
  return {
    controller: tests.controller,
    deployedProfile: tests.deployedProfile,
    localProfile: tests.localProfile,
    debugProfile: tests.debugProfile,
    onDidStartRun: tests.onDidStartRun,
    onDidEndRun: tests.onDidEndRun,
    onDidChangeTestContent: tests.onDidChangeTestContent,
    runTests: (request, token) => tests.runTests(request, token),
    refresh: (uri) => tests.update(uri),
  };
}
