// Command ids used across features (package.json contributes the same ids; a test checks both agree).
export const COMMANDS = {
  setApiKey: 'agentWorkflows.setApiKey',
  clearApiKey: 'agentWorkflows.clearApiKey',
  runAgent: 'agentWorkflows.runAgent',
  runLocally: 'agentWorkflows.runLocally',
  pollExecution: 'agentWorkflows.pollExecution',
  copyAsCurl: 'agentWorkflows.copyAsCurl',
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
} as const;

/**
 * The commands src/commands/commandsFeature.ts registers when it loads, on the first call of any
 * of them (src/lazyCommands.ts). The others are the view's refresh, registered at activation, and
 * the view's focus command, which VS Code makes.
 */
export const COMMANDS_LOADED_ON_USE: readonly string[] = Object.values(COMMANDS).filter((id) => id !== COMMANDS.showExecutions && id !== COMMANDS.refresh);
