// What the editor's agent tests (and `agent-workflows validate` of a test file) use from the core,
// in one module: loaded on first use as one lazy bundle (the YAML parser, the engine, undici), so
// its classes are one copy for instanceof checks. No loading of a test file: a run gets its suite
// from the language worker (validationWorker.ts), so a slow file never blocks the extension host.
export { AgentFileError, loadAgent } from '../engine/agentPlan';
export { appendCaseFromExecution, NewCaseError } from './newCase';
export { needsDeployment, refusedFileFolders, runSuite } from './suite';
export { failureExchange } from './failureExchange';
export { afterSnapshot, snapshotOutputs, spansAfterWriting, updatedTestFile } from './snapshot';
