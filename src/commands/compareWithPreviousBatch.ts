// Compare with Previous Batch, on a batch of the Agent Executions view: the comparison table of the
// last earlier batch of the same agent and data file (A) against this one (B), through Compare
// Batches.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, RunBlocked } from '../commandErrors';
import { previousBatchOf } from '../core/batch/batchRecord';
import type { BatchRecord } from '../core/batch/batchRecord';
import type { BatchHistory } from '../runs/batchHistory';
import { isBatchItem } from '../views/treeItemKinds';

export function registerCompareWithPreviousBatchCommand(
  context: vscode.ExtensionContext,
  deps: { readonly logger: vscode.LogOutputChannel; readonly batches: BatchHistory },
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.compareWithPreviousBatch,
      guardedCommand('Compare with Previous Batch', deps.logger, async (argument: unknown) => {
        const batch: BatchRecord | undefined = isBatchItem(argument)
          ? (deps.batches.get(argument.batch.key) ?? argument.batch)
          : typeof argument === 'string'
            ? deps.batches.get(argument)
            : undefined;
        if (!batch) throw new RunBlocked('Choose a batch in the Agent Executions view to compare it with the one before.');
        const previous = previousBatchOf(deps.batches.all(), batch);
        if (!previous)
          throw new RunBlocked(
            `No earlier batch of "${batch.agentName}" over ${basename(batch.dataPath)} is kept to compare with: run it again after a change, then compare.`,
          );
        return vscode.commands.executeCommand(COMMANDS.compareBatches, previous.key, batch.key);
      }),
    ),
  );
}
