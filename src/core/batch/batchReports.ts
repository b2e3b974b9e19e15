// A batch's rows as CI reports list them (JUnit, CTRF, JSON, GitHub): a test per row, named by its
// number and its other columns (an id, a label) as the results table shows them, its status from
// the row's status and expectations, its message from the row's error or unmet expectations.
// Redacted by the caller's redactor, then cut. A batch of millions of rows keeps a bounded list.
import { CUTTER } from '../boundedText';
import type { Redactor } from '../redaction';
import type { ReportedStatus, ReportedTest, ReportedTotals } from '../reports/reportedTest';
import type { RowResult } from './batchModel';
import { cellText, rowError } from './resultsRows';

/** Rows a report lists; beyond, failed rows take the place of passed ones, and the rest are counted. */
export const MAX_REPORTED_ROWS = 20_000;
const MAX_NAME_CHARS = 200;
const MAX_MESSAGE_CHARS = 2000;
/** Unmet expectations named in a row's message; beyond, counted. */
const MAX_NAMED_EXPECTATIONS = 10;

/** The reported status of a row: finished and not passed is a failure; a row not known to have run is "other". */
export function rowStatus(result: RowResult): ReportedStatus {
  switch (result.status) {
    case 'finished':
      return result.passed === false ? 'failed' : 'passed';
    case 'skipped':
      return 'skipped';
    case 'unknown':
      return 'other';
    default:
      return 'failed';
  }
}

/** A row as a reported test; `dataFile` as the user named it. */
export function rowTest(result: RowResult, dataFile: string, redactor: Redactor = CUTTER): ReportedTest {
  const columns = Object.entries(result.columns ?? {}).map(([name, value]) => `${name}=${cellText(value, MAX_NAME_CHARS)}`);
  const name = redactor.excerpt(`row ${result.row}${columns.length ? ` (${columns.join(', ')})` : ''}`, MAX_NAME_CHARS);
  const status = rowStatus(result);
  const message = status === 'passed' ? undefined : rowMessage(result);
  return {
    name,
    status,
    durationMs: result.durationMs ?? 0,
    ...(message !== undefined ? { message: redactor.excerpt(message, MAX_MESSAGE_CHARS) } : {}),
    file: dataFile,
    suite: dataFile,
    rawStatus: result.status === 'finished' && result.passed === false ? 'not passed' : result.status,
  };
}

/** Why a row did not pass: its unmet expectations, or its error (a skipped row: its problems). */
function rowMessage(result: RowResult): string {
  if (result.status === 'finished' && result.expectations?.length) {
    const named = result.expectations
      .slice(0, MAX_NAMED_EXPECTATIONS)
      .map((failure) => `outputs.${failure.output}: expected ${cellText(failure.expected, 200)}, got ${cellText(failure.actual, 200)}`);
    const more = result.expectations.length - named.length;
    return [...named, ...(more > 0 ? [`and ${more} more unmet expectations`] : [])].join('\n');
  }
  return rowError(result) ?? result.status;
}

/**
 * The rows of a run as reports list them, at most MAX_REPORTED_ROWS (failed rows first kept), and
 * the totals of all of them.
 */
export class BatchReportRows {
  private readonly listed: ReportedTest[] = [];
  private readonly rows: number[] = [];
  /** Where passed rows are listed: the places a failed row may take once the list is full. */
  private readonly passedAt: number[] = [];
  private readonly totalsSoFar = { passed: 0, failed: 0, skipped: 0, other: 0 };

  constructor(
    private readonly dataFile: string,
    private readonly redactor: Redactor = CUTTER,
    private readonly limit = MAX_REPORTED_ROWS,
  ) {}

  add(result: RowResult): void {
    const test = rowTest(result, this.dataFile, this.redactor);
    this.totalsSoFar[test.status]++;
    if (this.listed.length < this.limit) {
      if (test.status === 'passed') this.passedAt.push(this.listed.length);
      this.listed.push(test);
      this.rows.push(result.row);
      return;
    }
    if (test.status === 'passed') return;
    // Full: a row that did not pass takes the place of a passed one, if one is left.
    const passed = this.passedAt.pop();
    if (passed === undefined) return;
    this.listed[passed] = test;
    this.rows[passed] = result.row;
  }

  /** The listed rows in row order. */
  tests(): ReportedTest[] {
    return this.listed
      .map((test, index) => ({ test, row: this.rows[index]! }))
      .sort((a, b) => a.row - b.row)
      .map(({ test }) => test);
  }

  totals(): ReportedTotals {
    return { ...this.totalsSoFar };
  }
}

/** A batch's JSON report: the totals and each listed row's test. */
export function batchJsonReport(rows: BatchReportRows, dataFile: string): string {
  const totals = rows.totals();
  const tests = rows.tests();
  const count = totals.passed + totals.failed + totals.skipped + totals.other;
  return `${JSON.stringify(
    {
      data: dataFile,
      rows: count,
      ...totals,
      ...(count > tests.length ? { notListed: count - tests.length } : {}),
      tests: tests.map((test) => ({
        name: test.name,
        status: test.status,
        rowStatus: test.rawStatus,
        durationMs: test.durationMs,
        ...(test.message !== undefined ? { message: test.message } : {}),
      })),
    },
    null,
    2,
  )}\n`;
}
