// "Agent Workflows: Show Graph": opens (or brings forward) the workflow graph beside the agent
// file's editor. One panel at a time; it follows whichever agent editor is active.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';
import { GraphPanel } from '../views/graphPanel';

export interface ShowGraphDeps {
  readonly logger: vscode.LogOutputChannel;
}

export function registerShowGraph(context: vscode.ExtensionContext, deps: ShowGraphDeps): void {
  let panel: GraphPanel | undefined;

  /** Resolves to the panel (tests read what it drew), or undefined when there is no agent file to show. */
  const showGraph = async (resource?: unknown): Promise<GraphPanel | undefined> => {
    const target = await agentDocument(resource);
    if (!target) {
      void vscode.window.showInformationMessage('Open an agent file (*.agent.yaml) to see its workflow graph.');
      return undefined;
    }
    if (panel) {
      panel.show(target.document, target.column, { reveal: true });
    } else {
      const created = new GraphPanel({ extensionUri: context.extensionUri, logger: deps.logger }, target.document, target.column, () => {
        if (panel === created) panel = undefined;
      });
      panel = created;
    }
    return panel;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(COMMANDS.showGraph, guardedCommand('Show Graph', deps.logger, showGraph)),
    new vscode.Disposable(() => panel?.dispose()),
  );
}

/** The agent document to draw: the one the editor title menu passes, else the active editor's. */
async function agentDocument(
  resource: unknown,
): Promise<{ document: vscode.TextDocument; column: vscode.ViewColumn | undefined } | undefined> {
  const active = vscode.window.activeTextEditor;
  if (resource instanceof vscode.Uri && resource.toString() !== active?.document.uri.toString()) {
    const document = await vscode.workspace.openTextDocument(resource);
    const column = vscode.window.visibleTextEditors.find((editor) => editor.document === document)?.viewColumn;
    return document.languageId === AGENT_LANGUAGE_ID ? { document, column } : undefined;
  }
  return active?.document.languageId === AGENT_LANGUAGE_ID ? { document: active.document, column: active.viewColumn } : undefined;
}
