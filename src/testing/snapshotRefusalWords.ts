// Why Update Snapshot did not write a test file (core/testing/snapshot's refusals), in the editor's
// words: which case, and what to change in the file. The command line words the same facts with its
// flags (cli/testCommand.ts).
import type { SnapshotRefusal } from '../core/testing/snapshot';

export function snapshotRefusalWords(refusal: SnapshotRefusal): string {
  const inCase = refusal.caseName !== undefined ? `Case "${refusal.caseName}": ` : '';
  switch (refusal.reason) {
    case 'explicit-key':
      return `${inCase}its ${refusal.key} is written as an explicit key ("? ${refusal.key}"), which Update Snapshot does not write into. Write it as "${refusal.key}:" and update again.`;
    case 'problem':
      return refusal.problem.code === 'file-too-large'
        ? `With the snapshots the file would be too large to run: ${refusal.problem.message}`
        : `${inCase}the file written would not load (line ${refusal.problem.range.line}: ${refusal.problem.message}).`;
    case 'changed':
      return `${inCase}the file written would not read back as the file with its snapshots. Write the outputs of this case by hand, or simplify how it is written.`;
  }
}
