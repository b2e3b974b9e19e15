// Two batches compared, as the comparison table and a batch's notification use it: the earlier is
// A, the later B (a change is read before → after); the core compares their results files (its
// state files name the agent each ran). The words of a comparison for a notification are here; the
// core gives the counts.
import { basename } from 'node:path';
import type { BatchRecord } from '../core/batch/batchRecord';
import type { CompareProblem } from '../core/compare/compareFiles';
import type { Comparison } from '../core/compare/compareRuns';
import { loadCompareCore } from './compareCore';

/** The two batches in the order they are compared: the earlier first. */
export function comparedInOrder(first: BatchRecord, second: BatchRecord): [BatchRecord, BatchRecord] {
  return first.startedAt <= second.startedAt ? [first, second] : [second, first];
}

/** Compares batch A with batch B; throws the core's CompareError (told apart by name: another bundle). */
export async function compareBatchRecords(a: BatchRecord, b: BatchRecord, options: { readonly force?: boolean } = {}): Promise<Comparison> {
  const core = await loadCompareCore();
  return core.compareRuns(a.resultsPath, b.resultsPath, options.force ? { force: true } : {});
}

/** The problem of a comparison that could not be made, when the error is the core's. */
export function compareProblemOf(error: unknown): CompareProblem | undefined {
  return error instanceof Error && error.name === 'CompareError' ? (error as { problem?: CompareProblem }).problem : undefined;
}

/** "Lookup · people.jsonl · 14:02:11": a batch in a few words. */
export function batchLabel(record: BatchRecord): string {
  return `${record.agentName} · ${basename(record.dataPath)} · ${new Date(record.startedAt).toISOString().slice(11, 19)}`;
}

/** "3 regressions, 5 fixes, 12 outputs changed": what a notification says of a comparison. */
export function comparisonWords(comparison: Comparison): string {
  const count = (value: number, one: string, many: string): string => `${value.toLocaleString('en-US')} ${value === 1 ? one : many}`;
  const parts = [
    count(comparison.regressions.count, 'regression', 'regressions'),
    count(comparison.fixes.count, 'fix', 'fixes'),
    `${count(comparison.changedOutputs, 'output', 'outputs')} changed`,
  ];
  const only = comparison.onlyInA.count + comparison.onlyInB.count;
  if (only) parts.push(count(only, 'row in one batch only', 'rows in one batch only'));
  return parts.join(', ');
}
