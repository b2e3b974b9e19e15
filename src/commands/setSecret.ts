// "Agent Workflows: Set Secret…": stores a value for {{ secrets.NAME }} in SecretStorage, for local
// runs and the local server. Offers the names the workspace's agent files reference.
import * as vscode from 'vscode';
import { promptForSecret } from '../secrets/secretPrompt';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import type { WorkspaceSecretNames } from '../language/workspaceSecretNames';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';

const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface SecretCommandDeps {
  readonly workflowSecrets: WorkflowSecrets;
  readonly workspaceSecretNames: WorkspaceSecretNames;
  readonly logger: vscode.LogOutputChannel;
}

export function registerSetSecretCommand(context: vscode.ExtensionContext, deps: SecretCommandDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.setSecret,
      guardedCommand('Set Secret', deps.logger, async (name) => {
        const chosen = typeof name === 'string' && SECRET_NAME.test(name) ? name : await pickSecretName(deps);
        if (!chosen) return false;
        const value = await promptForSecret(chosen);
        if (value === undefined) return false;
        await deps.workflowSecrets.set(chosen, value);
        void vscode.window.showInformationMessage(`Secret ${chosen} is set for local runs.`);
        return true;
      }),
    ),
  );
}

async function pickSecretName(deps: SecretCommandDeps): Promise<string | undefined> {
  const stored = new Set(deps.workflowSecrets.names());
  const referenced = await deps.workspaceSecretNames.names();
  const names = [...new Set([...referenced, ...stored])].sort();
  const NEW = '$(add) Another name…';
  const picked = await vscode.window.showQuickPick(
    [
      ...names.map((name) => ({ label: name, description: stored.has(name) ? 'set (replace it)' : 'not set' })),
      { label: NEW, description: '' },
    ],
    { title: 'Set Secret', placeHolder: 'The secret to set: {{ secrets.NAME }}' },
  );
  if (!picked) return undefined;
  if (picked.label !== NEW) return picked.label;
  return vscode.window.showInputBox({
    title: 'Set Secret',
    prompt: 'The name used in agent files as {{ secrets.NAME }}',
    validateInput: (value) =>
      value === ''
        ? 'Enter the name of the secret (e.g. CRM_TOKEN), or press Escape to cancel.'
        : SECRET_NAME.test(value)
          ? undefined
          : `${JSON.stringify(value)} is not a secret name: use letters, digits and underscores, not starting with a digit (e.g. CRM_TOKEN).`,
  });
}
