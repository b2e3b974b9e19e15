// `agent-workflows test [paths…]`: runs agent test files (*.agent.test.yaml) on this machine with
// their mocks, prints a line per case and a diff per failed expectation, and exits 0 when every
// case passed, 1 when one failed, 2 on usage errors or a test file that cannot run.
import { dirname, resolve } from 'node:path';
import { writeFileAtomically } from '../core/atomicFile';
import { LineIndex } from '../core/document/lineIndex';
import { readTextFileSync } from '../core/document/readTextFile';
import { errorMessage } from '../core/errors';
import type { Span } from '../core/document/problems';
import type { AgentModel } from '../core/document/model';
import { displayOrigin } from '../core/environments/environmentsFileName';
import type { CaseFailure } from '../core/testing/caseResult';
import { ctrfReport } from '../core/reports/ctrf';
import { annotationLines, failureRows, stepSummaryMarkdown } from '../core/reports/github';
import { reportedTotals } from '../core/reports/reportedTest';
import {
  formatJson,
  formatJunit,
  formatText,
  keptForReport,
  reportedCase,
  reportedTests,
  summaryLine,
  testRunAnnotations,
  totals,
} from '../core/testing/report';
import type { SuiteReport } from '../core/testing/report';
import { afterSnapshot, snapshotOutputs, spansAfterWriting, updatedTestFile } from '../core/testing/snapshot';
import type { SnapshotRefusal } from '../core/testing/snapshot';
import { loadSuite, needsDeployment, runSuite } from '../core/testing/suite';
import type { LoadedSuite, RunSuiteOptions } from '../core/testing/suite';
import { TEST_FILE } from '../core/testing/testFileName';
import { expandPaths } from './agentFiles';
import type { FileKind } from './agentFiles';
import { allowedFolders, allowFilesHint } from './fileAccessOptions';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { confirmEnvironment, replacedBaseUrlNote, selectedEnvironment } from './environmentOptions';
import type { EnvironmentFlags } from './environmentOptions';
import {
  appendStepSummary,
  chosenReporters,
  CLI_VERSION,
  ciRedactor,
  comparisonSection,
  workspaceFile,
  writeReportFile,
} from './reporters';
import type { ReporterChoice } from './reporters';
import { apiKeyFrom, deploymentTarget, timeoutMs } from './serviceOptions';
import type { ServiceFlags } from './serviceOptions';

export type TestReporter = 'text' | 'json' | 'junit' | 'ctrf' | 'github';
export const TEST_REPORTERS: readonly TestReporter[] = ['text', 'json', 'junit', 'ctrf', 'github'];

export interface TestFlags extends ServiceFlags, EnvironmentFlags {
  /** Send the cases to the deployed agent instead of running them on this machine. */
  readonly deployed?: boolean;
  readonly update?: boolean;
  readonly grep?: string;
  /** --reporter TYPE or TYPE:FILE, repeatable (none: text, and github on GitHub Actions). */
  readonly reporter: readonly string[];
  /** --output: the file of the one reporter given without one. */
  readonly output?: string;
  /** --compare-with: an earlier JSON report, compared with this run's in the GitHub step summary. */
  readonly compareWith?: string;
  /** --allow-files-from: folders the cases' files may come from besides the test file's. */
  readonly allowFilesFrom?: readonly string[];
}

type DeployedTarget = NonNullable<RunSuiteOptions['deployment']>;

const TEST_FILES: FileKind = { pattern: TEST_FILE, description: '*.agent.test.yaml files' };

export async function testCommand(paths: readonly string[], flags: TestFlags, io: CliIo): Promise<number> {
  const startMs = Date.now();
  const reporters = chosenReporters(
    flags.reporter,
    { known: TEST_REPORTERS, fallback: ['text'], ...(flags.output !== undefined ? { output: flags.output } : {}) },
    io,
  );
  const comparedReport = flags.compareWith !== undefined ? comparedWith(reporters) : undefined;
  const { files, errors } = await expandPaths(paths.length ? paths : ['.'], io.cwd, TEST_FILES);
  for (const { error } of errors) io.stderr(`agent-workflows: ${error}\n`);
  if (files.length === 0)
    throw new CliError(
      `No test files to run. Test files are named NAME.agent.test.yaml, beside the NAME.agent.yaml they test.`,
      ExitCode.usage,
    );

  if (flags.deployed && flags.update) {
    throw new CliError('--update writes snapshots from local runs: run it without --deployed.', ExitCode.usage);
  }
  const allowed = await allowedFolders(flags.allowFilesFrom, io);
  // The key is read when a case goes to the deployment (--deployed, or a case marked deployed: true).
  let apiKey: string | undefined;
  let deploymentUsed = false;

  // Each agent's target in its environment, from the environments file above it; each protected
  // environment confirmed once per origin and account the cases go to.
  const confirmed = new Set<string>();
  const notes = new Set<string>();
  const targetOf = async (model: AgentModel, agentFile: string, key: string): Promise<DeployedTarget['target']> => {
    const environment = await selectedEnvironment(flags, dirname(agentFile), io);
    const target = deploymentTarget(model, flags, key, agentFile, environment);
    const replaced = replacedBaseUrlNote(model, environment, flags.baseUrl);
    if (replaced && !notes.has(`${agentFile}\u0000${replaced}`)) io.stderr(`agent-workflows: ${agentFile}: ${replaced}\n`);
    if (replaced) notes.add(`${agentFile}\u0000${replaced}`);
    const confirmation = environment ? `${environment.name}\u0000${displayOrigin(target.baseUrl)}\u0000${target.account}` : '';
    if (environment && !confirmed.has(confirmation)) {
      await confirmEnvironment(environment, target, flags, io);
      confirmed.add(confirmation);
    }
    return target;
  };

  // The first reason a deployment could not be used decides the exit code (3 without a key, else 2).
  let deploymentFailure: CliError | undefined;
  const deploymentMessages = new Set<string>();

  const reports: SuiteReport[] = [];
  // Test files whose snapshots --update refused or failed to write (each said on stderr): the command exits 2.
  let updatesRefused = 0;
  for (const shown of files) {
    if (io.interrupt?.aborted) break;
    const loaded = loadSuite(resolve(io.cwd, shown));
    if (!('suite' in loaded)) {
      reports.push({
        file: shown,
        results: [],
        error: loaded.message,
        problems: loaded.problems,
      });
      continue;
    }
    const selection = { ...(flags.grep ? { grep: flags.grep } : {}), allDeployed: flags.deployed === true };
    const deployed = needsDeployment(loaded.suite, selection);
    deploymentUsed ||= deployed;
    let deployment: DeployedTarget | undefined;
    let deploymentError: string | undefined;
    if (deployed) {
      const deploymentTimeoutMs = timeoutMs(flags, 5 * 60);
      try {
        deployment = {
          target: await targetOf(loaded.agent.model, loaded.agentFile, (apiKey ??= apiKeyFrom(io))),
          timeoutMs: deploymentTimeoutMs,
        };
      } catch (error) {
        // No target, no key, an environment not confirmed: this file's deployed cases fail with the
        // reason; its local cases and the other files still run, and the report is still written.
        if (!(error instanceof CliError)) throw error;
        deploymentError = `Not run on the deployment: ${error.message}`;
        deploymentFailure ??= error;
        if (!deploymentMessages.has(error.message)) io.stderr(`agent-workflows: ${error.message}\n`);
        deploymentMessages.add(error.message);
      }
    }
    const results = await runSuite(loaded, {
      ...selection,
      ...(io.interrupt ? { signal: io.interrupt } : {}),
      ...(deployment ? { deployment } : {}),
      ...(deploymentError !== undefined ? { deploymentError } : {}),
      ...(allowed.length ? { allowedFolders: allowed } : {}),
      allowHint: allowFilesHint,
      // Kept past its end: what the report shows, and the outputs of a case whose snapshot is written.
      keep: (result, testCase) => keptForReport(result, flags.update === true && testCase.snapshot, withUpdateHint),
    });
    // Failures point into the text the cases ran from; once snapshots are written, they are shown
    // at their lines in the text written (the new outputs may take more or fewer lines).
    let lineOf: (span: Span) => number;
    let snapshots = flags.update ? snapshotOutputs(loaded.suite.cases, results) : new Map<string, never>();
    const update = snapshots.size > 0 ? updatedTestFile(loaded, snapshots) : undefined;
    // Not written when refused, or when the file changed since the cases' text was read from it (an
    // edit saved meanwhile is kept): it stays as it is, and its failures are at its lines.
    const unwritten = !update ? undefined : 'refused' in update ? refusalMessage(update.refused) : await writeUpdate(loaded, update.bytes);
    if (unwritten !== undefined) {
      io.stderr(`agent-workflows: ${shown}: snapshots not written: ${unwritten}\n`);
      updatesRefused++;
      snapshots = new Map();
    }
    if (update && !('refused' in update) && unwritten === undefined) {
      const lines = new LineIndex(update.text);
      const after = spansAfterWriting(loaded.text, update.text);
      lineOf = (span) => lines.range(after(span)).line;
    } else {
      const lines = new LineIndex(loaded.text);
      lineOf = (span) => lines.range(span).line;
    }
    // Only what the report shows is kept past this file: not its executions and requests.
    const reported = results.map((result) => reportedCase(snapshots.has(result.name) ? afterSnapshot(result) : result, lineOf));
    reports.push({ file: shown, results: reported, ...(snapshots.size ? { updated: [...snapshots.keys()] } : {}) });
  }

  await writeReports(reports, reporters, { startMs, ...(comparedReport !== undefined ? { comparedReport } : {}) }, flags, io);
  const serviceFlags = [
    flags.baseUrl && '--base-url',
    flags.account && '--account',
    flags.agent && '--agent',
    flags.statusPath && '--status-path',
    flags.timeout && '--timeout',
    flags.env && '--env',
    flags.envsFile && '--envs-file',
  ].filter(Boolean);
  if (serviceFlags.length && !deploymentUsed)
    io.stderr(
      `note: ${serviceFlags.join(', ')} went unused: no case ran on the deployment (run with --deployed, or mark cases "deployed: true").\n`,
    );
  if (io.interrupt?.aborted) return ExitCode.interrupted;
  // The issue's codes for `test`: 0, 1, and 2 for what the user must fix to run (a missing key too).
  if (deploymentFailure) return ExitCode.usage;
  // A --grep that selects nothing is a mistake (a typo), not a green run.
  const searched = reports.filter((report) => report.error === undefined);
  if (flags.grep !== undefined && searched.length > 0 && searched.every((report) => report.results.length === 0))
    throw new CliError(
      `No case name contains "${flags.grep}" in ${searched.length} test ${searched.length === 1 ? 'file' : 'files'}; check --grep.`,
      ExitCode.usage,
    );
  const sum = totals(reports);
  if (sum.broken > 0 || errors.length > 0 || updatesRefused > 0) return ExitCode.usage;
  return sum.failed > 0 ? ExitCode.problems : ExitCode.ok;
}

/** The JSON report file that --compare-with compares with: it needs one, and the github reporter to show it. */
function comparedWith(reporters: readonly ReporterChoice<TestReporter>[]): string {
  const json = reporters.find((choice) => choice.type === 'json' && choice.file !== undefined);
  if (!reporters.some((choice) => choice.type === 'github') || !json?.file)
    throw new CliError(
      '--compare-with compares the JSON report of this run with an earlier one in the GitHub step summary: give --reporter json:FILE and --reporter github with it.',
      ExitCode.usage,
    );
  return json.file;
}

/** Each report to its file or to standard output; GitHub's annotations on standard error and its step summary. */
async function writeReports(
  reports: readonly SuiteReport[],
  reporters: readonly ReporterChoice<TestReporter>[],
  run: { readonly startMs: number; readonly comparedReport?: string },
  flags: TestFlags,
  io: CliIo,
): Promise<void> {
  const formatted = (type: Exclude<TestReporter, 'github'>): string => {
    switch (type) {
      case 'json':
        return formatJson(reports);
      case 'junit':
        return formatJunit(reports);
      case 'ctrf':
        return ctrfReport(reportedTests(reports), {
          tool: { name: 'agent-workflows', version: CLI_VERSION },
          startMs: run.startMs,
          stopMs: Date.now(),
        });
      case 'text':
        return formatText(reports);
    }
  };
  const written: string[] = [];
  for (const choice of reporters) {
    if (choice.type === 'github') continue;
    const report = formatted(choice.type);
    if (choice.file === undefined) io.stdout(report);
    else {
      await writeReportFile(choice.file, report, io);
      written.push(choice.file);
    }
  }
  // Nothing on standard output: the summary (the text report, when it went to a file) on standard error.
  if (!reporters.some((choice) => choice.type !== 'github' && choice.file === undefined))
    io.stderr(reporters.some((choice) => choice.type === 'text') ? formatText(reports) : `${summaryLine(totals(reports))}\n`);
  for (const file of written) io.stderr(`report written to ${file}\n`);
  if (!reporters.some((choice) => choice.type === 'github')) return;
  const redactor = ciRedactor(io);
  const fileOf = workspaceFile(io);
  io.stderr(annotationLines(testRunAnnotations(reports), { redactor, fileOf }));
  const tests = reportedTests(reports);
  const counts = reportedTotals(tests);
  const sum = totals(reports);
  const sections =
    flags.compareWith !== undefined && run.comparedReport !== undefined
      ? [await comparisonSection(flags.compareWith, run.comparedReport, io)]
      : [];
  await appendStepSummary(
    stepSummaryMarkdown(
      {
        title: `agent-workflows test: ${counts.failed ? `❌ ${counts.failed} failed` : '✅ all passed'}`,
        totals: [
          ['cases', sum.passed + sum.failed],
          ['passed', sum.passed],
          ['failed', sum.failed],
          ['test files that could not run', sum.broken],
        ],
        tables: [{ heading: 'Failures', columns: ['case', 'status', 'where', 'message'], rows: failureRows(tests, { fileOf }) }],
        sections,
      },
      { redactor },
    ),
    io,
  );
}

/**
 * Replaces the test file with its snapshots written, unless it changed since the cases' text was
 * read from it (saved from an editor while they ran); why not, in words, when it is not written.
 */
async function writeUpdate(loaded: LoadedSuite, bytes: Uint8Array): Promise<string | undefined> {
  const now = readTextFileSync(loaded.testFile, { kind: 'test' });
  if (!('text' in now)) return `it could not be read again before writing (${now.error.replace(/\.$/, '')}); nothing is written.`;
  if (now.text !== loaded.text || now.byteOrderMark !== loaded.byteOrderMark) return 'it changed while its cases ran: run --update again.';
  try {
    await writeFileAtomically(loaded.testFile, bytes);
  } catch (error) {
    return `it could not be written (${errorMessage(error)}); it is left as it was.`;
  }
  return undefined;
}

/** Why --update did not write a test file, in words: which case and what to do. */
function refusalMessage(refusal: SnapshotRefusal): string {
  const inCase = refusal.caseName !== undefined ? `case "${refusal.caseName}": ` : '';
  switch (refusal.reason) {
    case 'explicit-key':
      return `${inCase}its ${refusal.key} is written as an explicit key ("? ${refusal.key}"), which --update does not write into. Write it as "${refusal.key}:" and run --update again.`;
    case 'problem':
      // A problem of the whole file (its size) has no line to point at.
      return refusal.problem.code === 'file-too-large'
        ? `with them the file would be too large to run: ${refusal.problem.message} It is left as it was.`
        : `${inCase}the file written would not load (line ${refusal.problem.range.line}: ${refusal.problem.code} ${refusal.problem.message}); it is left as it was.`;
    case 'changed':
      return `${inCase}the file written would not read back as the file with its snapshots (${refusal.caseName !== undefined ? 'this case' : 'outside the cases'} would read differently); it is left as it was. Write the outputs of this case by hand, or simplify how it is written.`;
  }
}

/** A snapshot case's failure without its snapshot, told how to write it here. */
function withUpdateHint(failure: CaseFailure): string {
  return failure.code === 'snapshot-missing'
    ? `${failure.message} Run \`agent-workflows test --update\` to write them into expect.outputs.`
    : failure.message;
}
