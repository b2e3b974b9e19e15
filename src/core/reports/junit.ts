// JUnit XML of reported tests (a batch's rows): a testsuite per suite, a testcase per test, read by
// CI systems. The test runner's own report (core/testing/report.ts) writes its cases' details the
// same way, with these escapes.
import { create } from 'xmlbuilder2';
import { escapedCharacter, printable } from '../printable';
import type { ReportedTest, ReportedTotals } from './reportedTest';
import { reportedTotals, testCount } from './reportedTest';

/**
 * Text for an XML attribute: control characters written as the command line prints them (\uXXXX),
 * and a line break or tab as a character reference, which a parser reads back as it was (written
 * raw in an attribute, a parser reads it as a space). `&` is escaped here: xmlbuilder2 leaves what
 * looks like an entity (`&amp;` in a case name) as it is, and it would read back as `&`.
 */
export function xmlAttribute(value: string): string {
  return printable(value).replace(/&/g, '&amp;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

/** Text for XML content: as an attribute, but for line breaks and tabs, which XML content keeps. */
export function xmlText(value: string): string {
  return printable(value).replace(/&/g, '&amp;');
}

/** Seconds, as JUnit's time attributes write them. */
export function junitSeconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** The JUnit XML of these tests, grouped by suite; `totals` when not every test is listed. */
export function junitReport(tests: readonly ReportedTest[], name: string, totals: ReportedTotals = reportedTotals(tests)): string {
  const root = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: escapedCharacter }).ele('testsuites', {
    name: xmlAttribute(name),
    tests: String(testCount(totals)),
    failures: String(totals.failed),
    errors: '0',
    skipped: String(totals.skipped + totals.other),
    time: junitSeconds(tests.reduce((sum, test) => sum + test.durationMs, 0)),
  });
  const suites = new Map<string, ReportedTest[]>();
  for (const test of tests) {
    const suite = test.suite ?? name;
    const list = suites.get(suite);
    if (list) list.push(test);
    else suites.set(suite, [test]);
  }
  for (const [suiteName, members] of suites) {
    const counts = reportedTotals(members);
    const suite = root.ele('testsuite', {
      name: xmlAttribute(suiteName),
      tests: String(members.length),
      failures: String(counts.failed),
      errors: '0',
      skipped: String(counts.skipped + counts.other),
      time: junitSeconds(members.reduce((sum, test) => sum + test.durationMs, 0)),
    });
    for (const test of members) {
      const testcase = suite.ele('testcase', {
        name: xmlAttribute(test.name),
        classname: xmlAttribute(suiteName),
        ...(test.file !== undefined ? { file: xmlAttribute(test.file) } : {}),
        ...(test.line !== undefined ? { line: String(test.line) } : {}),
        time: junitSeconds(test.durationMs),
      });
      const message = test.message ?? test.rawStatus ?? test.status;
      if (test.status === 'failed')
        testcase.ele('failure', { message: xmlAttribute(message), type: test.rawStatus ?? 'failed' }).txt(xmlText(test.trace ?? message));
      else if (test.status !== 'passed') testcase.ele('skipped', { message: xmlAttribute(message) });
    }
  }
  return `${root.end({ prettyPrint: true })}\n`;
}
