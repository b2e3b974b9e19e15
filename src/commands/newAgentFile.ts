// "Agent Workflows: New Agent File": creates <name>.agent.yaml in the workspace (an untitled agent
// document without one) and fills it with the "Agent" snippet, tab stops and all.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';
import { fileExists } from '../workspaceFiles';

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function registerNewAgentFileCommand(context: vscode.ExtensionContext, deps: { readonly logger: vscode.LogOutputChannel }): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.newAgentFile,
      guardedCommand('New Agent File', deps.logger, async (): Promise<vscode.TextEditor | undefined> => {
        const folder = vscode.workspace.workspaceFolders?.[0];
        let document: vscode.TextDocument;
        if (folder) {
          const name = await vscode.window.showInputBox({
            title: 'New Agent File',
            prompt: `The file is created in ${folder.name} as <name>.agent.yaml`,
            value: 'my-agent',
            validateInput: async (value) => {
              if (!FILE_NAME.test(value)) return 'Letters, digits, dots, dashes and underscores, starting with a letter or digit.';
              return (await fileExists(fileIn(folder.uri, value))) ? `${value}.agent.yaml already exists; choose another name.` : undefined;
            },
          });
          if (name === undefined) return undefined;
          const uri = fileIn(folder.uri, name);
          await vscode.workspace.fs.writeFile(uri, new Uint8Array());
          document = await vscode.workspace.openTextDocument(uri);
        } else {
          document = await vscode.workspace.openTextDocument({ language: AGENT_LANGUAGE_ID, content: '' });
        }
        const editor = await vscode.window.showTextDocument(document);
        await vscode.commands.executeCommand('editor.action.insertSnippet', { langId: AGENT_LANGUAGE_ID, name: 'Agent' });
        return editor;
      }),
    ),
  );
}

function fileIn(folder: vscode.Uri, name: string): vscode.Uri {
  return vscode.Uri.joinPath(folder, `${name}.agent.yaml`);
}
