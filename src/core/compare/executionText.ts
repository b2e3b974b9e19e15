// An execution as the text two executions are diffed by in the editor: its outputs first (what a
// change to an agent is judged by), then its inputs and its trace, each JSON value normalized (keys
// sorted, pretty) so the diff shows what changed and not the order it was written in. Durations are
// left out of the trace: they differ on every run and would be noise in every diff. Each value is
// written up to MAX_DIFF_VALUE_CHARS and cut past it (outputs may be 16 MB, and many times that
// pretty): the editor keeps the documents, and a diff of megabytes is not read anyway.
import { boundedPrettyJson } from '../boundedJson';
import type { ExecutionRecord } from '../executions/executionRecord';
import { diffDocument, MAX_DIFF_VALUE_CHARS } from './normalizedJson';
import type { DiffEntry } from './normalizedJson';

const CUT_NOTE = `cut: the first ${MAX_DIFF_VALUE_CHARS.toLocaleString('en-US')} characters are shown; open the result to see all of it`;

export function executionCompareText(
  record: Pick<ExecutionRecord, 'agentName' | 'state' | 'outputs' | 'inputs' | 'error' | 'trace' | 'outputsNotKept'> &
    Partial<Pick<ExecutionRecord, 'traceNotKept'>>,
): string {
  const entries: DiffEntry[] = [
    record.outputsNotKept
      ? { key: 'outputs', json: 'null', note: `the outputs were not kept: ${record.outputsNotKept} bytes` }
      : record.outputs === undefined
        ? { key: 'outputs', json: 'null', note: 'none' }
        : shown('outputs', record.outputs),
  ];
  if (record.error !== undefined) entries.push(shown('error', record.error));
  entries.push(shown('inputs', record.inputs));
  if (record.trace?.length) {
    const trace = shown(
      'trace',
      record.trace.map((entry) => `${entry.node}: ${entry.status}${entry.detail ? ` (${entry.detail})` : ''}`),
    );
    entries.push(record.traceNotKept && !trace.note ? { ...trace, note: `${record.traceNotKept} more entries not kept` } : trace);
  }
  return diffDocument(`${record.agentName}: ${record.state}`, entries);
}

/** A value as normalized JSON (keys sorted, pretty), built only up to MAX_DIFF_VALUE_CHARS. */
function shown(key: string, value: unknown): DiffEntry {
  const { text, cut } = boundedPrettyJson(value, { maxChars: MAX_DIFF_VALUE_CHARS, cutNote: CUT_NOTE, sortKeys: true });
  return cut ? { key, json: text, note: CUT_NOTE } : { key, json: text };
}
