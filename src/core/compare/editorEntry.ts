// What the editor's batch comparisons use from the core, in one module: loaded on first use as one
// lazy bundle (the results readers, the row comparison with jsdiff), so activation and the commands'
// bundle load none of it.
export { compareRuns } from './compareRuns';
export { markdownReport } from './compareMarkdown';
export { readResultRow, resultRowCompareText } from './resultRow';
