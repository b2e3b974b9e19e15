// A mocha reporter that prints like `spec` and, at the end of the run, writes the JSON summary
// (see ./summary.ts) to reporterOptions.summaryFile or else to $AGENT_WORKFLOWS_TEST_SUMMARY.
// Used by the plain-Node unit tests (`mocha --reporter out/test/support/summaryReporter.js`) and
// by the integration suite inside VS Code (test/integration/index.ts).
// `export =` because mocha's CLI loads a reporter with require() and uses module.exports itself.
import { basename } from 'node:path';
import Mocha from 'mocha';
import { SUMMARY_ENV, addFailure, emptySummary, writeSummary, type Summary, type SummaryReporterOptions } from './summary';

const { EVENT_HOOK_END, EVENT_RUN_END, EVENT_TEST_END, EVENT_TEST_FAIL, EVENT_TEST_PASS, EVENT_TEST_PENDING } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  readonly summary: Summary = emptySummary();

  constructor(runner: Mocha.Runner, options: Mocha.MochaOptions = {}) {
    super(runner, options);
    const reporterOptions = (options.reporterOptions ?? {}) as SummaryReporterOptions;
    const file = reporterOptions.summaryFile ?? process.env[SUMMARY_ENV];
    runner.on(EVENT_TEST_PASS, () => {
      this.summary.passed++;
    });
    runner.on(EVENT_TEST_PENDING, () => {
      this.summary.pending++;
    });
    // Also emitted for a failed hook, whose title then says which hook.
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Runnable, error: unknown) => {
      addFailure(this.summary, test.fullTitle(), error);
    });
    const fileSeconds: Record<string, number> = {};
    const time = (runnable: Mocha.Runnable): void => {
      if (runnable.file === undefined || runnable.duration === undefined) return;
      const file = basename(runnable.file);
      fileSeconds[file] = (fileSeconds[file] ?? 0) + runnable.duration / 1000;
    };
    runner.on(EVENT_TEST_END, time);
    runner.on(EVENT_HOOK_END, time);
    runner.once(EVENT_RUN_END, () => {
      this.summary.fileSeconds = fileSeconds;
      if (file) writeSummary(file, this.summary);
      reporterOptions.onEnd?.(this.summary);
    });
  }
}

export = SummaryReporter;
