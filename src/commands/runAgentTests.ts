// "Agent Workflows: Run Tests" (and the Run tests code lens): runs the test files of an agent file,
// or a test file itself, in the Test Explorer. Registered at activation (REGISTERED_AT_ACTIVATION),
// with the Test Explorer's controller, not by the commands feature: it needs neither the HTTP
// client nor the engine until a case runs (the test core then loads on its own).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import type { AgentTestController } from '../testing/agentTestController';
import { testFileBeside } from '../testing/testCaseFromExecution';

export interface RunAgentTestsDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly tests: AgentTestController;
}

export function registerRunAgentTestsCommand(context: vscode.ExtensionContext, { logger, tests }: RunAgentTestsDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.runAgentTests,
      guardedCommand(
        'Run Tests',
        logger,
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
          return Object.fromEntries(await tests.runTests(new vscode.TestRunRequest(items)));
        },
        { trusted: 'Running agent tests' },
      ),
    ),
  );
}

function errorTextOf(error: string | vscode.MarkdownString): string {
  return typeof error === 'string' ? error : error.value;
}
