// A status bar item while the local agent server runs: its port, and a click for its URL and Stop.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import type { LocalServerHost } from '../runs/localServerHost';

export function registerLocalServerStatus(context: vscode.ExtensionContext, deps: { readonly localServer: LocalServerHost }): void {
  const item = vscode.window.createStatusBarItem('agentWorkflows.localServer', vscode.StatusBarAlignment.Left, 49);
  item.name = 'Agent Workflows: local agent server';
  const update = (): void => {
    const server = deps.localServer.running;
    if (!server) {
      item.hide();
      return;
    }
    item.text = `$(server-process) Local agents :${server.port}`;
    item.tooltip = `Local agent server on ${server.url}, serving ${server.directory}.\nClick for its URL, or to stop it.`;
    // Starting the running server again shows it, with Copy URL and Stop.
    item.command = { title: 'Local Agent Server', command: COMMANDS.startLocalServer, arguments: [vscode.Uri.file(server.directory)] };
    item.show();
  };
  update();
  context.subscriptions.push(item, deps.localServer.onDidChange(update));
}
