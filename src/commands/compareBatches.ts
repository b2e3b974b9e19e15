// Compare Batches: two batches selected in the Agent Executions view (or given by key, as Compare
// with Previous Batch and a batch's notification do) -> the comparison table, the earlier batch as
// A. Batches of different agents are said, and compared by output names once the user agrees (the
// command line's --force). A row of the table opens VS Code's diff editor on its two results.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, RunBlocked } from '../commandErrors';
import type { BatchRecord } from '../core/batch/batchRecord';
import type { Comparison } from '../core/compare/compareRuns';
import type { BatchHistory } from '../runs/batchHistory';
import { batchLabel, compareBatchRecords, compareProblemOf, comparedInOrder } from '../runs/batchComparison';
import { loadCompareCore } from '../runs/compareCore';
import { showBatchComparison } from '../views/batchComparePanel';
import type { BatchComparePanel, BatchComparisonSource } from '../views/batchComparePanel';
import type { CompareDocuments } from '../views/compareDocuments';
import { isBatchItem } from '../views/treeItemKinds';

export interface CompareBatchesDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly batches: BatchHistory;
  readonly extensionUri: vscode.Uri;
  readonly documents: CompareDocuments;
}

const COMPARE_ANYWAY = 'Compare Anyway';

export function registerCompareBatchesCommand(context: vscode.ExtensionContext, deps: CompareBatchesDeps): void {
  const recordOf = (argument: unknown): BatchRecord | undefined => {
    if (isBatchItem(argument)) return deps.batches.get(argument.batch.key) ?? argument.batch;
    if (typeof argument === 'string') return deps.batches.get(argument);
    return undefined;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.compareBatches,
      guardedCommand('Compare Batches', deps.logger, async (first: unknown, second: unknown) => {
        // From the view: the clicked item and every selected one. By key: two keys.
        const chosen = Array.isArray(second) && second.length ? second : [first, second].filter((argument) => argument !== undefined);
        const records = chosen.map(recordOf).filter((record): record is BatchRecord => record !== undefined);
        if (records.length !== 2 || chosen.length !== 2)
          throw new RunBlocked(
            `Select two batches in the Agent Executions view to compare them (${records.length} ${records.length === 1 ? 'batch' : 'batches'} selected).`,
          );
        const [a, b] = comparedInOrder(records[0]!, records[1]!);
        if (a.key === b.key) throw new RunBlocked('Select two different batches to compare them.');
        for (const record of [a, b])
          if (record.state === 'running')
            throw new RunBlocked(
              `The batch of "${record.agentName}" over ${basename(record.dataPath)} is still running: compare it once it ends.`,
            );
        const comparison = await compared(a, b);
        return comparison ? show(a, b, comparison) : undefined;
      }),
    ),
  );

  /** The comparison, asking first when the batches are of different agents; undefined when declined. */
  async function compared(a: BatchRecord, b: BatchRecord): Promise<Comparison | undefined> {
    try {
      return await compareBatchRecords(a, b);
    } catch (error) {
      const problem = compareProblemOf(error);
      if (problem?.kind === 'different-agents') {
        const why =
          problem.by === 'agent-file'
            ? `${problem.a} and ${problem.b}`
            : `their outputs have no name in common: ${problem.a}; ${problem.b}`;
        const choice = await vscode.window.showWarningMessage(
          `"${batchLabel(a)}" and "${batchLabel(b)}" are batches of different agents (${why}). Compare them by output names anyway?`,
          COMPARE_ANYWAY,
        );
        return choice === COMPARE_ANYWAY ? compareBatchRecords(a, b, { force: true }) : undefined;
      }
      if (problem?.kind === 'empty' || (problem?.kind === 'unreadable' && problem.missing))
        throw new RunBlocked(`The batch ${batchLabel(problem.side === 'a' ? a : b)} has no results to compare yet.`);
      throw error;
    }
  }

  async function show(a: BatchRecord, b: BatchRecord, comparison: Comparison): Promise<BatchComparePanel> {
    const core = await loadCompareCore();
    const title =
      a.agentName === b.agentName && a.dataPath === b.dataPath
        ? `${a.agentName}: ${basename(a.dataPath)}`
        : `${a.agentName}: ${basename(a.dataPath)} ↔ ${b.agentName}: ${basename(b.dataPath)}`;
    const source: BatchComparisonSource = {
      key: `${a.key}|${b.key}`,
      title,
      a: { label: batchLabel(a), resultsPath: a.resultsPath },
      b: { label: batchLabel(b), resultsPath: b.resultsPath },
      comparison,
    };
    return showBatchComparison(
      {
        extensionUri: deps.extensionUri,
        logger: deps.logger,
        markdown: core.markdownReport,
        openRow: async (shown, row) => {
          const [resultA, resultB] = await Promise.all([
            core.readResultRow(shown.a.resultsPath, row.rowA),
            core.readResultRow(shown.b.resultsPath, row.rowB),
          ]);
          const name = (side: 'A' | 'B', rowNumber: number): string => `${side} row ${rowNumber}`;
          const left = deps.documents.add(
            `${name('A', row.rowA)}.jsonc`,
            core.resultRowCompareText(`${shown.a.label}, row ${row.rowA}`, resultA),
          );
          const right = deps.documents.add(
            `${name('B', row.rowB)}.jsonc`,
            core.resultRowCompareText(`${shown.b.label}, row ${row.rowB}`, resultB),
          );
          await vscode.commands.executeCommand('vscode.diff', left, right, `${row.label} (${row.verdict}): A ↔ B`, { preview: true });
          return { left, right };
        },
      },
      source,
    );
  }
}
