// Which execution a command acts on: the Agent Executions item it was invoked on, or one the user
// picks from the history (the palette), among those the command can take.
import * as vscode from 'vscode';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import type { ExecutionHistory } from '../runs/executionHistory';
import { isExecutionItem } from './treeItemKinds';

export interface ExecutionChoice {
  /** The executions the command can take. */
  readonly accepts: (record: ExecutionRecord) => boolean;
  /** Said when the history has none of them (what to do first). */
  readonly noneMessage: string;
  readonly placeHolder: string;
  /** The fact shown before the start time in the pick's rows (the state, the mode). */
  readonly detail: (record: ExecutionRecord) => string;
}

export async function chooseExecution(
  argument: unknown,
  store: ExecutionHistory,
  choice: ExecutionChoice,
): Promise<ExecutionRecord | undefined> {
  if (isExecutionItem(argument)) return store.get(argument.record.key) ?? argument.record;
  const candidates = store.all().filter(choice.accepts);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(choice.noneMessage);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((record) => ({
      label: record.agentName,
      description: `${choice.detail(record)} · ${new Date(record.startedAt).toLocaleString()}`,
      record,
    })),
    { placeHolder: choice.placeHolder },
  );
  return picked?.record;
}
