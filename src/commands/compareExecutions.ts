// Compare on two executions selected in the Agent Executions view: VS Code's diff editor on their
// outputs (then inputs and trace), JSON normalized (keys sorted, pretty), as read-only documents.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, RunBlocked } from '../commandErrors';
import { executionCompareText } from '../core/compare/executionText';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import type { ExecutionHistory } from '../runs/executionHistory';
import type { CompareDocuments } from '../views/compareDocuments';
import { isExecutionItem } from '../views/treeItemKinds';

export function registerCompareExecutionsCommand(
  context: vscode.ExtensionContext,
  deps: { readonly logger: vscode.LogOutputChannel; readonly store: ExecutionHistory; readonly documents: CompareDocuments },
): void {
  const { documents } = deps;
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.compareExecutions,
      guardedCommand('Compare Executions', deps.logger, async (item, selected) => {
        // A tree's command gets the clicked item and, with several selected, all of them.
        const items = (Array.isArray(selected) && selected.length ? selected : [item]).filter(isExecutionItem);
        if (items.length !== 2)
          throw new RunBlocked(`Select two executions in the Agent Executions view to compare them (${items.length} selected).`);
        const [a, b] = items.map((chosen) => deps.store.get(chosen.record.key) ?? chosen.record) as [ExecutionRecord, ExecutionRecord];
        const name = (record: ExecutionRecord): string =>
          `${record.agentName} ${new Date(record.startedAt).toISOString().slice(11, 19)}${record.executionId ? ` ${record.executionId.slice(0, 8)}` : ''}`;
        // The earlier one on the left, as a change is read: before, then after.
        const [left, right] = a.startedAt <= b.startedAt ? [a, b] : [b, a];
        const leftUri = documents.add(`${name(left)}.jsonc`, executionCompareText(left));
        const rightUri = documents.add(`${name(right)}.jsonc`, executionCompareText(right));
        await vscode.commands.executeCommand('vscode.diff', leftUri, rightUri, `${name(left)} ↔ ${name(right)}`, { preview: true });
        return { left: leftUri, right: rightUri };
      }),
    ),
  );
}
