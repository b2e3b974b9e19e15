// What a read of a test file in the language worker gave, for the Test Explorer (its cases and
// problems) and for a run (the suite it runs): the same words for a file the worker gave up on, so
// that a run of it errors saying what its item says. A run never reads the file on the host: a file
// too slow to read in the worker would freeze the host there.
import type { TaskOutcome } from '../language/validationWorkerClient';

export type WorkerRead<R> =
  /** The worker's answer. */
  | { readonly kind: 'read'; readonly result: R }
  /** A newer read of the same file replaced this one: its answer is not shown. */
  | { readonly kind: 'superseded' }
  /** The worker gave up on it (over the time limit), or failed: why, in words for the user. */
  | { readonly kind: 'unreadable'; readonly why: string };

/** The outcome of a worker task on a test file's text (`textLength` characters), in the words the explorer and runs use. */
export function workerRead<R>(outcome: TaskOutcome<R>, textLength: number, timeLimitMs: number): WorkerRead<R> {
  switch (outcome.kind) {
    case 'done':
      return { kind: 'read', result: outcome.result };
    case 'superseded':
      return outcome;
    case 'stopped':
      return {
        kind: 'unreadable',
        why: `Reading it was stopped after ${timeLimitMs} ms (${Math.ceil(textLength / 1024)} KB): it, or its agent, takes too long to parse. Split or simplify the file.`,
      };
    default:
      return { kind: 'unreadable', why: `Reading it failed: ${outcome.error}` };
  }
}
