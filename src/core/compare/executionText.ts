// An execution as the text two executions are diffed by in the editor: its outputs first (what a
// change to an agent is judged by), then its inputs and its trace, each JSON value normalized (keys
// sorted, pretty) so the diff shows what changed and not the order it was written in. Durations are
// left out of the trace: they differ on every run and would be noise in every diff.
import type { ExecutionRecord } from '../executions/executionRecord';
import { normalizedJson } from './normalizedJson';

export function executionCompareText(
  record: Pick<ExecutionRecord, 'agentName' | 'state' | 'outputs' | 'inputs' | 'error' | 'trace' | 'outputsNotKept'>,
): string {
  const lines = [`// ${record.agentName}: ${record.state}`, '', '// outputs'];
  lines.push(record.outputs === undefined ? '// (none)' : normalizedJson(record.outputs));
  if (record.outputsNotKept) lines.push(`// (the outputs were not kept: ${record.outputsNotKept} bytes)`);
  if (record.error !== undefined) lines.push('', '// error', normalizedJson(record.error));
  lines.push('', '// inputs', normalizedJson(record.inputs));
  if (record.trace?.length) {
    lines.push('', '// trace');
    for (const entry of record.trace) lines.push(`//   ${entry.node}: ${entry.status}${entry.detail ? ` (${entry.detail})` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
