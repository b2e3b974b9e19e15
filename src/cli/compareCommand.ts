// `agent-workflows compare <A> <B>`: two batch results files (`batch --out`) or two agent-test JSON
// reports (`test --reporter json`) side by side: what regressed, what was fixed, which outputs
// changed (with a short diff), durations beyond noise, and a summary. As text, JSON, or Markdown for
// a pull request comment. Exits 0, 1 when --fail-on finds what it names, 2 on usage errors or files
// that cannot be compared, 130 on Ctrl-C (no report: part of the files is not a comparison). See
// docs/cli.md.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CompareError } from '../core/compare/compareFiles';
import type { CompareProblem } from '../core/compare/compareFiles';
import { changeWords, markdownReport, outputNote, plural, rowLabel, summaryRows } from '../core/compare/compareMarkdown';
import type { RowChange } from '../core/compare/compareRows';
import { compareRuns } from '../core/compare/compareRuns';
import type { Comparison, Listed } from '../core/compare/compareRuns';
import { printable } from '../core/printable';
import { describeFsError } from './agentFiles';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';

export type CompareFormat = 'text' | 'json' | 'markdown';

export interface CompareFlags {
  readonly key?: string;
  readonly format: CompareFormat;
  readonly failOn?: string;
  readonly output?: string;
  readonly force?: boolean;
}

/** Changed rows printed by the text format, each list; beyond, counted. */
const TEXT_ROWS = 50;

export async function compareCommand(pathA: string, pathB: string, flags: CompareFlags, io: CliIo): Promise<number> {
  if (flags.failOn !== undefined && flags.failOn !== 'regression' && flags.failOn !== 'change')
    throw new CliError(`--fail-on takes regression or change, not "${flags.failOn}".`, ExitCode.usage);
  if (flags.key !== undefined && flags.key.trim() === '')
    throw new CliError('--key names a column of the data, and is empty.', ExitCode.usage);
  let comparison: Comparison;
  try {
    comparison = await compareRuns(resolve(io.cwd, pathA), resolve(io.cwd, pathB), {
      ...(flags.key !== undefined ? { key: flags.key } : {}),
      ...(flags.force ? { force: true } : {}),
      ...(io.interrupt ? { signal: io.interrupt } : {}),
    });
  } catch (error) {
    if (error instanceof CompareError && error.problem.kind === 'interrupted') return interrupted(flags, io);
    if (error instanceof CompareError) throw new CliError(problemText(error.problem, pathA, pathB), ExitCode.usage);
    throw error;
  }
  if (io.interrupt?.aborted) return interrupted(flags, io);
  // Paths as the user gave them.
  const shown: Comparison = { ...comparison, a: { ...comparison.a, path: pathA }, b: { ...comparison.b, path: pathB } };
  for (const bad of shown.badLines.items)
    io.stderr(
      `agent-workflows: ${bad.side === 'a' ? pathA : pathB}, line ${bad.line}: ${bad.problem} (skipped; the other lines are compared)\n`,
    );
  if (shown.badLines.count > shown.badLines.items.length)
    io.stderr(`agent-workflows: … and ${shown.badLines.count - shown.badLines.items.length} more lines that are not a row's result\n`);
  if (shown.differentAgents)
    io.stderr(
      `agent-workflows: note: the runs are of different agents (${shown.differentAgents.a}; ${shown.differentAgents.b}): compared by output names (--force)\n`,
    );

  const report =
    flags.format === 'json'
      ? `${JSON.stringify(shown, null, 2)}\n`
      : flags.format === 'markdown'
        ? markdownReport(shown)
        : textReport(shown);
  if (flags.output !== undefined) {
    try {
      await writeFile(resolve(io.cwd, flags.output), printable(report));
    } catch (error) {
      throw new CliError(`The comparison could not be written: ${describeFsError(error, flags.output)}`, ExitCode.usage);
    }
    io.stderr(`${summaryLine(shown)}\ncomparison written to ${flags.output}\n`);
  } else io.stdout(printable(report));

  if (flags.failOn === 'regression' && shown.regressions.count > 0) return ExitCode.problems;
  if (flags.failOn === 'change' && changeCount(shown) > 0) return ExitCode.problems;
  return ExitCode.ok;
}

/** Ctrl-C came before the comparison was made: nothing printed or written, as the exit code says. */
function interrupted(flags: CompareFlags, io: CliIo): number {
  io.stderr(`agent-workflows: compare stopped: no comparison ${flags.output !== undefined ? `written to ${flags.output}` : 'printed'}\n`);
  return ExitCode.interrupted;
}

/** What --fail-on change counts: every row that changed, and every row on one side only. */
function changeCount(comparison: Comparison): number {
  return (
    comparison.regressions.count + comparison.fixes.count + comparison.changes.count + comparison.onlyInA.count + comparison.onlyInB.count
  );
}

function problemText(problem: CompareProblem, pathA: string, pathB: string): string {
  const path = (side: 'a' | 'b'): string => (side === 'a' ? pathA : pathB);
  switch (problem.kind) {
    case 'unreadable':
      return `${path(problem.side)} cannot be read: ${problem.reason}`;
    case 'not-comparable':
      return `${path(problem.side)}${problem.line !== undefined ? `, line ${problem.line}` : ''}: ${problem.problem}${/[.?!]$/.test(problem.problem) ? '' : '.'}`;
    case 'empty':
      return `${path(problem.side)} has no rows to compare.`;
    case 'mixed-kinds':
      return `${pathA} is ${problem.a === 'results' ? 'a batch results file' : 'an agent-test report'} and ${pathB} ${problem.b === 'results' ? 'a batch results file' : 'an agent-test report'}: compare two of the same kind.`;
    case 'different-agents':
      return problem.by === 'agent-file'
        ? `${pathA} and ${pathB} are runs of different agents (${problem.a} and ${problem.b}, by their state files). To compare them by output names anyway, add --force.`
        : problem.by === 'outputs'
          ? `${pathA} and ${pathB} look like runs of different agents: their outputs have no name in common (${problem.a}; ${problem.b}). To compare them anyway, add --force.`
          : `${pathA} and ${pathB} are reports of different test files (${problem.a}; ${problem.b}). To compare their cases by name anyway, add --force.`;
    case 'key-with-reports':
      return '--key is for batch results files: agent-test reports are matched by test file and case name.';
    case 'too-many-rows':
      return `${path(problem.side)} has more than ${problem.max.toLocaleString('en-US')} rows, the most compare reads.`;
    case 'interrupted':
      return 'compare stopped before both files were read.';
  }
}

/** The one line a comparison comes to. */
function summaryLine(comparison: Comparison): string {
  return `${plural(comparison.regressions.count, 'regression')}, ${plural(comparison.fixes.count, 'fix', 'fixes')}, ${plural(comparison.changedOutputs, 'row', 'rows')} with outputs changed, ${plural(comparison.onlyInA.count, 'row')} only in A, ${plural(comparison.onlyInB.count, 'row')} only in B`;
}

function textReport(comparison: Comparison): string {
  const out: string[] = [];
  const { a, b } = comparison;
  out.push(`A: ${a.path}${a.agent ? ` (${a.agent})` : ''}`, `B: ${b.path}${b.agent ? ` (${b.agent})` : ''}`);
  out.push(
    `matched by ${comparison.matchedBy.kind === 'key' ? `column "${comparison.matchedBy.column}"` : comparison.matchedBy.kind === 'case' ? 'test file and case name' : 'row number'}: ${plural(comparison.matched, 'row')} in both, ${comparison.unchanged.toLocaleString('en-US')} unchanged`,
  );
  out.push('');
  for (const [label, va, vb] of summaryRows(comparison)) out.push(`  ${label.padEnd(13)} ${va.padEnd(20)} ${vb}`);
  out.push('');
  const section = (title: string, list: Listed<RowChange>, withDiffs: boolean): void => {
    if (!list.count) return;
    out.push(`${title} (${list.count.toLocaleString('en-US')}):`);
    for (const change of list.items.slice(0, TEXT_ROWS)) {
      out.push(`  ${rowLabel(comparison, change)}: ${changeWords(change)}`);
      if (!withDiffs) continue;
      for (const output of change.outputs ?? []) {
        out.push(`    ${output.name}${outputNote(output)}:`);
        for (const line of output.diff) out.push(`      ${line}`);
        if (output.diffLinesNotShown) out.push(`      … ${plural(output.diffLinesNotShown, 'more line')}`);
      }
    }
    const left = list.count - Math.min(list.items.length, TEXT_ROWS);
    if (left > 0) out.push(`  … and ${plural(left, 'more row')} (--format json lists up to ${list.items.length})`);
    out.push('');
  };
  section('Regressions', comparison.regressions, true);
  section('Fixes', comparison.fixes, false);
  section('Changed', comparison.changes, true);
  const only = (title: string, list: Comparison['onlyInA']): void => {
    if (!list.count) return;
    const shown = list.items.slice(0, 20).map((item) => (comparison.matchedBy.kind === 'row' ? item.key : `${item.key} (row ${item.row})`));
    out.push(
      `${title} (${list.count.toLocaleString('en-US')}): ${shown.join(', ')}${list.count > shown.length ? `, … and ${list.count - shown.length} more` : ''}`,
    );
  };
  only('Only in A', comparison.onlyInA);
  only('Only in B', comparison.onlyInB);
  for (const side of ['a', 'b'] as const) {
    const missing = comparison.keyMissing[side];
    if (missing.count)
      out.push(
        `Rows of ${side.toUpperCase()} without a value in column "${comparison.matchedBy.kind === 'key' ? comparison.matchedBy.column : ''}" (${missing.count}): ${missing.items.slice(0, 20).join(', ')}${missing.count > 20 ? ', …' : ''}`,
      );
    const twice = comparison.duplicateKeys[side];
    if (twice.count)
      out.push(
        `Rows of ${side.toUpperCase()} whose key an earlier row has, not matched (${twice.count}): ${twice.items
          .slice(0, 20)
          .map((item) => `row ${item.row} (${item.key})`)
          .join(', ')}`,
      );
  }
  if (comparison.durationChanges)
    out.push(`Durations changed beyond noise (2x and over a second) in ${plural(comparison.durationChanges, 'row')}.`);
  out.push(summaryLine(comparison));
  return `${out.join('\n')}\n`;
}
