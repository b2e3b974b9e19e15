// The batches run from VS Code, newest first: kept in workspace state so a reload shows them and
// resumes those still running; each batch's results and state files live in the extension's storage
// folder and go with the record (at most MAX_BATCH_RECORDS batches).
import * as vscode from 'vscode';
import { MAX_BATCH_RECORDS, parseStoredBatches } from '../core/batch/batchRecord';
import type { BatchRecord } from '../core/batch/batchRecord';

const STATE_KEY = 'agentWorkflows.batches';

export class BatchHistory implements vscode.Disposable {
  private records: BatchRecord[];
  private readonly changed = new vscode.EventEmitter<BatchRecord | undefined>();
  /** Fires with the batch that changed, or undefined when several did. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly state: vscode.Memento,
    /** Where batches keep their files: a folder per batch. */
    readonly storageFolder: vscode.Uri,
  ) {
    this.records = parseStoredBatches(state.get<unknown>(STATE_KEY));
  }

  all(): readonly BatchRecord[] {
    return this.records;
  }

  get(key: string): BatchRecord | undefined {
    return this.records.find((record) => record.key === key);
  }

  /** The folder of a new batch's files. */
  folderOf(key: string): vscode.Uri {
    return vscode.Uri.joinPath(this.storageFolder, 'batches', key);
  }

  async put(record: BatchRecord): Promise<BatchRecord> {
    const others = this.records.filter((existing) => existing.key !== record.key);
    const kept = [record, ...others];
    // The oldest ended batches go first; running ones are kept.
    while (kept.length > MAX_BATCH_RECORDS) {
      const index = kept.map((candidate) => candidate.state !== 'running').lastIndexOf(true);
      if (index <= 0) break;
      const [dropped] = kept.splice(index, 1);
      if (dropped) await this.deleteFiles(dropped);
    }
    this.records = kept;
    await this.save();
    this.changed.fire(record);
    return record;
  }

  async update(key: string, change: Partial<BatchRecord>): Promise<BatchRecord | undefined> {
    const record = this.get(key);
    return record ? this.put({ ...record, ...change }) : undefined;
  }

  /** Forgets a batch and deletes its results and state. */
  async remove(key: string): Promise<void> {
    const record = this.get(key);
    this.records = this.records.filter((candidate) => candidate.key !== key);
    await this.save();
    if (record) await this.deleteFiles(record);
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }

  private async deleteFiles(record: BatchRecord): Promise<void> {
    await vscode.workspace.fs.delete(this.folderOf(record.key), { recursive: true }).then(undefined, () => undefined);
  }

  private save(): Thenable<void> {
    return this.state.update(STATE_KEY, this.records);
  }
}
