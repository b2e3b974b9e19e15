// The text a run writes to the results output channel: what ran, where, with what, and what came
// back, pretty-printed; long outputs are cut with a note (the full result opens as a document).
import type { ExecutionRecord } from './executionRecord';
import { describeInput, formatDuration } from './executionRecord';

export const DEFAULT_MAX_OUTPUT_CHARS = 4000;

export interface RunReport {
  readonly text: string;
  /** True when the outputs were cut to fit. */
  readonly truncated: boolean;
}

/** `fileLabel`: how to show the agent file (e.g. relative to the workspace); its URI otherwise. */
export function formatRunHeader(record: ExecutionRecord, fileLabel = record.file): string {
  const lines = [`▶ ${record.agentName}${record.mode === 'local' ? ' (local)' : ''}`];
  if (record.target) lines.push(`  target:    ${record.target.baseUrl} · account ${record.target.account} · agent ${record.target.agent}`);
  if (fileLabel) lines.push(`  file:      ${fileLabel}`);
  const inputs = Object.entries(record.inputs);
  lines.push(
    inputs.length ? `  inputs:    ${inputs.map(([name, value]) => `${name} = ${describeInput(value)}`).join(', ')}` : '  inputs:    (none)',
  );
  lines.push(`  started:   ${new Date(record.startedAt).toISOString()}`);
  return lines.join('\n');
}

export function formatRunResult(record: ExecutionRecord, maxOutputChars = DEFAULT_MAX_OUTPUT_CHARS): RunReport {
  const lines: string[] = [];
  if (record.executionId) lines.push(`  execution: ${record.executionId}`);
  const took = record.endedAt !== undefined ? ` after ${formatDuration(record.endedAt - record.startedAt)}` : '';
  lines.push(`  status:    ${statusLine(record)}${took}`);
  for (const entry of record.trace ?? []) {
    lines.push(
      `    · ${entry.node}: ${entry.status}${entry.durationMs !== undefined ? ` in ${formatDuration(entry.durationMs)}` : ''}${entry.bytes !== undefined ? `, ${entry.bytes} bytes` : ''}${entry.detail ? ` (${entry.detail})` : ''}`,
    );
  }
  if (record.traceNotKept) lines.push(`    · … ${record.traceNotKept} more trace entries not kept: the trace was too long to keep`);
  let truncated = false;
  if (record.error) lines.push(`  error:     ${indentRest(record.error)}`);
  if (record.outputs !== undefined) {
    const shown = shownOutputs(record.outputs, maxOutputChars, 'open the full result from the Agent Executions view or the notification');
    truncated = shown.truncated;
    lines.push('  outputs:', ...shown.text.split('\n').map((line) => `    ${line}`));
  }
  return { text: lines.join('\n'), truncated };
}

/**
 * A run's outputs as pretty JSON, cut past `maxChars` with a line saying how many characters more
 * (and `whereAll`, when given: where to see all of them). Used wherever a run's outputs are printed
 * as text: the results channel, the Debug Console.
 */
export function shownOutputs(outputs: unknown, maxChars = DEFAULT_MAX_OUTPUT_CHARS, whereAll?: string): RunReport {
  const pretty = JSON.stringify(outputs, null, 2) ?? String(outputs);
  if (pretty.length <= maxChars) return { text: pretty, truncated: false };
  const rest = pretty.length - maxChars;
  return {
    text: `${pretty.slice(0, maxChars)}\n… (${rest} more ${rest === 1 ? 'character' : 'characters'}${whereAll ? `: ${whereAll}` : ''})`,
    truncated: true,
  };
}

function statusLine(record: ExecutionRecord): string {
  switch (record.state) {
    case 'finished':
      return 'finished';
    case 'problem':
      return `ended with status "${record.serviceStatus ?? 'unknown'}"`;
    case 'error':
      return 'could not complete';
    case 'stopped':
      return 'stopped watching (it may still be running; watch it again from the Agent Executions view)';
    default:
      return record.state;
  }
}

function indentRest(text: string): string {
  return text.split('\n').join('\n             ');
}
