// The batches run from VS Code, newest first: kept in workspace state so a reload shows them and
// resumes those still running; each batch's results and state files live in the extension's storage
// folder and go with the record (at most MAX_BATCH_RECORDS batches).
import * as vscode from 'vscode';
import { MAX_BATCH_RECORDS, parseStoredBatches } from '../core/batch/batchRecord';
import type { BatchRecord } from '../core/batch/batchRecord';
import { KeyedStore } from './keyedStore';

export class BatchHistory extends KeyedStore<BatchRecord> {
  constructor(
    state: vscode.Memento,
    /** Where batches keep their files: a folder per batch. */
    readonly storageFolder: vscode.Uri,
  ) {
    super(state, 'agentWorkflows.batches', parseStoredBatches);
  }

  /** The folder of a new batch's files. */
  folderOf(key: string): vscode.Uri {
    return vscode.Uri.joinPath(this.storageFolder, 'batches', key);
  }

  /** Forgets a batch and deletes its results and state. */
  override async remove(key: string): Promise<void> {
    await super.remove(key);
    await this.deleteFiles(key);
  }

  /** Forgets every batch that is not running, in one save, and deletes their files; returns how many went. */
  async clearFinished(): Promise<number> {
    const ended = this.records.filter((record) => record.state !== 'running');
    await this.replace(this.records.filter((record) => record.state === 'running'));
    for (const batch of ended) await this.deleteFiles(batch.key);
    return ended.length;
  }

  /** The oldest ended batches (and their files) go first; running ones are kept. */
  protected async capped(records: BatchRecord[]): Promise<BatchRecord[]> {
    const kept = [...records];
    while (kept.length > MAX_BATCH_RECORDS) {
      const index = kept.map((candidate) => candidate.state !== 'running').lastIndexOf(true);
      if (index <= 0) break;
      const [dropped] = kept.splice(index, 1);
      if (dropped) await this.deleteFiles(dropped.key);
    }
    return kept;
  }

  private async deleteFiles(key: string): Promise<void> {
    await vscode.workspace.fs.delete(this.folderOf(key), { recursive: true }).then(undefined, () => undefined);
  }
}
