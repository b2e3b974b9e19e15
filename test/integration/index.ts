// Entry point of the integration suite inside VS Code's extension host (extensionTestsPath):
// the same contract under code-server (test/host/runWebHost.ts) and under desktop VS Code
// (test/host/runDesktopHost.ts). Runs every *.test.js next to this file, recursively.
// Environment: AGENT_WORKFLOWS_TEST_SUMMARY (write the JSON summary there),
//              AGENT_WORKFLOWS_TEST_GREP (run only the tests whose full title matches),
//              AGENT_WORKFLOWS_TEST_FILES / _EXCEPT (only, or all but, these files: see summary.ts).
import Mocha from 'mocha';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import SummaryReporter from '../support/summaryReporter';
import {
  SUMMARY_ENV,
  testsNarrowed,
  testFileChosen,
  addFailure,
  emptySummary,
  writeSummary,
  type Summary,
  type SummaryReporterOptions,
} from '../support/summary';

export async function run(): Promise<void> {
  const summaryFile = process.env[SUMMARY_ENV];
  let summary: Summary | undefined;
  const reporterOptions: SummaryReporterOptions = {
    ...(summaryFile ? { summaryFile } : {}),
    onEnd: (s) => {
      summary = s;
    },
  };
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 20_000,
    color: false,
    reporter: SummaryReporter,
    reporterOptions,
  });
  const grep = process.env.AGENT_WORKFLOWS_TEST_GREP;
  if (grep) mocha.grep(grep);
  for (const file of testFiles(__dirname)) mocha.addFile(file);

  try {
    await new Promise<void>((resolve) => mocha.run(() => resolve()));
  } catch (error) {
    // A test file that throws while loading makes run() throw before any test starts.
    const failed = emptySummary();
    addFailure(failed, 'loading the integration tests', error);
    if (summaryFile) writeSummary(summaryFile, failed);
    throw error;
  }
  if (!summary) throw new Error('mocha finished without reporting a summary');
  if (summary.failed > 0) throw new Error(`${summary.failed} integration test(s) failed`);
  // With a grep, a suite may rightly have nothing that matches.
  if (summary.passed === 0 && !testsNarrowed()) throw new Error('no integration tests ran');
}

function testFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (entry.name.endsWith('.test.js') && testFileChosen(entry.name)) found.push(path);
  }
  return found.sort();
}
