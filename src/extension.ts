// Composition root: builds the shared services and hands them to each feature's register function.
// Activation only registers: the code of the commands, the language features and the local server
// loads on first use (src/lazyCommands.ts, esbuild.mjs lazyModules).
import * as vscode from 'vscode';
import { COMMANDS_LOADED_ON_USE } from './commandIds';
import { NodeResultMemory } from './core/nodeValues/nodeResultMemory';
import type { CommandsDeps, CommandsFeature } from './commands/commandsFeature';
import { registerNewTestCaseCommand } from './commands/newTestCase';
import { registerRunAgentTestsCommand } from './commands/runAgentTests';
import { registerUpdateSnapshotCommand } from './commands/updateSnapshot';
import { resultsSettings } from './config';
import { registerAuthoringFeatures } from './authoringFeatures';
import { ExchangeHistory } from './core/exchange/exchangeHistory';
import { registerCodeLensProvider, registerRunTestsCodeLens } from './language/codeLensProvider';
import { registerCurlPaste } from './language/curlPasteProvider';
import { FixableProblems } from './language/fixableProblems';
import { nodeWorkerThread } from './language/nodeWorkerThread';
import { WorkspaceSecretNames } from './language/workspaceSecretNames';
import { registerEnvironmentStatus } from './environments/environmentStatus';
import type { EnvironmentStatus } from './environments/environmentStatus';
import { WorkspaceEnvironments } from './environments/workspaceEnvironments';
import { registerLazyCommands } from './lazyCommands';
import { registerLanguageModelTools } from './languageModelTools/registerLanguageModelTools';
import type { LanguageModelToolsApi } from './languageModelTools/registerLanguageModelTools';
import { createLogger } from './logger';
import { registerAgentDebugger } from './runs/agentDebugger';
import { BatchHistory } from './runs/batchHistory';
import { ExecutionExchangeFiles } from './runs/executionExchanges';
import { ExecutionHistory } from './runs/executionHistory';
import { InputMemory } from './runs/inputPrompts';
import { FileAllowances } from './runs/fileAllowances';
import { LocalServerHost } from './runs/localServerHost';
import { PinStore } from './runs/pinStore';
import { ResultDocuments, ResultsChannel } from './runs/resultsChannel';
import { ApiKeyStore } from './secrets/apiKeyStore';
import { WorkflowSecrets } from './secrets/workflowSecrets';
import { agentTestsApi, registerAgentTests } from './testing/registerAgentTests';
import type { AgentTestsApi } from './testing/registerAgentTests';
import { registerExecutionsView } from './views/executionsView';
import { registerLocalServerStatus } from './views/localServerStatus';

/** What activate() returns: the executions view's data, for other extensions and the integration tests. */
export interface AgentWorkflowsApi {
  readonly executionsTree: vscode.TreeDataProvider<vscode.TreeItem>;
  readonly agentTests: AgentTestsApi;
  /** The environment status bar item as shown (for the integration tests), once its update settles. */
  readonly environmentStatus: () => Promise<EnvironmentStatus>;
  /** Paste as API Node's provider (the integration tests give it a paste, as the editor would). */
  readonly curlPaste: vscode.DocumentPasteEditProvider;
  /** The sends of this window, as the exchange view and Show Recent Requests read them. */
  readonly exchanges: ExchangeHistory;
  /** The language model tools' confirmations, as chat would show them (prepareInvocation). */
  readonly languageModelTools: LanguageModelToolsApi;
}

export function activate(context: vscode.ExtensionContext): AgentWorkflowsApi {
  const activationStartedAt = performance.now();
  const logger = createLogger(context);
  const docsUri = vscode.Uri.joinPath(context.extensionUri, 'docs', 'agent-yaml.md');
  const workflowSecrets = new WorkflowSecrets(context.secrets, context.globalState);
  const keys = new ApiKeyStore(context.secrets, context.globalState);
  const workspaceSecretNames = new WorkspaceSecretNames(logger);
  const store = new ExecutionHistory(context.workspaceState, () => resultsSettings().historySize);
  const results = new ResultsChannel(() => resultsSettings().maxOutputLength);
  const localServer = new LocalServerHost({ keys, workflowSecrets, logger, state: context.workspaceState });
  const inputMemory = new InputMemory(context.workspaceState);
  const fileAllowances = new FileAllowances(context.workspaceState);
  const environments = new WorkspaceEnvironments(context.workspaceState);
  const batches = new BatchHistory(context.workspaceState, context.storageUri ?? context.globalStorageUri);
  const pins = new PinStore(context.workspaceState);
  // Send Request's upstream values: in memory, for this window only.
  const nodeResults = new NodeResultMemory();
  // The sends of this window: Send Request adds to it, the exchange view reads it.
  const exchanges = new ExchangeHistory();
  // The exchanges of local executions, one file each in workspace storage, deleted with the execution.
  const executionExchanges = new ExecutionExchangeFiles(store, context.storageUri, () => resultsSettings().historySize);
  context.subscriptions.push(
    workspaceSecretNames,
    keys,
    store,
    results,
    new ResultDocuments(store),
    localServer,
    environments,
    batches,
    pins,
    executionExchanges,
  );

  // Test files' and the environments file's problems that suggest a name, for their quick fixes.
  const fixableProblems = new FixableProblems();
  const diagnostics = registerAuthoringFeatures(context, {
    logger,
    docsUri,
    environments,
    workflowSecrets,
    workspaceSecretNames,
    startWorkerThread: nodeWorkerThread(vscode.Uri.joinPath(context.extensionUri, 'dist', 'validationWorker.js').fsPath),
    fixableProblems,
  });
  registerCodeLensProvider(context, { environments, pins });
  const curlPaste = registerCurlPaste(
    context,
    { workflowSecrets, keys, environmentWithOrigin: (agent, origin) => environments.withOrigin(agent, origin) },
    logger,
  );
  // What the commands are built from when they load: the one list of the services made above.
  const services: CommandsDeps = {
    logger,
    keys,
    workflowSecrets,
    workspaceSecretNames,
    store,
    results,
    inputMemory,
    fileAllowances,
    localServer,
    diagnostics,
    environments,
    batches,
    pins,
    nodeResults,
    exchanges,
    executionExchanges,
  };
  const executionsTree = registerExecutionsView(context, { store, batches, exchanges: executionExchanges });
  registerLocalServerStatus(context, { localServer });
  const environmentStatus = registerEnvironmentStatus(context, { environments, logger });
  const commands = registerLazyCommands(
    context,
    COMMANDS_LOADED_ON_USE,
    () => import('./commands/commandsFeature'),
    (feature): CommandsFeature => feature.registerCommands(context, services),
    logger,
  );
  registerAgentDebugger(context, { logger, workflowSecrets, inputMemory, fileAllowances });
  const agentTests = registerAgentTests(context, {
    logger,
    fileAllowances,
    fixableProblems,
    deployedTarget: async (agentFile) => (await commands.feature()).deployedTestTarget(agentFile),
  });
  registerRunTestsCodeLens(context, { tests: agentTests });
  const languageModelTools = registerLanguageModelTools(context, {
    logger,
    runDeps: async () => (await commands.feature()).runDeps,
  });
  // Registered here, not by the commands feature: neither needs its code (REGISTERED_AT_ACTIVATION).
  registerRunAgentTestsCommand(context, { logger, tests: agentTests });
  registerUpdateSnapshotCommand(context, { logger, tests: agentTests });
  registerNewTestCaseCommand(context, { logger, store });

  // Unfinished executions of the last session are watched again once the workspace is trusted,
  // after activation: the commands' code loads only when there is one, and their API keys are read
  // from VS Code while it loads.
  // Timed from activation only when it runs then (not when trust is granted later).
  const resume = (atActivation: boolean): void => {
    const watched = store.active();
    if (watched.length === 0 && !batches.all().some((batch) => batch.state === 'running')) return;
    keys.readAhead(
      watched.flatMap((record) => (record.mode !== 'local' && record.executionId && record.target ? [record.target.baseUrl] : [])),
    );
    setTimeout(
      () => void commands.feature().then((feature) => feature.resumeWatching(atActivation ? { activationStartedAt } : undefined)),
      0,
    );
  };
  if (vscode.workspace.isTrusted) resume(true);
  else context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => resume(false)));
  logger.info(
    `Agent Workflows ${String(context.extension.packageJSON.version)} activated in ${Math.round(performance.now() - activationStartedAt)} ms.`,
  );
  return {
    executionsTree,
    agentTests: agentTestsApi(agentTests),
    environmentStatus: async () => (await environmentStatus.updated(), environmentStatus.current()),
    curlPaste,
    exchanges,
    languageModelTools,
  };
}

export function deactivate(): void {}
