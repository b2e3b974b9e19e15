// What a watched execution reports on each poll (its status word and trace), written to the history:
// bounded as the history keeps it (keptChange), only when it changed (each write refreshes the view
// and rewrites the whole history), and never as an unhandled rejection: a write that fails is
// reported, and the same status is written again on the next poll.
import { keptChange } from './executionRecord';
import type { ExecutionRecord } from './executionRecord';

export type StatusChange = Pick<ExecutionRecord, 'serviceStatus' | 'trace'>;

export function statusWriter(
  current: Pick<ExecutionRecord, 'serviceStatus' | 'trace' | 'traceNotKept'>,
  write: (change: Partial<ExecutionRecord>) => PromiseLike<unknown>,
  onFailure: (error: unknown) => void,
): (change: StatusChange) => void {
  let written = keyOf(current);
  return (change) => {
    const kept = keptChange(change);
    const key = keyOf(kept);
    if (key === written) return;
    const before = written;
    written = key;
    // Written at once (as the poll's order says), its failure awaited.
    let pending: PromiseLike<unknown>;
    try {
      pending = write(kept);
    } catch (error) {
      pending = Promise.reject(error);
    }
    Promise.resolve(pending).then(undefined, (error: unknown) => {
      // Unless a later change was written meanwhile, this one is written again next time.
      if (written === key) written = before;
      onFailure(error);
    });
  };
}

function keyOf(change: Partial<ExecutionRecord>): string {
  return JSON.stringify({ serviceStatus: change.serviceStatus, trace: change.trace, traceNotKept: change.traceNotKept });
}
