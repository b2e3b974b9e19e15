// The JSON summary every test stage writes, so scripts/test.mjs can add the stages up:
// { "passed": n, "failed": n, "pending": n, "failures": [{ "title", "error" }], "fileSeconds": { file: s } }
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Environment variable naming the file a test run writes its summary to. */
export const SUMMARY_ENV = 'AGENT_WORKFLOWS_TEST_SUMMARY';

export interface Failure {
  title: string;
  error: string;
}

export interface Summary {
  passed: number;
  failed: number;
  pending: number;
  failures: Failure[];
  /** Seconds each test file took (its tests and hooks), where the reporter measured them: where the time goes. */
  fileSeconds?: Record<string, number>;
}

/**
 * The variables that choose which integration tests run, passed on to the extension host:
 * AGENT_WORKFLOWS_TEST_GREP (full titles), AGENT_WORKFLOWS_TEST_FILES (only these test files, by
 * name without `.test.js`, comma-separated) and AGENT_WORKFLOWS_TEST_EXCEPT (all but these).
 */
export const TEST_SELECTION_ENV = ['AGENT_WORKFLOWS_TEST_GREP', 'AGENT_WORKFLOWS_TEST_FILES', 'AGENT_WORKFLOWS_TEST_EXCEPT'] as const;

export function testSelectionEnv(): Record<string, string | undefined> {
  return Object.fromEntries(TEST_SELECTION_ENV.map((name) => [name, process.env[name]]));
}

/** Whether the tests were narrowed (a grep, a list of files): a suite may then rightly run none. */
export function testsNarrowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.AGENT_WORKFLOWS_TEST_GREP || env.AGENT_WORKFLOWS_TEST_FILES);
}

/** Whether the integration test file `fileName` (`x.test.js`) is one AGENT_WORKFLOWS_TEST_FILES/EXCEPT choose. */
export function testFileChosen(fileName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const name = fileName.replace(/\.test\.js$/, '');
  const listed = (variable: string): string[] | undefined => env[variable]?.split(',').filter(Boolean);
  const only = listed('AGENT_WORKFLOWS_TEST_FILES');
  if (only && !only.includes(name)) return false;
  return !listed('AGENT_WORKFLOWS_TEST_EXCEPT')?.includes(name);
}

/** What test/support/summaryReporter.ts takes as mocha's reporterOptions. */
export interface SummaryReporterOptions {
  /** Where to write the summary; defaults to $AGENT_WORKFLOWS_TEST_SUMMARY. */
  summaryFile?: string;
  /** Called with the summary when the run ends. */
  onEnd?: (summary: Summary) => void;
}

export function emptySummary(): Summary {
  return { passed: 0, failed: 0, pending: 0, failures: [] };
}

/** Records one failure: a failed test, or a problem of the harness itself (counted as a test). */
export function addFailure(summary: Summary, title: string, error: unknown): void {
  summary.failed++;
  summary.failures.push({ title, error: describeError(error) });
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

export function writeSummary(file: string, summary: Summary): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
}

/** The summary in file, or undefined when there is none; throws when it is not a summary. */
export function readSummary(file: string): Summary | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const value: unknown = JSON.parse(text);
  if (!isSummary(value)) throw new Error(`${file} is not a test summary: ${text.slice(0, 200)}`);
  return value;
}

function isSummary(value: unknown): value is Summary {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.passed === 'number' && typeof v.failed === 'number' && typeof v.pending === 'number' && Array.isArray(v.failures);
}
