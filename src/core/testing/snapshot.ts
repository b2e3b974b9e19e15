// Snapshots (`agent-workflows test --update`): the actual outputs of cases marked `snapshot: true`
// written into their expect.outputs, the rest of the file (comments, order, style) left as it is.
import { parseDocument } from 'yaml';
import type { CaseResult } from './runCase';
import type { TestCase } from './testModel';

/**
 * The outputs to write: those of the snapshot cases whose execution finished on this machine (a
 * deployed case's answer depends on real APIs: it is checked, never recorded).
 */
export function snapshotOutputs(
  cases: readonly TestCase[],
  results: readonly CaseResult[],
): Map<string, Readonly<Record<string, unknown>>> {
  const snapshots = new Map<string, Readonly<Record<string, unknown>>>();
  for (const result of results) {
    const testCase = cases.find((candidate) => candidate.name === result.name);
    if (testCase?.snapshot && !testCase.deployed && result.execution?.status === 'finished')
      snapshots.set(result.name, result.execution.outputs);
  }
  return snapshots;
}

/** The test file's text with each case's expect.outputs replaced by its snapshot. */
export function writeSnapshots(text: string, snapshots: ReadonlyMap<string, Readonly<Record<string, unknown>>>): string {
  const document = parseDocument(text);
  for (const [name, outputs] of snapshots) document.setIn(['cases', name, 'expect', 'outputs'], document.createNode(outputs));
  // lineWidth 0: long flow mappings stay on their line.
  return document.toString({ lineWidth: 0 });
}

/** A result as it stands once its snapshot is written: its output mismatches are gone. */
export function afterSnapshot(result: CaseResult): CaseResult {
  const failures = result.failures.filter((failure) => failure.path !== 'outputs' && !failure.path?.startsWith('outputs.'));
  return { ...result, failures, passed: failures.length === 0 };
}
