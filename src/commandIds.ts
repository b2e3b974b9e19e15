// Command ids used across features (package.json contributes the same ids; a test checks both agree).
export const COMMANDS = {
  setApiKey: 'agentWorkflows.setApiKey',
  clearApiKey: 'agentWorkflows.clearApiKey',
  runAgent: 'agentWorkflows.runAgent',
  runLocally: 'agentWorkflows.runLocally',
  pollExecution: 'agentWorkflows.pollExecution',
  copyAsCurl: 'agentWorkflows.copyAsCurl',
  copyNodeAsCurl: 'agentWorkflows.copyNodeAsCurl',
  setSecret: 'agentWorkflows.setSecret',
  clearSecret: 'agentWorkflows.clearSecret',
  startLocalServer: 'agentWorkflows.startLocalServer',
  stopLocalServer: 'agentWorkflows.stopLocalServer',
  showGraph: 'agentWorkflows.showGraph',
  newAgentFile: 'agentWorkflows.newAgentFile',
  validateWorkspace: 'agentWorkflows.validateWorkspace',
  showExecutions: 'agentWorkflows.executions.focus',
  openResult: 'agentWorkflows.executions.openResult',
  copyOutput: 'agentWorkflows.executions.copyValue',
  copyExecutionId: 'agentWorkflows.executions.copyExecutionId',
  runAgain: 'agentWorkflows.executions.runAgain',
  watchAgain: 'agentWorkflows.executions.watchAgain',
  stopWatching: 'agentWorkflows.executions.stopWatching',
  remove: 'agentWorkflows.executions.remove',
  refresh: 'agentWorkflows.executions.refresh',
  clearFinished: 'agentWorkflows.executions.clearFinished',
  newTestCase: 'agentWorkflows.executions.newTestCase',
  runAgentTests: 'agentWorkflows.runAgentTests',
  selectEnvironment: 'agentWorkflows.selectEnvironment',
  runDataset: 'agentWorkflows.runDataset',
  openBatchResults: 'agentWorkflows.batches.openResults',
  openBatchRow: 'agentWorkflows.batches.openRow',
  stopBatch: 'agentWorkflows.batches.stop',
  resumeBatch: 'agentWorkflows.batches.resume',
  restartUnknownRows: 'agentWorkflows.batches.restartUnknown',
  removeBatch: 'agentWorkflows.batches.remove',
  addApiNodeFromCurl: 'agentWorkflows.addApiNodeFromCurl',
  setDeploymentFromUrl: 'agentWorkflows.setDeploymentFromUrl',
  addApiNodeFromOpenApi: 'agentWorkflows.addApiNodeFromOpenApi',
} as const;

/**
 * The commands src/commands/commandsFeature.ts registers when it loads, on the first call of any
 * of them (src/lazyCommands.ts). The others are registered at activation by the view and the
 * agent tests (which load their own code on use), or made by VS Code (the view's focus command).
 */
const REGISTERED_AT_ACTIVATION: readonly string[] = [
  COMMANDS.showExecutions,
  COMMANDS.refresh,
  COMMANDS.newTestCase,
  COMMANDS.runAgentTests,
  COMMANDS.selectEnvironment,
];
export const COMMANDS_LOADED_ON_USE: readonly string[] = Object.values(COMMANDS).filter((id) => !REGISTERED_AT_ACTIVATION.includes(id));
