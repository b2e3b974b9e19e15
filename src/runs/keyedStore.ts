// A list of records with unique keys, newest first, kept in workspace state so it survives a
// reload: what the execution history and the batch history share. Each says how its list is capped.
import * as vscode from 'vscode';

export abstract class KeyedStore<T extends { readonly key: string }> implements vscode.Disposable {
  protected records: T[];
  private readonly changed = new vscode.EventEmitter<T | undefined>();
  /** Fires with the record that changed, or undefined when several did. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly state: vscode.Memento,
    private readonly stateKey: string,
    parse: (stored: unknown) => T[],
  ) {
    this.records = parse(state.get<unknown>(stateKey));
  }

  all(): readonly T[] {
    return this.records;
  }

  get(key: string): T | undefined {
    return this.records.find((record) => record.key === key);
  }

  /** Adds a record (first) or replaces the one with the same key, caps the list, and saves. */
  async put(record: T): Promise<T> {
    const others = this.records.filter((existing) => existing.key !== record.key);
    this.records = await this.capped([record, ...others]);
    await this.save();
    this.changed.fire(record);
    return record;
  }

  async update(key: string, change: Partial<T>): Promise<T | undefined> {
    const record = this.get(key);
    return record ? this.put({ ...record, ...change }) : undefined;
  }

  async remove(key: string): Promise<void> {
    await this.replace(this.records.filter((record) => record.key !== key));
  }

  /** The list as it may be kept (at most so many records). */
  protected abstract capped(records: T[]): T[] | Promise<T[]>;

  /** Replaces the whole list, and saves. */
  protected async replace(records: T[]): Promise<void> {
    this.records = records;
    await this.save();
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }

  private save(): Thenable<void> {
    return this.state.update(this.stateKey, this.records);
  }
}
