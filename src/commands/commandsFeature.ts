// Every command's code, in a bundle of its own (esbuild.mjs lazyModules) loaded on the first call
// of any command (src/lazyCommands.ts): the HTTP client, the engine, the graph layout and the run
// machinery load then, not at activation. Registers each command of COMMAND_IDS.
import { registerCompareBatchesCommand } from './compareBatches';
import { registerCompareExecutionsCommand } from './compareExecutions';
import { registerCompareWithPreviousBatchCommand } from './compareWithPreviousBatch';
import type * as vscode from 'vscode';
import type { ExchangeHistory } from '../core/exchange/exchangeHistory';
import type { NodeResultMemory } from '../core/nodeValues/nodeResultMemory';
import type { AgentTarget } from '../core/service/target';
import type { WorkspaceEnvironments } from '../environments/workspaceEnvironments';
import type { AgentDiagnostics } from '../language/agentDiagnostics';
import type { WorkspaceSecretNames } from '../language/workspaceSecretNames';
import { deployedTestTarget } from '../runs/agentRuns';
import type { BatchHistory } from '../runs/batchHistory';
import { ExecutionRunner } from '../runs/executionRunner';
import type { ExecutionExchangeFiles } from '../runs/executionExchanges';
import type { ExecutionHistory } from '../runs/executionHistory';
import type { InputMemory } from '../runs/inputPrompts';
import type { FileAllowances } from '../runs/fileAllowances';
import type { LocalServerHost } from '../runs/localServerHost';
import type { PinStore } from '../runs/pinStore';
import type { ResultsChannel } from '../runs/resultsChannel';
import { resumeWatching } from '../runs/resumeWatching';
import type { ResumeTiming } from '../runs/resumeWatching';
import type { RunDeps } from '../runs/runDeps';
import type { ApiKeyStore } from '../secrets/apiKeyStore';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';
import { registerAddApiNodeFromCurlCommand } from './addApiNodeFromCurl';
import { registerAddApiNodeFromOpenApiCommand } from './addApiNodeFromOpenApi';
import { CompareDocuments } from '../views/compareDocuments';
import { ExchangeViews } from '../views/exchangeView';
import { registerClearApiKeyCommand } from './clearApiKey';
import { registerClearSecretCommand } from './clearSecret';
import { registerForgetAllowedFoldersCommand } from './forgetAllowedFolders';
import { registerCopyAsCurlCommand } from './copyAsCurl';
import { registerExchangeActions } from './exchangeActions';
import { registerCopyNodeAsCurlCommand } from './copyNodeAsCurl';
import { registerExecutionActions } from './executionActions';
import { registerDatasetCommands, resumeBatches } from './runDataset';
import { registerNewAgentFileCommand } from './newAgentFile';
import { registerPinNodeResultCommand } from './pinNodeResult';
import { registerOpenExchangeCommands } from './openExchange';
import { registerPollExecutionCommand } from './pollExecution';
import { registerRenderTemplateCommand } from './renderTemplate';
import { registerSendRequestCommand } from './sendRequest';
import { registerRunAgentCommand } from './runAgent';
import { registerRunLocallyCommand } from './runLocally';
import { registerDebugAgentCommand } from './debugAgent';
import { registerDebugAgainCommand } from './debugAgain';
import { registerSetApiKeyCommand } from './setApiKey';
import { registerSetSecretCommand } from './setSecret';
import { registerSetDeploymentFromUrlCommand } from './setDeploymentFromUrl';
import { registerShowGraph } from './showGraph';
import { registerStartLocalServerCommand } from './startLocalServer';
import { registerUnpinNodeResultCommand } from './unpinNodeResult';
import { registerValidateWorkspaceCommand } from './validateWorkspace';

/** What the commands are built from: the services the composition root made at activation. */
export interface CommandsDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly keys: ApiKeyStore;
  readonly workflowSecrets: WorkflowSecrets;
  readonly workspaceSecretNames: WorkspaceSecretNames;
  readonly store: ExecutionHistory;
  readonly results: ResultsChannel;
  readonly inputMemory: InputMemory;
  /** Folders the user allowed named files to come from, for this workspace. */
  readonly fileAllowances: FileAllowances;
  readonly localServer: LocalServerHost;
  readonly diagnostics: AgentDiagnostics;
  readonly environments: WorkspaceEnvironments;
  readonly batches: BatchHistory;
  readonly pins: PinStore;
  readonly nodeResults: NodeResultMemory;
  /** The sends of this window (Send Request adds, the exchange view reads). */
  readonly exchanges: ExchangeHistory;
  /** The exchanges of local executions (the Agent Executions view opens them). */
  readonly executionExchanges: ExecutionExchangeFiles;
}

/** What the rest of the extension may ask of the loaded commands. */
export interface CommandsFeature {
  /** Watches again the executions that were running when the window closed, and goes on with their batches. */
  resumeWatching(timing?: ResumeTiming): Promise<void>;
  /** Where the deployed cases of an agent's tests go, with the key; undefined when the user declined. */
  deployedTestTarget(agentFile: vscode.Uri): Promise<AgentTarget | undefined>;
  /** What runs share, with the one runner: the language model tools run through it too. */
  readonly runDeps: RunDeps;
}

export function registerCommands(context: vscode.ExtensionContext, deps: CommandsDeps): CommandsFeature {
  const { logger, keys, workflowSecrets, workspaceSecretNames, localServer, diagnostics, environments, batches } = deps;
  // On shutdown the runner stops polling but leaves running records as they are: the next window resumes them.
  const runner = new ExecutionRunner(deps);
  context.subscriptions.push(runner);
  const runDeps: RunDeps = { ...deps, runner };

  registerValidateWorkspaceCommand(context, { diagnostics, logger });
  registerShowGraph(context, { logger });
  registerNewAgentFileCommand(context, { logger });
  registerSetApiKeyCommand(context, { keys, localServer, environments, logger });
  registerClearApiKeyCommand(context, { keys, localServer, environments, logger });
  registerSetSecretCommand(context, { workflowSecrets, workspaceSecretNames, logger });
  registerClearSecretCommand(context, { workflowSecrets, logger });
  registerForgetAllowedFoldersCommand(context, { fileAllowances: deps.fileAllowances, logger });
  const curlImport = {
    workflowSecrets,
    keys,
    logger,
    environmentWithOrigin: (agent: vscode.Uri, origin: string) => environments.withOrigin(agent, origin),
  };
  registerAddApiNodeFromCurlCommand(context, curlImport);
  registerSetDeploymentFromUrlCommand(context, curlImport);
  registerAddApiNodeFromOpenApiCommand(context, { workflowSecrets, logger });
  registerRunAgentCommand(context, runDeps);
  registerRunLocallyCommand(context, runDeps);
  registerDebugAgentCommand(context, { logger });
  registerPollExecutionCommand(context, runDeps);
  registerCopyAsCurlCommand(context, runDeps);
  registerCopyNodeAsCurlCommand(context, { logger });
  registerStartLocalServerCommand(context, { localServer, logger });
  registerSendRequestCommand(context, { ...runDeps, exchanges: deps.exchanges });
  registerRenderTemplateCommand(context, runDeps);
  registerPinNodeResultCommand(context, { ...runDeps, exchanges: deps.exchanges });
  registerUnpinNodeResultCommand(context, runDeps);
  registerExecutionActions(context, { ...runDeps, batches });
  registerDebugAgainCommand(context, runDeps);
  // One provider of the agent-compare: documents, for both comparisons.
  const documents = new CompareDocuments();
  context.subscriptions.push(documents);
  registerCompareExecutionsCommand(context, { ...runDeps, documents });
  registerCompareBatchesCommand(context, { logger, batches, extensionUri: context.extensionUri, documents });
  registerCompareWithPreviousBatchCommand(context, { logger, batches });
  const views = new ExchangeViews(deps.exchanges, context.globalStorageUri);
  context.subscriptions.push(views);
  registerOpenExchangeCommands(context, { logger, exchanges: deps.exchanges, views });
  registerExchangeActions(context, { logger, views });
  const batchDeps = registerDatasetCommands(context, { ...runDeps, batches, extensionUri: context.extensionUri });
  return {
    resumeWatching: async (timing) => {
      await Promise.all([resumeWatching(runDeps, timing), resumeBatches(batchDeps)]);
    },
    deployedTestTarget: (agentFile) => deployedTestTarget(agentFile, runDeps),
    runDeps,
  };
}
