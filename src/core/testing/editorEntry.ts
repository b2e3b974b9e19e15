// What the editor's agent tests (and `agent-workflows validate` of a test file) use from the core,
// in one module: loaded on first use as one lazy bundle (the YAML parser, the engine, undici), so
// its classes are one copy for instanceof checks.
export { AgentFileError, loadAgent } from '../engine/agentPlan';
export { appendCaseFromExecution, NewCaseError } from './newCase';
export { loadSuiteFromText, needsDeployment, readText, refusedFileFolders, runSuite } from './suite';
