// The extension's diagnostic log: one LogOutputChannel, with levels the user can change.
import * as vscode from 'vscode';

export function createLogger(context: vscode.ExtensionContext): vscode.LogOutputChannel {
  const logger = vscode.window.createOutputChannel('Agent Workflows Log', { log: true });
  context.subscriptions.push(logger);
  return logger;
}
