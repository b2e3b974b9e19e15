// Code lenses at the top of an agent file: Run Agent, Run Locally, Copy as curl, Show Graph.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { resultsSettings } from '../config';
import { affects } from '../config';
import { AGENT_LANGUAGE_ID } from './languageIds';

class AgentCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affects(event, 'codeLens.enabled')) this.changed.fire();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()),
    ];
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!resultsSettings().codeLens) return [];
    // Above the agent's name, or the first line. Asked on every edit: read lines, not the whole text.
    let nameLine = 0;
    for (let line = 0; line < document.lineCount; line++) {
      if (/^name\s*:/.test(document.lineAt(line).text)) {
        nameLine = line;
        break;
      }
    }
    const range = new vscode.Range(nameLine, 0, nameLine, 0);
    const graph = new vscode.CodeLens(range, {
      title: '$(type-hierarchy) Show graph',
      command: COMMANDS.showGraph,
      arguments: [document.uri],
    });
    if (!vscode.workspace.isTrusted) return [graph];
    return [
      new vscode.CodeLens(range, {
        title: '$(play) Run agent',
        tooltip: 'Run on the service named by deployment: (or the local agent server)',
        command: COMMANDS.runAgent,
        arguments: [document.uri],
      }),
      new vscode.CodeLens(range, {
        title: '$(debug-alt-small) Run locally',
        tooltip: 'Run in VS Code with the workflow engine',
        command: COMMANDS.runLocally,
        arguments: [document.uri],
      }),
      new vscode.CodeLens(range, { title: '$(terminal) Copy as curl', command: COMMANDS.copyAsCurl, arguments: [document.uri] }),
      graph,
    ];
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

export function registerCodeLensProvider(context: vscode.ExtensionContext): void {
  const provider = new AgentCodeLensProvider();
  context.subscriptions.push(provider, vscode.languages.registerCodeLensProvider({ language: AGENT_LANGUAGE_ID }, provider));
}
