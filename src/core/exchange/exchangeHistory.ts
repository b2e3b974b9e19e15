// The sends of this window, kept so their exchange views can be reopened: the last few per node
// and a bound on the bytes of all of them, so a session of large answers cannot grow the
// extension host without end. Plain data: the editor's commands and views read it.
import type { NodeResult } from '../engine/evaluate';
import type { Exchange, RecordedBody } from './exchange';

export interface ExchangeEntry {
  readonly exchange: Exchange;
  /** The agent file's URI, as a string. */
  readonly file: string;
  readonly node: string;
  /** What the node produced (the send's values for `{{ nodes.… }}`, and what Pin keeps). */
  readonly result?: NodeResult;
}

export interface ExchangeHistoryLimits {
  /** Sends kept per node of a file. */
  readonly perNode: number;
  /** Estimated bytes of all entries kept; the oldest go first. The newest entry is always kept. */
  readonly totalBytes: number;
}

export const EXCHANGE_HISTORY_LIMITS: ExchangeHistoryLimits = {
  perNode: 20,
  totalBytes: 64 * 1024 * 1024,
};

export class ExchangeHistory {
  /** Insertion order is age order: the first entry is the oldest. */
  private readonly byId = new Map<string, { entry: ExchangeEntry; bytes: number }>();
  private readonly byNode = new Map<string, string[]>();
  private bytes = 0;
  private readonly listeners = new Set<(entry: ExchangeEntry) => void>();

  constructor(private readonly limits: ExchangeHistoryLimits = EXCHANGE_HISTORY_LIMITS) {}

  add(entry: ExchangeEntry): void {
    const id = entry.exchange.id;
    if (this.byId.has(id)) this.remove(id);
    const bytes = entryBytes(entry);
    this.byId.set(id, { entry, bytes });
    this.bytes += bytes;
    const key = nodeKey(entry.file, entry.node);
    const ids = this.byNode.get(key) ?? [];
    ids.push(id);
    this.byNode.set(key, ids);
    while (ids.length > this.limits.perNode) this.remove(ids[0]!);
    for (const oldest of this.byId.keys()) {
      if (this.bytes <= this.limits.totalBytes || oldest === id) break;
      this.remove(oldest);
    }
    for (const listener of this.listeners) listener(entry);
  }

  get(id: string): ExchangeEntry | undefined {
    return this.byId.get(id)?.entry;
  }

  /** The sends of one node of a file, newest first. */
  forNode(file: string, node: string): readonly ExchangeEntry[] {
    const ids = this.byNode.get(nodeKey(file, node)) ?? [];
    const entries: ExchangeEntry[] = [];
    for (let i = ids.length - 1; i >= 0; i--) entries.push(this.byId.get(ids[i]!)!.entry);
    return entries;
  }

  /** Every entry kept, newest first. */
  all(): readonly ExchangeEntry[] {
    return [...this.byId.values()].map((kept) => kept.entry).reverse();
  }

  get size(): number {
    return this.byId.size;
  }

  /** Estimated bytes of the entries kept. */
  get keptBytes(): number {
    return this.bytes;
  }

  /** Called after each add; returns the function that stops it. */
  onDidAdd(listener: (entry: ExchangeEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private remove(id: string): void {
    const kept = this.byId.get(id);
    if (!kept) return;
    this.byId.delete(id);
    this.bytes -= kept.bytes;
    const key = nodeKey(kept.entry.file, kept.entry.node);
    const ids = this.byNode.get(key);
    if (!ids) return;
    const at = ids.indexOf(id);
    if (at >= 0) ids.splice(at, 1);
    if (ids.length === 0) this.byNode.delete(key);
  }
}

function nodeKey(file: string, node: string): string {
  return `${file}\n${node}`;
}

/**
 * What an entry holds, estimated without walking it: the bodies dominate (up to 10 MiB each), so
 * headers and URLs count by their length, and a node's result (usually the parsed response body)
 * counts as the response body once more.
 */
export function entryBytes(entry: ExchangeEntry): number {
  const { request, response } = entry.exchange;
  let bytes = 256 + request.url.length + headerBytes(request.headers) + bodyBytes(request.body);
  if (response) {
    const body = bodyBytes(response.body);
    bytes += headerBytes(response.headers) + body;
    if (entry.result) bytes += body;
  }
  return bytes;
}

function headerBytes(headers: readonly { name: string; value: string }[]): number {
  let bytes = 0;
  for (const header of headers) bytes += header.name.length + header.value.length + 4;
  return bytes;
}

function bodyBytes(body: RecordedBody): number {
  switch (body.kind) {
    case 'text':
      return body.text.length * 2;
    case 'binary':
      return body.base64.length;
    default:
      return 0;
  }
}
