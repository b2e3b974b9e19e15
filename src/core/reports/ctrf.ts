// The Common Test Report Format (https://ctrf.io, schema ctrf-schema-0.0.json as the `ctrf` package
// publishes it): one JSON document of a run's tests and their summary, read by CI tools.
import type { ReportedTest, ReportedTotals } from './reportedTest';
import { reportedTotals, testCount } from './reportedTest';

export const CTRF_SPEC_VERSION = '0.0.0';

export interface CtrfOptions {
  readonly tool: { readonly name: string; readonly version?: string };
  readonly startMs: number;
  readonly stopMs: number;
  /** The run's totals when not every test is listed (a batch of more rows than a report keeps). */
  readonly totals?: ReportedTotals;
}

/** The CTRF document of these tests, as JSON text. */
export function ctrfReport(tests: readonly ReportedTest[], options: CtrfOptions): string {
  const totals = options.totals ?? reportedTotals(tests);
  const count = testCount(totals);
  const start = Math.floor(options.startMs);
  const stop = Math.max(start, Math.ceil(options.stopMs));
  const document = {
    reportFormat: 'CTRF',
    specVersion: CTRF_SPEC_VERSION,
    results: {
      tool: { name: options.tool.name, ...(options.tool.version !== undefined ? { version: options.tool.version } : {}) },
      summary: {
        tests: count,
        passed: totals.passed,
        failed: totals.failed,
        pending: 0,
        skipped: totals.skipped,
        other: totals.other,
        start,
        stop,
        duration: stop - start,
        ...(count > tests.length ? { extra: { notListed: count - tests.length } } : {}),
      },
      tests: tests.map((test) => ({
        // The schema wants a name of one character at least.
        name: test.name === '' ? '(unnamed)' : test.name,
        status: test.status,
        duration: Math.max(0, Math.round(test.durationMs)),
        ...(test.message !== undefined ? { message: test.message } : {}),
        ...(test.trace !== undefined ? { trace: test.trace } : {}),
        ...(test.file !== undefined ? { filePath: test.file } : {}),
        ...(test.line !== undefined ? { line: test.line } : {}),
        ...(test.suite !== undefined ? { suite: [test.suite] } : {}),
        ...(test.rawStatus !== undefined ? { rawStatus: test.rawStatus } : {}),
      })),
    },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
