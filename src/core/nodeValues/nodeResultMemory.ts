// The results of nodes as this window last saw them (a Run Locally, a Send Request), for the
// `{{ nodes.X… }}` values of a later Send Request or Render. Kept in memory only and NOT redacted
// (later nodes need the real values), so it is bounded: by bytes and by entries, the least
// recently set going first.
import { unparsedBodyBytes } from '../engine/deferredJson';
import type { NodeResult } from '../engine/evaluate';

export type NodeResultSource = 'run' | 'send';

export interface KeptNodeResult {
  readonly file: string;
  readonly node: string;
  readonly result: NodeResult;
  /** When it was produced (ms since the epoch). */
  readonly at: number;
  readonly source: NodeResultSource;
  /** Its size as JSON, what the byte bound counts. */
  readonly bytes: number;
}

export const NODE_RESULT_MEMORY_LIMITS = {
  maxBytes: 32 * 1024 * 1024,
  maxEntries: 1000,
} as const;

export class NodeResultMemory {
  private readonly entries = new Map<string, KeptNodeResult>();
  private bytes = 0;

  constructor(private readonly limits: { readonly maxBytes: number; readonly maxEntries: number } = NODE_RESULT_MEMORY_LIMITS) {}

  /** Keeps a node's result in place of the one before; false when it alone is over the byte bound (not kept). */
  set(file: string, node: string, result: NodeResult, source: NodeResultSource, at = Date.now()): boolean {
    const key = keyOf(file, node);
    this.remove(key);
    const bytes = resultBytes(result);
    if (bytes > this.limits.maxBytes) return false;
    this.entries.set(key, { file, node, result, at, source, bytes });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.limits.maxBytes && this.entries.size <= this.limits.maxEntries) break;
      this.remove(oldest);
    }
    return true;
  }

  get(file: string, node: string): KeptNodeResult | undefined {
    return this.entries.get(keyOf(file, node));
  }

  /** The nodes of a file that have a result. */
  nodesOf(file: string): string[] {
    return [...this.entries.values()].filter((entry) => entry.file === file).map((entry) => entry.node);
  }

  get size(): { readonly entries: number; readonly bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

function keyOf(file: string, node: string): string {
  return `${file}\u0000${node}`;
}

/** Size of a node result as JSON (a body that cannot be written as JSON counts as its text). */
export function resultBytes(result: NodeResult): number {
  // A send's JSON body not parsed yet counts as its text: sizing it must not parse it.
  const unparsed = unparsedBodyBytes(result);
  if (unparsed !== undefined) return unparsed + Buffer.byteLength(JSON.stringify({ status: result.status, headers: result.headers }));
  try {
    return Buffer.byteLength(JSON.stringify(result) ?? '');
  } catch {
    return Buffer.byteLength(String(result.body));
  }
}
