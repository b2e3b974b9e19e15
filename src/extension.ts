// Composition root: builds the shared services and hands them to each feature's register function.
import * as vscode from 'vscode';
import { registerShowGraph } from './commands/showGraph';
import { registerValidateWorkspaceCommand } from './commands/validateWorkspace';
import { registerDiagnostics } from './language/agentDiagnostics';
import { registerCodeActionProvider } from './language/codeActionProvider';
import { registerCompletionProvider } from './language/completionProvider';
import { registerHoverProvider } from './language/hoverProvider';
import { registerNavigationProviders } from './language/navigationProviders';
import { WorkspaceSecretNames } from './language/workspaceSecretNames';
import { createLogger } from './logger';
import { WorkflowSecrets } from './secrets/workflowSecrets';

export function activate(context: vscode.ExtensionContext): void {
  const logger = createLogger(context);
  const docsUri = vscode.Uri.joinPath(context.extensionUri, 'docs', 'agent-yaml.md');
  const workflowSecrets = new WorkflowSecrets(context.secrets, context.globalState);
  const workspaceSecretNames = new WorkspaceSecretNames();
  context.subscriptions.push(workspaceSecretNames);
  const diagnostics = registerDiagnostics(context, { logger, docsUri });
  registerValidateWorkspaceCommand(context, { diagnostics, logger });
  registerCompletionProvider(context, { workspaceSecretNames, workflowSecrets });
  registerHoverProvider(context);
  registerCodeActionProvider(context, { workflowSecrets, logger });
  registerNavigationProviders(context);
  registerShowGraph(context, { logger });
  logger.info(`Agent Workflows ${String(context.extension.packageJSON.version)} activated.`);
}

export function deactivate(): void {}
