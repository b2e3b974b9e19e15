// Telling apart the items of the Agent Executions view that a command is given, without loading
// the view's module: commands are bundled on their own (src/lazyCommands.ts) with their own copy
// of the item classes, so items are told apart by contextValue, not instanceof.
import * as vscode from 'vscode';
import type { BatchItem, BatchRowItem, ExecutionItem, ValueItem } from './executionsTree';

/** Whether a command's argument is an execution of the view. */
export function isExecutionItem(item: unknown): item is ExecutionItem {
  return item instanceof vscode.TreeItem && typeof item.contextValue === 'string' && item.contextValue.startsWith('execution-');
}

/** Whether a command's argument is a value (input or output) of the view. */
export function isValueItem(item: unknown): item is ValueItem {
  return item instanceof vscode.TreeItem && typeof item.contextValue === 'string' && item.contextValue.startsWith('value-');
}

/**
 * Whether a command's argument is a batch of the view (told apart by contextValue, like executions):
 * `batch-<state>`, with `-unknown` when rows' starts are unknown (executionsTree.ts BatchItem).
 */
export function isBatchItem(item: unknown): item is BatchItem {
  return (
    item instanceof vscode.TreeItem &&
    typeof item.contextValue === 'string' &&
    /^batch-(running|finished|stopped|error|given-up)(-unknown)?$/.test(item.contextValue)
  );
}

export function isBatchRowItem(item: unknown): item is BatchRowItem {
  return item instanceof vscode.TreeItem && item.contextValue === 'batch-row';
}
