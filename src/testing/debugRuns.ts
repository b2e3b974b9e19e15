// The Test Explorer's "Debug" profile of agent tests: each chosen case runs under the agent debugger
// (a debug session of type agent-workflow launched with `testCase`, its mocks used, breakpoints
// honoured), one after the other; the case passes when the session exits with 0. What failed is
// in the Debug Console, where the session printed it.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { AGENT_DEBUG_TYPE } from '../runs/agentDebugConfig';
import { caseNameOf, itemsOf } from './testTree';

/** The debug profile, and the tracker that reads each session's exit code. */
export class DebugRuns implements vscode.Disposable {
  readonly profile: vscode.TestRunProfile;
  /** Exit codes by the run key of a session's configuration (bounded: removed when read). */
  private readonly exits = new Map<string, number>();
  private readonly tracker: vscode.Disposable;

  constructor(private readonly controller: vscode.TestController) {
    this.tracker = vscode.debug.registerDebugAdapterTrackerFactory(AGENT_DEBUG_TYPE, {
      createDebugAdapterTracker: (session) => {
        const key: unknown = session.configuration.agentTestRun;
        if (typeof key !== 'string') return undefined;
        return {
          onDidSendMessage: (message: { type?: string; event?: string; body?: { exitCode?: number } }) => {
            if (message.type === 'event' && message.event === 'exited' && typeof message.body?.exitCode === 'number')
              this.exits.set(key, message.body.exitCode);
          },
        };
      },
    });
    this.profile = controller.createRunProfile(
      'Debug',
      vscode.TestRunProfileKind.Debug,
      (request, token) => this.run(request, token),
      true,
    );
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    try {
      const excluded = new Set((request.exclude ?? []).map((item) => item.id));
      const cases: vscode.TestItem[] = [];
      for (const item of request.include ?? [...itemsOf(this.controller.items)]) {
        if (excluded.has(item.id)) continue;
        if (item.parent) cases.push(item);
        else for (const child of itemsOf(item.children)) if (!excluded.has(child.id)) cases.push(child);
      }
      for (const item of cases) {
        if (token.isCancellationRequested) {
          run.skipped(item);
          continue;
        }
        const file = item.parent?.uri;
        if (!file) continue;
        run.started(item);
        const started = Date.now();
        const exitCode = await this.debugCase(file, caseNameOf(item), run, token);
        const duration = Date.now() - started;
        if (exitCode === 0) run.passed(item, duration);
        else if (exitCode === undefined) run.skipped(item);
        else run.failed(item, new vscode.TestMessage(`The case failed under the debugger: what failed is in the Debug Console.`), duration);
      }
    } finally {
      run.end();
    }
  }

  /** Debugs one case; its exit code, or undefined when the session did not start or was stopped. */
  private async debugCase(
    testFile: vscode.Uri,
    name: string,
    run: vscode.TestRun,
    token: vscode.CancellationToken,
  ): Promise<number | undefined> {
    const key = randomUUID();
    let session: vscode.DebugSession | undefined;
    let ended!: () => void;
    const over = new Promise<void>((resolve) => (ended = resolve));
    const listeners = [
      vscode.debug.onDidStartDebugSession((started) => {
        if (started.configuration.agentTestRun === key) session = started;
      }),
      vscode.debug.onDidTerminateDebugSession((terminated) => {
        if (terminated.configuration.agentTestRun === key) ended();
      }),
      token.onCancellationRequested(() => {
        if (session) void vscode.debug.stopDebugging(session);
      }),
    ];
    try {
      const launched = await vscode.debug.startDebugging(
        vscode.workspace.getWorkspaceFolder(testFile),
        { type: AGENT_DEBUG_TYPE, request: 'launch', name: `Debug ${name}`, testCase: `${testFile.fsPath}#${name}`, agentTestRun: key },
        { testRun: run },
      );
      if (!launched) return undefined;
      await over;
      return this.exits.get(key);
    } finally {
      this.exits.delete(key);
      for (const listener of listeners) listener.dispose();
    }
  }

  dispose(): void {
    this.profile.dispose();
    this.tracker.dispose();
  }
}
