// "Agent Workflows: Clear Secret…": removes a stored secret value.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';

export function registerClearSecretCommand(
  context: vscode.ExtensionContext,
  deps: { readonly workflowSecrets: WorkflowSecrets; readonly logger: vscode.LogOutputChannel },
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.clearSecret,
      guardedCommand('Clear Secret', deps.logger, async (name) => {
        const names = deps.workflowSecrets.names();
        const chosen =
          typeof name === 'string'
            ? name
            : names.length
              ? await vscode.window.showQuickPick(names, { title: 'Clear Secret', placeHolder: 'The secret to remove' })
              : undefined;
        if (names.length === 0 && typeof name !== 'string') {
          void vscode.window.showInformationMessage('No secrets are stored for agent runs.');
          return false;
        }
        if (!chosen) return false;
        if (!names.includes(chosen)) {
          void vscode.window.showInformationMessage(`No secret ${chosen} is stored for agent runs: there was nothing to remove.`);
          return false;
        }
        await deps.workflowSecrets.delete(chosen);
        void vscode.window.showInformationMessage(`Secret ${chosen} removed.`);
        return true;
      }),
    ),
  );
}
