// How test results are told: as text (a line per case with its time, a diff for each failed
// expectation, a summary), as JSON, and as JUnit XML for CI systems. Diffs come from jsdiff and the
// XML from xmlbuilder2; every value shown is bounded (shownValue.ts), and what a report keeps of a
// case is only what it shows: not the execution, its outputs or the requests its nodes sent.
import { diffJson, diffLines } from 'diff';
import { create } from 'xmlbuilder2';
import type { Problem, Span } from '../document/problems';
import { escapedCharacter } from '../printable';
import { xmlAttribute, xmlText } from '../reports/junit';
import { problemAnnotations, testAnnotations } from '../reports/github';
import type { Annotation } from '../reports/github';
import type { ReportedTest } from '../reports/reportedTest';
import type { CaseFailure, CaseResult, ReportedFailure } from './caseResult';
import type { ExchangeSummary } from '../exchange/executionExchanges';
import { reportedExchange } from './failureExchange';
import { boundedMessage, boundedText, boundedValue } from './shownValue';

/** A case's result as reports keep it. */
export interface ReportedCase {
  readonly name: string;
  readonly passed: boolean;
  readonly durationMs: number;
  readonly notes?: readonly string[];
  /** The origin of the service the case ran on: its inputs and files left this machine. */
  readonly ranOn?: string;
  readonly failures: readonly ReportedFailure[];
  /** The exchange of the node a failed case failed at (local cases). */
  readonly exchange?: ExchangeSummary;
}

/**
 * What the reports keep of a case's result, made as soon as it is known, so that a run of many
 * files does not hold every execution (outputs of up to MiBs each) until the end. `lineOf` gives
 * the line of a place in the test file.
 */
export function reportedCase(result: CaseResult, lineOf?: (span: Span) => number): ReportedCase {
  const exchange = reportedExchange(result);
  return {
    name: result.name,
    passed: result.passed,
    durationMs: result.durationMs,
    ...(result.notes?.length ? { notes: result.notes } : {}),
    ...(result.ranOn !== undefined ? { ranOn: result.ranOn } : {}),
    failures: result.failures.map((failure) => {
      const { message, ...shown } = failure.reported ?? reportedFailure(failure);
      return { message, ...(lineOf ? { line: lineOf(failure.span) } : {}), ...shown };
    }),
    ...(exchange ? { exchange } : {}),
  };
}

/** A failure as reports show it, bounded, but for its line. */
function reportedFailure(failure: CaseFailure): Omit<ReportedFailure, 'line'> {
  return {
    message: boundedMessage(failure.message),
    ...(failure.expected !== undefined ? { expected: boundedText(failure.expected) } : {}),
    ...(failure.actual !== undefined ? { actual: boundedValue(failure.actual) } : {}),
    diff: diffOf(failure),
  };
}

/**
 * What a run keeps of a case once it has ended, for its report: no requests, no execution (unless
 * its outputs are still wanted, for a snapshot), and each failure as the report will show it, with
 * its place (its line is known once snapshots are written). A file of thousands of cases would
 * otherwise hold every execution and every answer that came until its last case.
 */
export function keptForReport(
  result: CaseResult,
  keepExecution = false,
  /** The message a failure is reported with, when an adapter words some of them its own way. */
  messageOf: (failure: CaseFailure) => string = (failure) => failure.message,
): CaseResult {
  // Field by field: reading `requests` would redact them only to let them go. Of the exchanges,
  // only the failed node's summary stays.
  const { name, passed, durationMs, notes, execution, ranOn } = result;
  const failedExchange = reportedExchange(result);
  return {
    name,
    passed,
    durationMs,
    ...(notes ? { notes } : {}),
    ...(ranOn !== undefined ? { ranOn } : {}),
    requests: [],
    failures: result.failures.map((failure) => {
      const reported = reportedFailure({ ...failure, message: messageOf(failure) });
      return {
        message: reported.message,
        span: failure.span,
        ...(failure.path !== undefined ? { path: failure.path } : {}),
        ...(failure.code !== undefined ? { code: failure.code } : {}),
        reported,
      };
    }),
    ...(keepExecution && execution ? { execution } : {}),
    ...(failedExchange ? { failedExchange } : {}),
  };
}

/** One test file's outcome: its cases' results, or why it could not run. */
export interface SuiteReport {
  /** The test file as shown to the user (relative to the working folder). */
  readonly file: string;
  readonly results: readonly ReportedCase[];
  /** Why the file did not run, with its problems. */
  readonly error?: string;
  readonly problems?: readonly Problem[];
  /** Cases whose snapshot was written (--update). */
  readonly updated?: readonly string[];
}

export interface Totals {
  readonly passed: number;
  readonly failed: number;
  /** Test files that could not run. */
  readonly broken: number;
  readonly durationMs: number;
}

export function totals(reports: readonly SuiteReport[]): Totals {
  let passed = 0;
  let failed = 0;
  let durationMs = 0;
  for (const report of reports) {
    for (const result of report.results) {
      if (result.passed) passed++;
      else failed++;
      durationMs += result.durationMs;
    }
  }
  return { passed, failed, broken: reports.filter((report) => report.error !== undefined).length, durationMs };
}

const MAX_DIFF_EDITS = 500;

export function formatText(reports: readonly SuiteReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    lines.push(report.file);
    if (report.error !== undefined) {
      lines.push(`  could not run: ${report.error}`);
      for (const problem of report.problems ?? []) {
        if (problem.severity === 'error')
          lines.push(`  ${report.file}:${problem.range.line}:${problem.range.column}: ${problem.code} ${boundedMessage(problem.message)}`);
      }
      continue;
    }
    const updated = new Set(report.updated);
    for (const result of report.results) {
      lines.push(
        `  ${result.passed ? '✓' : '✗'} ${result.name} (${formatMs(result.durationMs)})${result.ranOn !== undefined ? ` (ran on ${result.ranOn})` : ''}${updated.has(result.name) ? ' (snapshot written)' : ''}`,
      );
      for (const note of result.notes ?? []) lines.push(`      note: ${note}`);
      for (const failure of result.failures) {
        const at = failure.line !== undefined ? `${report.file}:${failure.line}: ` : '';
        lines.push(`      ${at}${failure.message}`);
        for (const line of failure.diff) lines.push(`        ${line}`);
      }
      if (result.exchange) lines.push(...exchangeLines(result.exchange).map((line) => `      ${line}`));
    }
  }
  const sum = totals(reports);
  lines.push('', summaryLine(sum));
  return `${lines.join('\n')}\n`;
}

/** A failed case's exchange in a report: what the node sent and what came back, in two lines. */
function exchangeLines(exchange: ExchangeSummary): string[] {
  return [
    `exchange of node "${exchange.node}": ${exchange.summary}`,
    ...(exchange.answer !== undefined ? [`  answer: ${exchange.answer}`] : []),
  ];
}

export function summaryLine(sum: Totals): string {
  const cases = sum.passed + sum.failed;
  return `${cases} ${cases === 1 ? 'case' : 'cases'}: ${sum.passed} passed, ${sum.failed} failed${sum.broken ? `; ${sum.broken} test ${sum.broken === 1 ? 'file' : 'files'} could not run` : ''} (${formatMs(sum.durationMs)} of execution)`;
}

/** A failure's expected and actual values as diff lines (- expected, + actual); none when no plain value was expected. */
export function diffOf(failure: CaseFailure): string[] {
  if (failure.expectedValue === undefined || failure.actual === undefined) return [];
  const expected = failure.expectedValue;
  const actual = failure.actual;
  const changes =
    typeof expected === 'string' && typeof actual === 'string'
      ? diffLines(boundedText(expected), boundedText(actual), { maxEditLength: MAX_DIFF_EDITS })
      : diffJson(boundedText(JSON.stringify(expected, null, 2)), boundedText(JSON.stringify(actual, null, 2) ?? 'undefined'), {
          maxEditLength: MAX_DIFF_EDITS,
        });
  if (!changes) return [`- ${boundedText(JSON.stringify(expected))}`, `+ ${boundedText(JSON.stringify(actual))}`];
  const lines = ['- expected', '+ actual'];
  for (const change of changes) {
    const sign = change.added ? '+' : change.removed ? '-' : ' ';
    for (const line of change.value.replace(/\n$/, '').split('\n')) lines.push(`${sign} ${line}`);
  }
  return lines;
}

export function formatJson(reports: readonly SuiteReport[]): string {
  return `${JSON.stringify(
    {
      ...totals(reports),
      files: reports.map((report) => {
        return {
          file: report.file,
          ...(report.error !== undefined
            ? {
                error: report.error,
                problems: (report.problems ?? []).map((p) => ({
                  line: p.range.line,
                  column: p.range.column,
                  severity: p.severity,
                  code: p.code,
                  message: boundedMessage(p.message),
                })),
              }
            : {}),
          ...(report.updated?.length ? { updated: report.updated } : {}),
          cases: report.results.map((result) => ({
            name: result.name,
            passed: result.passed,
            durationMs: result.durationMs,
            ...(result.ranOn !== undefined ? { ranOn: result.ranOn } : {}),
            ...(result.notes?.length ? { notes: result.notes } : {}),
            failures: result.failures.map((failure) => ({
              message: failure.message,
              ...(failure.line !== undefined ? { line: failure.line } : {}),
              ...(failure.expected !== undefined ? { expected: failure.expected } : {}),
              ...(failure.actual !== undefined ? { actual: failure.actual } : {}),
            })),
            ...(result.exchange ? { exchange: result.exchange } : {}),
          })),
        };
      }),
    },
    null,
    2,
  )}\n`;
}

/** JUnit XML: a testsuite per test file, a testcase per case; a file that could not run is an error. */
export function formatJunit(reports: readonly SuiteReport[]): string {
  const sum = totals(reports);
  // Case names and values may hold characters XML 1.0 cannot (controls, U+FFFE, lone surrogates):
  // written as \uXXXX, as the command line prints them, so that the file stays well-formed (the
  // controls by xmlAttribute and xmlText, the others here).
  const root = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: escapedCharacter }).ele('testsuites', {
    name: 'agent-workflows test',
    tests: String(sum.passed + sum.failed + sum.broken),
    failures: String(sum.failed),
    errors: String(sum.broken),
    time: seconds(sum.durationMs),
  });
  for (const report of reports) {
    const failed = report.results.filter((result) => !result.passed).length;
    const suite = root.ele('testsuite', {
      name: xmlAttribute(report.file),
      file: xmlAttribute(report.file),
      tests: String(report.error !== undefined ? 1 : report.results.length),
      failures: String(failed),
      errors: report.error !== undefined ? '1' : '0',
      time: seconds(report.results.reduce((sum, result) => sum + result.durationMs, 0)),
    });
    if (report.error !== undefined) {
      const problems = (report.problems ?? [])
        .filter((p) => p.severity === 'error')
        .map((p) => `${report.file}:${p.range.line}:${p.range.column}: ${p.code} ${boundedMessage(p.message)}`);
      suite
        .ele('testcase', { name: '(test file)', classname: xmlAttribute(report.file), time: '0' })
        .ele('error', { message: xmlAttribute(report.error) })
        .txt(xmlText(problems.join('\n')));
      continue;
    }
    for (const result of report.results) {
      const firstLine = result.failures[0]?.line;
      const testcase = suite.ele('testcase', {
        name: xmlAttribute(result.name),
        classname: xmlAttribute(report.file),
        file: xmlAttribute(report.file),
        time: seconds(result.durationMs),
        ...(firstLine ? { line: String(firstLine) } : {}),
      });
      // Where the case ran, as a property (read by CI tools that show them) and in its output.
      if (result.ranOn !== undefined) testcase.ele('properties').ele('property', { name: 'ranOn', value: result.ranOn });
      // JUnit's order: a failure first, then the test's output.
      const output = [...(result.ranOn !== undefined ? [`ran on ${result.ranOn}`] : []), ...(result.notes ?? [])];
      const notes = (): void => {
        if (output.length) testcase.ele('system-out').txt(xmlText(output.join('\n')));
      };
      if (result.passed) {
        notes();
        continue;
      }
      const details = [
        ...result.failures.flatMap((failure) => [
          (failure.line !== undefined ? `line ${failure.line}: ` : '') + failure.message,
          ...failure.diff.map((line) => `  ${line}`),
        ]),
        ...(result.exchange ? exchangeLines(result.exchange) : []),
      ];
      testcase
        .ele('failure', { message: xmlAttribute(result.failures[0]?.message ?? 'failed'), type: 'AssertionError' })
        .txt(xmlText(details.join('\n')));
      notes();
    }
  }
  return `${root.end({ prettyPrint: true })}\n`;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/**
 * The cases as CI reports (CTRF, GitHub) list them: a test per case, at the line of its first
 * failure, and a test file that could not run as one failed test, at its first error.
 */
export function reportedTests(reports: readonly SuiteReport[]): ReportedTest[] {
  const tests: ReportedTest[] = [];
  for (const report of reports) {
    if (report.error !== undefined) {
      const errors = (report.problems ?? []).filter((p) => p.severity === 'error');
      tests.push({
        name: '(test file)',
        status: 'failed',
        durationMs: 0,
        message: report.error,
        ...(errors.length
          ? {
              trace: errors
                .map((p) => `${report.file}:${p.range.line}:${p.range.column}: ${p.code} ${boundedMessage(p.message)}`)
                .join('\n'),
            }
          : {}),
        file: report.file,
        ...(errors[0] ? { line: errors[0].range.line } : {}),
        suite: report.file,
      });
      continue;
    }
    for (const result of report.results) {
      const line = result.failures.find((failure) => failure.line !== undefined)?.line;
      const details = [
        ...result.failures.flatMap((failure) => [
          (failure.line !== undefined ? `line ${failure.line}: ` : '') + failure.message,
          ...failure.diff.map((diffLine) => `  ${diffLine}`),
        ]),
        ...(result.exchange ? exchangeLines(result.exchange) : []),
      ];
      tests.push({
        name: result.name,
        status: result.passed ? 'passed' : 'failed',
        durationMs: result.durationMs,
        ...(result.passed
          ? {}
          : { message: result.failures.map((failure) => failure.message).join('\n') || 'failed', trace: details.join('\n') }),
        file: report.file,
        ...(line !== undefined ? { line } : {}),
        suite: report.file,
      });
    }
  }
  return tests;
}

/**
 * GitHub annotations of a test run: each failed case at its first failure's line, with every
 * failure and diff; a test file that could not run, at each of its problems (its code the title).
 */
export function testRunAnnotations(reports: readonly SuiteReport[]): Annotation[] {
  const annotations: Annotation[] = [];
  for (const report of reports) {
    if (report.error === undefined) {
      annotations.push(...testAnnotations(reportedTests([report])));
      continue;
    }
    const problems = problemAnnotations(report.file, report.problems ?? []);
    if (!problems.some((annotation) => annotation.level === 'error'))
      annotations.push({ level: 'error', file: report.file, title: 'test file could not run', message: report.error });
    annotations.push(...problems);
  }
  return annotations;
}
