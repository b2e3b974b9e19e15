// "New Test Case from This Execution" (the Agent Executions view's item menu, or the palette with a
// pick of the finished executions): the execution becomes a case of the test file beside its agent
// (src/testing/testCaseFromExecution.ts writes it). Registered at activation (REGISTERED_AT_ACTIVATION), not
// by the commands feature: the test core it needs loads on its own.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import type { ExecutionHistory } from '../runs/executionHistory';
import { newTestCaseFromExecution, NewTestCaseRefused } from '../testing/testCaseFromExecution';
import { loadTestCore } from '../testing/testCore';
import { chooseExecution } from '../views/executionChoice';

export interface NewTestCaseDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly store: ExecutionHistory;
}

export function registerNewTestCaseCommand(context: vscode.ExtensionContext, { logger, store }: NewTestCaseDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.newTestCase,
      guardedCommand('New Test Case from This Execution', logger, async (argument) => {
        const record = await chooseExecution(argument, store, {
          accepts: (candidate) => candidate.state === 'finished' && candidate.file !== undefined && candidate.outputs !== undefined,
          noneMessage: 'No finished execution of an agent file in the history. Run an agent first, then make a test case of its execution.',
          placeHolder: 'The execution to make a test case of',
          detail: (candidate) => candidate.mode,
        });
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
}
