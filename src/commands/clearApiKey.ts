// "Agent Workflows: Clear API Key": removes the key of one service origin from SecretStorage.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import type { ApiKeyCommandDeps } from './setApiKey';

export function registerClearApiKeyCommand(context: vscode.ExtensionContext, deps: ApiKeyCommandDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.clearApiKey,
      guardedCommand('Clear API Key', deps.logger, async (origin) => {
        const origins = deps.keys.origins();
        if (origins.length === 0) {
          void vscode.window.showInformationMessage('No API key is stored.');
          return false;
        }
        const chosen =
          typeof origin === 'string' && origins.includes(origin)
            ? origin
            : origins.length === 1
              ? origins[0]
              : await vscode.window.showQuickPick(origins, { title: 'Clear API Key', placeHolder: 'The service whose key to remove' });
        if (!chosen) return false;
        await deps.keys.delete(chosen);
        void vscode.window.showInformationMessage(`API key for ${chosen} removed.`);
        return true;
      }),
    ),
  );
}
