// "Update Snapshot", on a failed snapshot case's message in the Test Results (and the editor's
// peek): runs the case again and writes its outputs into the test file as its snapshot, as
// `agent-workflows test --update` does. Registered at activation with the Test Explorer's controller
// (REGISTERED_AT_ACTIVATION): the message is there before any command loads.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import type { AgentTestController } from '../testing/agentTestController';

export interface UpdateSnapshotDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly tests: AgentTestController;
}

/** What VS Code passes a testing/message menu's command. */
interface TestMessageArguments {
  readonly test: vscode.TestItem;
  readonly message?: vscode.TestMessage;
}

export function registerUpdateSnapshotCommand(context: vscode.ExtensionContext, { logger, tests }: UpdateSnapshotDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.updateSnapshot,
      guardedCommand(
        'Update Snapshot',
        logger,
        async (argument: unknown) => {
          const test = testItemOf(argument);
          if (!test?.uri) throw new Error('Use Update Snapshot on the failure of a snapshot case, in the Test Results or the test file.');
          return Object.fromEntries(await tests.runTests(new vscode.TestRunRequest([test]), undefined, { updateSnapshots: true }));
        },
        { trusted: 'Updating a snapshot' },
      ),
    ),
  );
}

/** The test item of a message menu's arguments, or a test item given as it is. */
function testItemOf(argument: unknown): vscode.TestItem | undefined {
  if (typeof argument !== 'object' || argument === null) return undefined;
  if ('test' in argument) return (argument as TestMessageArguments).test;
  return 'uri' in argument && 'children' in argument ? (argument as vscode.TestItem) : undefined;
}
