// The history of executions, newest first: kept in workspace state so it survives a reload (and
// unfinished ones can be watched again), capped by the history setting.
import type * as vscode from 'vscode';
import { capHistory, isActive, parseStoredHistory } from '../core/executions/executionRecord';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import { KeyedStore } from './keyedStore';

export class ExecutionHistory extends KeyedStore<ExecutionRecord> {
  constructor(
    state: vscode.Memento,
    private readonly historySize: () => number,
  ) {
    super(state, 'agentWorkflows.executions', parseStoredHistory);
  }

  active(): ExecutionRecord[] {
    return this.records.filter(isActive);
  }

  /** Removes every execution that is not running. */
  async clearFinished(): Promise<number> {
    const before = this.records.length;
    await this.replace(this.records.filter(isActive));
    return before - this.records.length;
  }

  protected capped(records: ExecutionRecord[]): ExecutionRecord[] {
    return capHistory(records, this.historySize());
  }
}
