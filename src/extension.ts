// Composition root: builds the shared services and hands them to each feature's register function.
import * as vscode from 'vscode';
import { registerValidateWorkspaceCommand } from './commands/validateWorkspace';
import { registerDiagnostics } from './language/agentDiagnostics';
import { createLogger } from './logger';

export function activate(context: vscode.ExtensionContext): void {
  const logger = createLogger(context);
  const docsUri = vscode.Uri.joinPath(context.extensionUri, 'docs', 'agent-yaml.md');
  const diagnostics = registerDiagnostics(context, { logger, docsUri });
  registerValidateWorkspaceCommand(context, { diagnostics, logger });
  logger.info(`Agent Workflows ${String(context.extension.packageJSON.version)} activated.`);
}

export function deactivate(): void {}
