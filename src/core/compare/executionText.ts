// An execution as the text two executions are diffed by in the editor: its outputs first (what a
// change to an agent is judged by), then its inputs and its trace, each JSON value normalized (keys
// sorted, pretty) so the diff shows what changed and not the order it was written in. Durations are
// left out of the trace: they differ on every run and would be noise in every diff.
import type { ExecutionRecord } from '../executions/executionRecord';
import { diffDocument, normalizedJson } from './normalizedJson';
import type { DiffEntry } from './normalizedJson';

export function executionCompareText(
  record: Pick<ExecutionRecord, 'agentName' | 'state' | 'outputs' | 'inputs' | 'error' | 'trace' | 'outputsNotKept'>,
): string {
  const entries: DiffEntry[] = [
    record.outputsNotKept
      ? { key: 'outputs', json: 'null', note: `the outputs were not kept: ${record.outputsNotKept} bytes` }
      : record.outputs === undefined
        ? { key: 'outputs', json: 'null', note: 'none' }
        : { key: 'outputs', json: normalizedJson(record.outputs) },
  ];
  if (record.error !== undefined) entries.push({ key: 'error', json: normalizedJson(record.error) });
  entries.push({ key: 'inputs', json: normalizedJson(record.inputs) });
  if (record.trace?.length)
    entries.push({
      key: 'trace',
      json: normalizedJson(record.trace.map((entry) => `${entry.node}: ${entry.status}${entry.detail ? ` (${entry.detail})` : ''}`)),
    });
  return diffDocument(`${record.agentName}: ${record.state}`, entries);
}
