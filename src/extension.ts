// Composition root: builds the shared services and hands them to each feature's register function.
import * as vscode from 'vscode';
import { registerClearApiKeyCommand } from './commands/clearApiKey';
import { registerClearSecretCommand } from './commands/clearSecret';
import { registerCopyAsCurlCommand } from './commands/copyAsCurl';
import { registerExecutionActions } from './commands/executionActions';
import { registerNewAgentFileCommand } from './commands/newAgentFile';
import { registerPollExecutionCommand } from './commands/pollExecution';
import { registerRunAgentCommand } from './commands/runAgent';
import { registerRunLocallyCommand } from './commands/runLocally';
import { registerSetApiKeyCommand } from './commands/setApiKey';
import { registerSetSecretCommand } from './commands/setSecret';
import { registerShowGraph } from './commands/showGraph';
import { registerStartLocalServerCommand } from './commands/startLocalServer';
import { registerValidateWorkspaceCommand } from './commands/validateWorkspace';
import { resultsSettings } from './config';
import { registerDiagnostics } from './language/agentDiagnostics';
import { registerCodeActionProvider } from './language/codeActionProvider';
import { registerCodeLensProvider } from './language/codeLensProvider';
import { registerCompletionProvider } from './language/completionProvider';
import { registerHoverProvider } from './language/hoverProvider';
import { registerNavigationProviders } from './language/navigationProviders';
import { WorkspaceSecretNames } from './language/workspaceSecretNames';
import { createLogger } from './logger';
import { ExecutionRunner } from './runs/executionRunner';
import { ExecutionStore } from './runs/executionStore';
import { InputMemory } from './runs/inputPrompts';
import { LocalServerHost } from './runs/localServerHost';
import { ResultDocuments, ResultsChannel } from './runs/resultsChannel';
import { resumeWatching } from './runs/resumeWatching';
import type { RunDeps } from './runs/runDeps';
import { ApiKeyStore } from './secrets/apiKeyStore';
import { WorkflowSecrets } from './secrets/workflowSecrets';
import { registerAgentTests } from './testing/registerAgentTests';
import type { AgentTestsApi } from './testing/registerAgentTests';
import { registerExecutionsView } from './views/executionsView';
import { registerLocalServerStatus } from './views/localServerStatus';

/** What activate() returns: the executions view's data, for other extensions and the integration tests. */
export interface AgentWorkflowsApi {
  readonly executionsTree: vscode.TreeDataProvider<vscode.TreeItem>;
  readonly agentTests: AgentTestsApi;
}

export function activate(context: vscode.ExtensionContext): AgentWorkflowsApi {
  const logger = createLogger(context);
  const docsUri = vscode.Uri.joinPath(context.extensionUri, 'docs', 'agent-yaml.md');
  const workflowSecrets = new WorkflowSecrets(context.secrets, context.globalState);
  const keys = new ApiKeyStore(context.secrets, context.globalState);
  const workspaceSecretNames = new WorkspaceSecretNames();
  const store = new ExecutionStore(context.workspaceState, () => resultsSettings().historySize);
  const results = new ResultsChannel(() => resultsSettings().maxOutputLength);
  const runner = new ExecutionRunner({ store, results, logger });
  const localServer = new LocalServerHost({ keys, workflowSecrets, logger, state: context.workspaceState });
  // On shutdown the runner stops polling but leaves running records as they are: the next window resumes them.
  context.subscriptions.push(workspaceSecretNames, keys, store, results, new ResultDocuments(store), localServer, runner);
  const runDeps: RunDeps = { logger, keys, workflowSecrets, store, results, runner, inputMemory: new InputMemory(context.workspaceState), localServer };

  const diagnostics = registerDiagnostics(context, { logger, docsUri });
  registerValidateWorkspaceCommand(context, { diagnostics, logger });
  registerCompletionProvider(context, { workspaceSecretNames, workflowSecrets });
  registerHoverProvider(context);
  registerCodeActionProvider(context, { workflowSecrets, logger, diagnostics });
  registerNavigationProviders(context, { diagnostics });
  registerCodeLensProvider(context);
  registerShowGraph(context, { logger });
  registerNewAgentFileCommand(context);
  registerSetApiKeyCommand(context, { keys, localServer });
  registerClearApiKeyCommand(context, { keys, localServer });
  registerSetSecretCommand(context, { workflowSecrets, workspaceSecretNames });
  registerClearSecretCommand(context, { workflowSecrets });
  registerRunAgentCommand(context, runDeps);
  registerRunLocallyCommand(context, runDeps);
  registerPollExecutionCommand(context, runDeps);
  registerCopyAsCurlCommand(context, runDeps);
  registerStartLocalServerCommand(context, { localServer, logger });
  const executionsTree = registerExecutionsView(context, { store });
  registerExecutionActions(context, runDeps);
  registerLocalServerStatus(context, { localServer });
  const agentTests = registerAgentTests(context, { logger, store });

  // Unfinished executions of the last session are watched again, once the workspace is trusted.
  if (vscode.workspace.isTrusted) void resumeWatching(runDeps);
  else context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void resumeWatching(runDeps)));
  logger.info(`Agent Workflows ${String(context.extension.packageJSON.version)} activated.`);
  return { executionsTree, agentTests };
}

export function deactivate(): void {}
