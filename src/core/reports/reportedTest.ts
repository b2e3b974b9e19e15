// One test as the CI reports show it (CTRF, JUnit, GitHub annotations and step summary), whatever it
// came from: a case of an agent test file, or a row of a batch. Each source makes these from its own
// results; the reports are written from them alone.

/** The statuses CTRF knows; each report maps them to its own. */
export type ReportedStatus = 'passed' | 'failed' | 'skipped' | 'other';

export interface ReportedTest {
  readonly name: string;
  readonly status: ReportedStatus;
  readonly durationMs: number;
  /** What went wrong, in one message (redacted and bounded by the source). */
  readonly message?: string;
  /** Its details: each failure's line and diff. */
  readonly trace?: string;
  /** The file it is written in (a test file, a data file), as the user names it. */
  readonly file?: string;
  /** Where in that file (1-based). */
  readonly line?: number;
  readonly column?: number;
  /** What it belongs to: its test file, or the batch's data file. */
  readonly suite?: string;
  /** The source's own status when the reported one says less ("timeout", "error"). */
  readonly rawStatus?: string;
}

export interface ReportedTotals {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly other: number;
}

export function reportedTotals(tests: readonly ReportedTest[]): ReportedTotals {
  const totals = { passed: 0, failed: 0, skipped: 0, other: 0 };
  for (const test of tests) totals[test.status]++;
  return totals;
}

export function testCount(totals: ReportedTotals): number {
  return totals.passed + totals.failed + totals.skipped + totals.other;
}
