// The batch core (data readers, csv-parse, the scheduler, the HTTP client, the engine), loaded on
// first use rather than at activation: the view and the commands register without it.
import type * as BatchEntry from '../core/batch/editorEntry';

export type BatchCore = typeof BatchEntry;

let loading: Promise<BatchCore> | undefined;

export function loadBatchCore(): Promise<BatchCore> {
  loading ??= import('../core/batch/editorEntry');
  return loading;
}
