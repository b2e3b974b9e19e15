// "Agent Workflows: Set Deployment from URL…": the execute URL the service's editor lists for a
// deployed agent (or a curl command for it) written into the file's `deployment:`.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { deploymentFromUrl } from '../core/import/deploymentFromCommand';
import { LOOKS_LIKE_CURL } from '../language/curlImportFlow';
import { agentEditor, applyImport } from './addApiNodeFromCurl';
import type { CurlImportCommandDeps } from './addApiNodeFromCurl';

export function registerSetDeploymentFromUrlCommand(context: vscode.ExtensionContext, deps: CurlImportCommandDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.setDeploymentFromUrl,
      guardedCommand('Set Deployment from URL', deps.logger, async (given) => {
        const editor = agentEditor();
        if (!editor) return false;
        const clipboard = (await vscode.env.clipboard.readText()).trim();
        const fromClipboard = deploymentFromUrl(clipboard) || LOOKS_LIKE_CURL.test(clipboard) ? clipboard : undefined;
        const pasted =
          typeof given === 'string'
            ? given
            : await vscode.window.showInputBox({
                title: 'Set Deployment from URL',
                prompt: "The agent's execute URL from the service's Agents tab, or a curl command that calls it",
                placeHolder: 'https://agents.example.com/api/ACCOUNT/agent/AGENT/execute',
                ...(fromClipboard !== undefined ? { value: fromClipboard } : {}),
                ignoreFocusOut: true,
                validateInput: (value) =>
                  deploymentFromUrl(value) || LOOKS_LIKE_CURL.test(value)
                    ? undefined
                    : 'This is not an execute URL of the service: it ends in /api/ACCOUNT/agent/AGENT/execute.',
              });
        if (pasted === undefined) return false;
        return applyImport(editor, pasted, deps);
      }),
    ),
  );
}
