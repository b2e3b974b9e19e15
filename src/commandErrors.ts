// How every command ends on a problem: a message that says what to do, with the actions that do
// it. Unexpected errors are logged with their stack; the user sees the message and a way to the log.
import * as vscode from 'vscode';
import { errorDetail, errorMessage } from './core/errors';
import { InputError } from './core/inputs/inputValues';
import { ServiceError } from './core/service/serviceError';

/** A problem the user can fix; the message says how, and the actions offer to. */
export class RunBlocked extends Error {
  constructor(
    message: string,
    readonly actions: readonly { readonly title: string; readonly run: () => unknown }[] = [],
  ) {
    super(message);
    this.name = 'RunBlocked';
  }
}

export async function reportCommandError(error: unknown, what: string, logger: vscode.LogOutputChannel): Promise<undefined> {
  if (error instanceof RunBlocked) {
    const choice = await vscode.window.showErrorMessage(error.message, ...error.actions.map((action) => action.title));
    await error.actions.find((action) => action.title === choice)?.run();
    return undefined;
  }
  if (error instanceof InputError) {
    void vscode.window.showErrorMessage(`${what}: ${error.problems.join(' ')}`);
    return undefined;
  }
  if (error instanceof ServiceError) {
    logger.warn(`${what}: ${error.message}`);
    void vscode.window.showErrorMessage(`${what}: ${error.message}`);
    return undefined;
  }
  logger.error(`${what} failed: ${errorDetail(error)}`);
  void vscode.window.showErrorMessage(`${what} failed: ${errorMessage(error)}`, 'Show Log').then((choice) => {
    if (choice === 'Show Log') logger.show();
  });
  return undefined;
}

/**
 * Running agents sends requests and runs workflow code from the workspace: not in Restricted
 * Mode. Says so, with the way out, and returns false there.
 */
export function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window
    .showWarningMessage(
      `${what} is disabled in Restricted Mode: this workspace is not trusted, and its agent files could send your keys anywhere. Validation still works. Trust the workspace to run agents.`,
      'Manage Workspace Trust',
    )
    .then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
    });
  return false;
}

/**
 * A command handler that reports its problems (reportCommandError) instead of throwing, and, with
 * `trusted`, refuses in Restricted Mode (requireTrust) before doing anything.
 */
export function guardedCommand<R>(
  what: string,
  logger: vscode.LogOutputChannel,
  action: (argument: unknown, ...more: unknown[]) => Promise<R>,
  options: { readonly trusted?: string } = {},
): (argument?: unknown, ...more: unknown[]) => Promise<R | undefined> {
  return async (argument, ...more) => {
    if (options.trusted && !requireTrust(options.trusted)) return undefined;
    try {
      return await action(argument, ...more);
    } catch (error) {
      return reportCommandError(error, what, logger);
    }
  };
}
