// Agent tests in the Test Explorer: every NAME.agent.test.yaml in the workspace is a test item with
// a child per case at the case's line. This file only puts the parts together, as one controller:
// - discovery (testFileDiscovery.ts): the test files found and watched, each read in the language
//   worker, so that a large or hostile test file or agent never blocks the extension host;
// - display (testTree.ts): the items, their ranges and errors, and the files' problems as
//   diagnostics ("agent-tests");
// - runs (testRuns.ts, continuousRuns.ts): the "Run Locally" and "Run on Deployment" profiles, and
//   Run Locally's continuous runs; how a case ended is core/testing/caseOutcome's, shown by
//   testOutcomes.ts.
import * as vscode from 'vscode';
import type { FileAllowances } from '../runs/fileAllowances';
import type { FixableProblems } from '../language/fixableProblems';
import { TestFileDiscovery } from './testFileDiscovery';
import type { ItemOutcome } from './testOutcomes';
import { DebugRuns } from './debugRuns';
import { TestRuns } from './testRuns';
import type { DeployedTarget, RunOptions } from './testRuns';
import { TestTree } from './testTree';

export type { ItemOutcome } from './testOutcomes';
export type { DeployedTarget } from './testRuns';

export class AgentTestController implements vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly diagnostics: vscode.DiagnosticCollection;
  readonly deployedProfile: vscode.TestRunProfile;
  readonly localProfile: vscode.TestRunProfile;
  /** "Debug": each chosen case under the agent debugger. */
  readonly debugProfile: vscode.TestRunProfile;
  /** Fires when test files appear, go, or change the agent they test (for the code lens). */
  readonly onDidChangeTestFiles: vscode.Event<void>;
  /** Fires when a test file or its agent changed (edited, or on disk), once the test file is read again. */
  readonly onDidChangeTestContent: vscode.Event<vscode.Uri>;
  /** Fires when a run starts (continuous runs' included), with what it runs. */
  readonly onDidStartRun: vscode.Event<vscode.TestRunRequest>;
  /** Fires at the end of each run (continuous runs included) with how each item ended. */
  readonly onDidEndRun: vscode.Event<Map<string, ItemOutcome>>;
  private readonly tree: TestTree;
  private readonly discovery: TestFileDiscovery;
  private readonly runs: TestRuns;
  private readonly debugRuns: DebugRuns;

  constructor(deps: {
    readonly logger: vscode.LogOutputChannel;
    /** Where the problem codes of test files are documented. */
    readonly docsUri: vscode.Uri;
    readonly deployedTarget: DeployedTarget;
    /** Folders the user allowed named files to come from, for this workspace. */
    readonly fileAllowances: FileAllowances;
    /** Where test files' problems that suggest a name are kept, for their quick fixes. */
    readonly fixableProblems: FixableProblems;
    /** The language worker script, dist/validationWorker.js. */
    readonly workerPath: string;
    /** How long the worker may take to read a test file and its agent (VALIDATION_TIME_LIMIT_MS unless a test says). */
    readonly readTimeLimitMs?: number;
    /** The test controller's id (another for a second controller, in tests). */
    readonly controllerId?: string;
  }) {
    this.controller = vscode.tests.createTestController(deps.controllerId ?? 'agentWorkflows.agentTests', 'Agent Tests');
    this.tree = new TestTree(this.controller, deps.docsUri, deps.fixableProblems);
    this.diagnostics = this.tree.diagnostics;
    this.discovery = new TestFileDiscovery(this.tree, deps);
    this.runs = new TestRuns(this.controller, this.tree, this.discovery, deps);
    this.debugRuns = new DebugRuns(this.controller);
    this.controller.resolveHandler = async (item) => {
      if (!item) await this.discovery.discover();
    };
    this.controller.refreshHandler = async () => {
      await this.discovery.discover({ again: true });
    };
    this.localProfile = this.runs.localProfile;
    this.deployedProfile = this.runs.deployedProfile;
    this.debugProfile = this.debugRuns.profile;
    this.onDidChangeTestFiles = this.discovery.onDidChangeTestFiles;
    this.onDidChangeTestContent = this.discovery.onDidChangeTestContent;
    this.onDidStartRun = this.runs.onDidStartRun;
    this.onDidEndRun = this.runs.onDidEndRun;
  }

  /** Finds the workspace's test files (once; refresh finds them again, and so does a call after a failed search). */
  discover(): Promise<void> {
    return this.discovery.discover();
  }

  /** The test files known to test `agentFile` (read so far; see discover). */
  testFilesOf(agentFile: vscode.Uri): vscode.Uri[] {
    return this.discovery.testFilesOf(agentFile);
  }

  /** The test files of an agent file (the one beside it, and any that name it), or the test file itself. */
  testFilesFor(uri: vscode.Uri): Promise<vscode.Uri[]> {
    return this.discovery.testFilesFor(uri);
  }

  fileItem(uri: vscode.Uri): vscode.TestItem | undefined {
    return this.tree.fileItem(uri);
  }

  /** Reads a test file again in the language worker and updates its items and diagnostics; whether it could be read. */
  update(uri: vscode.Uri): Promise<boolean> {
    return this.discovery.update(uri);
  }

  /**
   * Runs the cases a request selects (every test file's, without include); how each item ended, by
   * item id. Without a caller's token, only the TestRun's own (the Test Results' Stop) stops it.
   */
  async runTests(
    request: vscode.TestRunRequest,
    token?: vscode.CancellationToken,
    options?: RunOptions,
  ): Promise<Map<string, ItemOutcome>> {
    if (token) return this.runs.runTests(request, token, options);
    const never = new vscode.CancellationTokenSource();
    try {
      return await this.runs.runTests(request, never.token, options);
    } finally {
      never.dispose();
    }
  }

  dispose(): void {
    this.runs.dispose();
    this.debugRuns.dispose();
    this.controller.dispose();
    this.tree.dispose();
    this.discovery.dispose();
  }
}
