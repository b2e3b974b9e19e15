// The history of executions, newest first: kept in workspace state so it survives a reload (and
// unfinished ones can be watched again), capped by the history setting.
import * as vscode from 'vscode';
import { capHistory, isActive, parseStoredHistory } from '../core/executions/executionRecord';
import type { ExecutionRecord } from '../core/executions/executionRecord';

const STATE_KEY = 'agentWorkflows.executions';

export class ExecutionHistory implements vscode.Disposable {
  private records: ExecutionRecord[];
  private readonly changed = new vscode.EventEmitter<ExecutionRecord | undefined>();
  /** Fires with the record that changed, or undefined when several did. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly state: vscode.Memento,
    private readonly historySize: () => number,
  ) {
    this.records = parseStoredHistory(state.get<unknown>(STATE_KEY));
  }

  all(): readonly ExecutionRecord[] {
    return this.records;
  }

  get(key: string): ExecutionRecord | undefined {
    return this.records.find((record) => record.key === key);
  }

  active(): ExecutionRecord[] {
    return this.records.filter(isActive);
  }

  /** Adds a record or replaces the one with the same key, and saves. */
  async put(record: ExecutionRecord): Promise<ExecutionRecord> {
    const others = this.records.filter((existing) => existing.key !== record.key);
    this.records = capHistory([record, ...others], this.historySize());
    await this.save();
    this.changed.fire(record);
    return record;
  }

  async update(key: string, change: Partial<ExecutionRecord>): Promise<ExecutionRecord | undefined> {
    const record = this.get(key);
    return record ? this.put({ ...record, ...change }) : undefined;
  }

  async remove(key: string): Promise<void> {
    this.records = this.records.filter((record) => record.key !== key);
    await this.save();
    this.changed.fire(undefined);
  }

  /** Removes every execution that is not running. */
  async clearFinished(): Promise<number> {
    const before = this.records.length;
    this.records = this.records.filter(isActive);
    await this.save();
    this.changed.fire(undefined);
    return before - this.records.length;
  }

  dispose(): void {
    this.changed.dispose();
  }

  private save(): Thenable<void> {
    return this.state.update(STATE_KEY, this.records);
  }
}
