// The batch core (data readers, csv-parse, the scheduler, the HTTP client, the engine), loaded on
// first use rather than at activation: the view and the commands register without it.
import type * as BatchEntry from '../core/batch/editorEntry';
import { loadOnce } from '../core/loadOnce';

export type BatchCore = typeof BatchEntry;

export const loadBatchCore: () => Promise<BatchCore> = loadOnce(() => import('../core/batch/editorEntry'));
