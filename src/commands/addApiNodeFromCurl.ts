// "Agent Workflows: Add API Node from cURL…": the curl command on the clipboard (or typed in) as an
// API node of the agent file in the editor; its credentials go to secret storage after one question.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { errorMessage } from '../core/errors';
import { CurlCommandError } from '../core/import/curlCommand';
import { ImportPlacementError } from '../core/language/importEdits';
import { finishCurlImport, LOOKS_LIKE_CURL, planCurlImport, workspaceEditOf } from '../language/curlImportFlow';
import type { CurlImportPlan, CurlImportServices } from '../language/curlImportFlow';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';

export interface CurlImportCommandDeps extends CurlImportServices {
  readonly logger: vscode.LogOutputChannel;
}

export function registerAddApiNodeFromCurlCommand(context: vscode.ExtensionContext, deps: CurlImportCommandDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.addApiNodeFromCurl,
      guardedCommand('Add API Node from cURL', deps.logger, async (given) => {
        const editor = agentEditor();
        if (!editor) return false;
        const clipboard = await vscode.env.clipboard.readText();
        const command =
          typeof given === 'string'
            ? given
            : LOOKS_LIKE_CURL.test(clipboard)
              ? clipboard
              : await vscode.window.showInputBox({
                  title: 'Add API Node from cURL',
                  prompt: 'A curl command, as the API docs print it (its credentials go to secret storage, not into the file)',
                  placeHolder: 'curl -H "Authorization: Bearer …" https://api.example.com/v1/items',
                  ignoreFocusOut: true,
                  validateInput: (value) => (LOOKS_LIKE_CURL.test(value) ? undefined : 'Paste a command that starts with curl.'),
                });
        if (command === undefined) return false;
        return applyImport(editor, command, deps);
      }),
    ),
  );
}

/** The agent file in the editor, or a message saying to open one. */
export function agentEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.languageId === AGENT_LANGUAGE_ID) return editor;
  void vscode.window.showErrorMessage('Open an agent file (.agent.yaml) in the editor first: the import adds to the file in front.');
  return undefined;
}

/** Plans the import on the file's current text, applies it, and finishes it (credentials, message). */
export async function applyImport(editor: vscode.TextEditor, pasted: string, deps: CurlImportCommandDeps): Promise<boolean> {
  let plan: CurlImportPlan;
  try {
    plan = planCurlImport(editor.document.getText(), pasted);
  } catch (error) {
    if (error instanceof CurlCommandError || error instanceof ImportPlacementError) {
      void vscode.window.showErrorMessage(`The command cannot be imported: ${error.message}`);
      return false;
    }
    throw error;
  }
  if (!(await vscode.workspace.applyEdit(workspaceEditOf(editor.document, plan.edits)))) {
    void vscode.window.showErrorMessage('The file changed while the command was imported: nothing was added. Try again.');
    return false;
  }
  try {
    await finishCurlImport(editor.document, plan, deps);
  } catch (error) {
    deps.logger.error(`Add API Node from cURL: ${errorMessage(error)}`);
    throw error;
  }
  return true;
}
