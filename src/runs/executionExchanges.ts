// The exchanges of the local executions of the history: one JSON file per execution in the
// extension's workspace storage (never in the workspace), so a reload keeps them; each file goes
// when its execution leaves the history (its cap, Remove, Clear). At most 1 MiB per execution
// (EXECUTION_EXCHANGE_BYTES) times the history's size on disk, read back only when an execution's
// nodes are listed. Without a storage folder (no workspace open) they are kept in memory, for the window.
import * as vscode from 'vscode';
import { ExchangeStore, parseExecutionExchanges } from '../core/exchange/executionExchanges';
import type { ExecutionExchanges } from '../core/exchange/executionExchanges';
import type { ExecutionHistory } from './executionHistory';

/** Logs read from files kept in memory at once (the rest are read again when listed). */
const READ_CACHE = 8;

/** Record keys are made by the runner (`run-…`); anything else is never used as a file name. */
const SAFE_KEY = /^[A-Za-z0-9_.-]{1,100}$/;

export class ExecutionExchangeFiles implements vscode.Disposable {
  private readonly folder: vscode.Uri | undefined;
  private readonly memory: ExchangeStore;
  /** Keys that have a file, as far as this window knows (read from the folder once). */
  private readonly filed = new Set<string>();
  /** The folder's listing, read on first need: activation touches no disk. */
  private listing: Promise<void> | undefined;
  private readonly subscription: vscode.Disposable;
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with the key of an execution whose exchanges were kept. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly history: ExecutionHistory,
    /** The extension's workspace storage; undefined with no workspace open. */
    storage: vscode.Uri | undefined,
    private readonly historySize: () => number,
  ) {
    this.folder = storage ? vscode.Uri.joinPath(storage, 'exchanges') : undefined;
    this.memory = new ExchangeStore(() => (this.folder ? READ_CACHE : this.historySize()));
    this.subscription = history.onDidChange(() => void this.prune());
  }

  /** Keeps the exchanges of an execution (its file written before this resolves). */
  async keep(key: string, log: ExecutionExchanges): Promise<void> {
    if (!SAFE_KEY.test(key)) return;
    this.memory.set(key, log);
    if (this.folder) {
      await this.listed();
      await vscode.workspace.fs.createDirectory(this.folder);
      await vscode.workspace.fs.writeFile(this.fileOf(key), Buffer.from(JSON.stringify(log)));
      this.filed.add(key);
      // The execution may have left the history while its file was written.
      if (!this.history.get(key)) await this.delete(key);
    }
    this.changed.fire(key);
  }

  /** The exchanges of an execution, or undefined when none are kept. */
  async get(key: string): Promise<ExecutionExchanges | undefined> {
    const kept = this.memory.get(key);
    if (kept || !this.folder || !SAFE_KEY.test(key)) return kept;
    await this.listed();
    if (!this.filed.has(key)) return undefined;
    try {
      const log = parseExecutionExchanges(JSON.parse(Buffer.from(await vscode.workspace.fs.readFile(this.fileOf(key))).toString('utf8')));
      if (log) this.memory.set(key, log);
      return log;
    } catch {
      // Gone or unreadable: the view says the exchanges are not kept.
      return undefined;
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  /** Deletes the files (and forgets the logs) of executions no longer in the history. */
  private async prune(): Promise<void> {
    await this.listed();
    const kept = new Set(this.history.all().map((record) => record.key));
    for (const key of [...this.filed, ...this.memory.keys()]) if (!kept.has(key)) await this.delete(key);
  }

  private async delete(key: string): Promise<void> {
    this.memory.delete(key);
    if (!this.filed.delete(key) || !this.folder) return;
    await vscode.workspace.fs.delete(this.fileOf(key)).then(undefined, () => undefined);
  }

  private listed(): Promise<void> {
    return (this.listing ??= this.listFiles());
  }

  /** Reads which executions have files; those of executions no longer in the history go. */
  private async listFiles(): Promise<void> {
    if (!this.folder) return;
    let entries: [string, vscode.FileType][];
    try {
      // Made first: reading a folder that is not there logs an error in some hosts.
      await vscode.workspace.fs.createDirectory(this.folder);
      entries = await vscode.workspace.fs.readDirectory(this.folder);
    } catch {
      return;
    }
    for (const [name] of entries) {
      const key = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
      if (SAFE_KEY.test(key)) this.filed.add(key);
    }
    const kept = new Set(this.history.all().map((record) => record.key));
    for (const key of [...this.filed]) if (!kept.has(key)) await this.delete(key);
  }

  private fileOf(key: string): vscode.Uri {
    return vscode.Uri.joinPath(this.folder!, `${key}.json`);
  }
}
