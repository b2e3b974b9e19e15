// What the editor's batches use from the core, in one module: loaded on first use as one lazy
// bundle (the data readers with csv-parse, the scheduler, the client, the engine), so its classes
// are one copy for instanceof checks.
export { loadAgent } from '../engine/agentPlan';
export { countDataRows, surveyDataFile } from './dataRows';
export { readBatchResults } from './resultsTable';
export { otherColumns, refusedDataFolders } from './rowInputs';
export { BatchSetupError, runBatch } from './runBatch';
