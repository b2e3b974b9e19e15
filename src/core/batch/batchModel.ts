// A row's result as the batch writes it in the results file and everything else reads it (the
// state log, the results table, the views): in a file of its own, so that none of those imports the
// batch runner for its types (no import circle).
import type { RowProblem } from './dataRows';
import type { ExpectationResult } from './rowInputs';
import type { ExchangeSummary } from '../exchange/executionExchanges';

export type RowStatus = 'finished' | 'failed' | 'error' | 'timeout' | 'unknown' | 'skipped';

/** One line of the results file. Key order matters: row and status come first (read back on --resume). */
export interface RowResult {
  readonly row: number;
  readonly status: RowStatus;
  /** Whether the outputs met the row's expectations (only when it has some). */
  readonly passed?: boolean;
  readonly executionId?: string;
  /** Values as given; file inputs as their path in the data file. */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** The data row's other columns (neither inputs nor `expect.…`: an id, a label), as given. */
  readonly columns?: Readonly<Record<string, unknown>>;
  readonly outputs?: unknown;
  /** What went wrong: the status answer, or a message. */
  readonly error?: unknown;
  /** A skipped row's first problems (at most MAX_ROW_PROBLEMS)… */
  readonly problems?: readonly RowProblem[];
  /** …and how many more it has. */
  readonly problemsNotListed?: number;
  readonly expectations?: ExpectationResult['failures'];
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly durationMs?: number;
  /** Requests made for this row (start and polls). */
  readonly requests?: number;
  /** A row run locally that failed at a node: that node's request and answer, summed up. */
  readonly exchange?: ExchangeSummary;
}
