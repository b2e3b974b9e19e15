// A batch run from VS Code as the extension remembers it (workspace state): the agent and data
// file, where it ran, where its results and state are on disk, how far it got. Plain data and
// bounded (counts, not rows: the rows are in the results file), never a secret.
import type { ExecutionTargetInfo } from '../executions/executionRecord';
import type { BatchCounts } from './runBatch';

/** `given-up`: the service answered nothing but 429 or 503 for too long; the rows left are resumable. */
export type BatchRecordState = 'running' | 'finished' | 'stopped' | 'error' | 'given-up';

export interface BatchRecord {
  readonly key: string;
  readonly agentName: string;
  /** The agent file, as a URI string. */
  readonly file: string;
  /** The data file, as a file system path. */
  readonly dataPath: string;
  readonly mode: 'deployed' | 'local';
  readonly target?: ExecutionTargetInfo;
  readonly resultsPath: string;
  readonly statePath: string;
  readonly concurrency: number;
  readonly ratePerSecond: number;
  readonly state: BatchRecordState;
  readonly startedAt: number;
  readonly endedAt?: number;
  /** Rows in the data file, when counted. */
  readonly total?: number;
  readonly counts?: BatchCounts;
  /** Why it stopped or failed, in words. */
  readonly error?: string;
}

/** Batches kept; older ones (and their result files) go first. */
export const MAX_BATCH_RECORDS = 20;

const STATES: readonly BatchRecordState[] = ['running', 'finished', 'stopped', 'error', 'given-up'];

/** Batch records read back from workspace state; anything malformed is dropped, not trusted. */
export function parseStoredBatches(value: unknown): BatchRecord[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(
      (item): item is BatchRecord =>
        item !== null &&
        typeof item === 'object' &&
        typeof item.key === 'string' &&
        typeof item.agentName === 'string' &&
        typeof item.file === 'string' &&
        typeof item.dataPath === 'string' &&
        (item.mode === 'deployed' || item.mode === 'local') &&
        typeof item.resultsPath === 'string' &&
        typeof item.statePath === 'string' &&
        typeof item.concurrency === 'number' &&
        typeof item.ratePerSecond === 'number' &&
        STATES.includes(item.state) &&
        typeof item.startedAt === 'number',
    )
    .slice(0, MAX_BATCH_RECORDS);
}

/** "37/120 · 3 failed · 1 skipped": a batch's progress in a few words. */
export function describeBatchCounts(record: Pick<BatchRecord, 'counts' | 'total'>): string {
  const counts = record.counts;
  if (!counts) return record.total !== undefined ? `0/${record.total}` : 'starting';
  const parts = [`${counts.ended}/${counts.total}`];
  if (counts.failed) parts.push(`${counts.failed} failed`);
  if (counts.error) parts.push(`${counts.error} errors`);
  if (counts.timeout) parts.push(`${counts.timeout} timed out`);
  if (counts.skipped) parts.push(`${counts.skipped} skipped`);
  if (counts.unknown) parts.push(`${counts.unknown} unknown`);
  return parts.join(' · ');
}

/**
 * The batch to compare `batch` with: the last one started before it of the same agent file and data
 * file that is not running (its results are complete), or undefined.
 */
export function previousBatchOf(records: readonly BatchRecord[], batch: BatchRecord): BatchRecord | undefined {
  let previous: BatchRecord | undefined;
  for (const record of records)
    if (
      record.key !== batch.key &&
      record.file === batch.file &&
      record.dataPath === batch.dataPath &&
      record.state !== 'running' &&
      record.startedAt <= batch.startedAt &&
      (!previous || record.startedAt > previous.startedAt)
    )
      previous = record;
  return previous;
}
