// `agent-workflows batch <file> --data rows.jsonl|.csv|.json`: runs the agent once per row of a
// data file, against the deployed agent (one scheduler, a request-rate budget, resumable) or with
// --local on this machine. Progress on stderr (a live line on a terminal, periodic lines otherwise),
// results to --out as rows end, a summary at the end. See docs/batch.md.
import { dirname, resolve } from 'node:path';
import { loadAgent } from '../core/engine/agentPlan';
import { envSecretHint, envSecretResolver } from '../core/engine/secrets';
import { formatDuration } from '../core/executions/executionRecord';
import { BatchResumeRefused, BatchSetupError, runBatch } from '../core/batch/runBatch';
import type { BatchCounts, BatchEvent, BatchMode, BatchSetupProblem, BatchSummary, ResumeRefusal } from '../core/batch/runBatch';
import type { ColumnMapProblem, OtherColumns } from '../core/batch/rowInputs';
import { listWords } from '../core/document/suggest';
import { shellQuote } from '../core/service/curl';
import { DEFAULT_STATUS_PATH } from '../core/service/target';
import { loadSuite } from '../core/testing/suite';
import type { Matcher } from '../core/testing/matchers';
import type { SchedulerStop } from '../core/batch/scheduler';
import { readRunnableAgentFile } from './agentFiles';
import { confirmEnvironment, replacedBaseUrlNote, selectedEnvironment } from './environmentOptions';
import type { EnvironmentFlags } from './environmentOptions';
import { integer, pairs, positiveNumber } from './flagValues';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { allowedFolders, allowFilesHint } from './fileAccessOptions';
import { createProgress } from './progress';
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
import { BatchReportRows, batchJsonReport } from '../core/batch/batchReports';
import { ctrfReport } from '../core/reports/ctrf';
import { junitReport } from '../core/reports/junit';
import { annotationLines, failureRows, stepSummaryMarkdown, testAnnotations } from '../core/reports/github';
import { apiKeyFrom, deploymentTarget, rejectWithLocal, timeoutMs } from './serviceOptions';
import type { ServiceFlags } from './serviceOptions';

export interface BatchFlags extends ServiceFlags, EnvironmentFlags {
  readonly data: string;
  readonly local?: boolean;
  readonly concurrency?: string;
  readonly rate?: string;
  readonly out?: string;
  readonly state?: string;
  readonly resume?: boolean;
  readonly restartUnknown?: boolean;
  readonly map: readonly string[];
  readonly limit?: string;
  readonly expect?: string;
  readonly giveUpAfter?: string;
  /** --allow-files-from: folders the data's file paths may name besides the data file's. */
  readonly allowFilesFrom?: readonly string[];
  /** --strict-columns: a column that is neither an input nor expect.… makes its rows bad. */
  readonly strictColumns?: boolean;
  /** --reporter TYPE or TYPE:FILE, repeatable (none: github on GitHub Actions). */
  readonly reporter?: readonly string[];
  /** --compare-with: an earlier results file, compared with this one (--out) in the GitHub step summary. */
  readonly compareWith?: string;
}

export type BatchReporter = 'json' | 'junit' | 'ctrf' | 'github';
export const BATCH_REPORTERS: readonly BatchReporter[] = ['json', 'junit', 'ctrf', 'github'];

/** Bad rows whose problems are printed; beyond, they are counted (all are in --out). */
const MAX_PRINTED_BAD_ROWS = 20;
/** Problems printed for one bad row; beyond, they are counted. */
const MAX_PRINTED_PROBLEMS_PER_ROW = 20;
/** Plain progress lines (stderr not a terminal) at most this often. */
const PLAIN_PROGRESS_MS = 10_000;
/** The live line is redrawn at most 4 times a second. */
const LIVE_PROGRESS_MS = 250;

export async function batchCommand(path: string, flags: BatchFlags, io: CliIo): Promise<number> {
  const startMs = Date.now();
  const reporters = chosenReporters(flags.reporter ?? [], { known: BATCH_REPORTERS, fallback: [] }, io);
  if (flags.compareWith !== undefined && (flags.out === undefined || !reporters.some((choice) => choice.type === 'github')))
    throw new CliError(
      '--compare-with compares the results of this batch (--out) with an earlier one in the GitHub step summary: give --out and --reporter github with it.',
      ExitCode.usage,
    );
  // Only when a report is asked for: the rows as it lists them (bounded), redacted.
  const reportRows = reporters.length ? new BatchReportRows(flags.data, ciRedactor(io)) : undefined;
  const read = await readRunnableAgentFile(path, io);
  const { model } = read;

  const concurrency = flags.concurrency === undefined ? 8 : integer(flags.concurrency, '--concurrency', 1, 1000);
  const rate = flags.rate === undefined ? 10 : positiveNumber(flags.rate, '--rate');
  const limit = flags.limit === undefined ? undefined : integer(flags.limit, '--limit', 1, Number.MAX_SAFE_INTEGER);
  const executionTimeoutMs = timeoutMs(flags, 30 * 60);
  const giveUpAfterMs =
    flags.giveUpAfter === undefined ? undefined : positiveNumber(flags.giveUpAfter, '--give-up-after', 'a number of seconds') * 1000;
  const columnMap = pairs(flags.map, '--map', 'INPUT=COLUMN', true);
  if (flags.restartUnknown && !flags.resume) throw new CliError('--restart-unknown goes with --resume.', ExitCode.usage);
  if (flags.state && !flags.out)
    throw new CliError('--state goes with --out (the state of a batch is kept next to its results).', ExitCode.usage);

  const allowed = await allowedFolders(flags.allowFilesFrom, io);
  const outputExpectations = flags.expect !== undefined ? expectFile(resolve(io.cwd, flags.expect), resolve(io.cwd, path)) : undefined;

  let mode: BatchMode;
  if (flags.local) {
    rejectWithLocal(flags, 'the rows', { '--rate': flags.rate !== undefined });
    if (giveUpAfterMs !== undefined)
      throw new CliError(
        '--local runs the rows on this machine: --give-up-after (about a service that throttles) does not apply.',
        ExitCode.usage,
      );
    mode = {
      kind: 'local',
      agent: loadAgent(read.text, path),
      concurrency,
      executionTimeoutMs,
      engine: { secrets: envSecretResolver(io.env), secretHint: envSecretHint },
    };
  } else {
    const environment = await selectedEnvironment(flags, dirname(resolve(io.cwd, path)), io);
    const target = deploymentTarget(model, flags, apiKeyFrom(io), undefined, environment);
    const replaced = replacedBaseUrlNote(model, environment, flags.baseUrl);
    if (replaced) io.stderr(`agent-workflows: ${replaced}\n`);
    // Before any row is read or sent: a protected environment is confirmed (--yes, or y at a terminal).
    await confirmEnvironment(environment, target, flags, io);
    mode = {
      kind: 'service',
      scheduler: {
        target,
        concurrency,
        ratePerSecond: rate,
        executionTimeoutMs,
        ...(giveUpAfterMs !== undefined ? { giveUpAfterMs } : {}),
        ...(io.clock ? { clock: io.clock } : {}),
      },
    };
  }

  const dataPath = resolve(io.cwd, flags.data);
  const outPath = flags.out !== undefined ? resolve(io.cwd, flags.out) : undefined;
  const tty = io.stderrIsTTY ?? false;
  const live = createProgress(io.stderr, tty, io.terminal, {
    minIntervalMs: tty ? LIVE_PROGRESS_MS : PLAIN_PROGRESS_MS,
    ...(io.clock ? { clock: io.clock } : {}),
  });
  let badRows = 0;
  const stateShown = flags.state ?? `${flags.out ?? ''}.state`;
  const onEvent = (event: BatchEvent): void => {
    switch (event.kind) {
      case 'prepared':
        if (event.filesUnchecked)
          live.line(
            `${stateShown} does not record the data and agent files it ran: they cannot be checked against it (it was written by an older version); if they changed since, rows may run twice or be left out`,
          );
        live.line(
          `batch of ${event.total} ${event.total === 1 ? 'row' : 'rows'} over ${flags.data}${flags.local ? ' (local)' : ''}${event.alreadyEnded ? `: ${event.alreadyEnded} ended before` : ''}${event.polledAgain ? `, ${event.polledAgain} started before (polled again)` : ''}`,
        );
        break;
      case 'other-columns':
        for (const line of otherColumnsLines(event.columns)) live.line(line);
        break;
      case 'row-skipped': {
        if (badRows++ >= MAX_PRINTED_BAD_ROWS) break;
        for (const problem of event.problems.slice(0, MAX_PRINTED_PROBLEMS_PER_ROW)) {
          const hint = problem.refusal ? allowFilesHint(problem.refusal) : '';
          live.line(
            `row ${problem.row}${problem.column !== undefined ? `, column "${problem.column}"` : ''}: ${problem.message}${hint ? `; ${hint}` : ''} (skipped)`,
          );
        }
        const more = Math.max(0, event.problems.length - MAX_PRINTED_PROBLEMS_PER_ROW) + (event.problemsNotListed ?? 0);
        if (more > 0)
          live.line(
            `row ${event.row}: and ${more.toLocaleString('en-US')} more ${more === 1 ? 'problem' : 'problems'} (the first ${Math.min(event.problems.length, MAX_PRINTED_PROBLEMS_PER_ROW)} are in the results)`,
          );
        break;
      }
      case 'row-ended':
        reportRows?.add(event.result);
        if (event.result.status === 'unknown') live.line(`row ${event.result.row}: ${String(event.result.error)}`);
        break;
      case 'data-error':
        live.line(`agent-workflows: ${event.message}; the rows after it were not run`);
        break;
      case 'progress':
        live.update(progressText(event.counts));
        break;
      default:
        break;
    }
  };

  let summary: BatchSummary;
  const signal = io.interrupt ?? new AbortController().signal;
  try {
    summary = await runBatch(
      {
        model,
        agentPath: resolve(io.cwd, path),
        agentText: read.text,
        dataPath,
        ...(columnMap.size ? { columnMap } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(outPath !== undefined ? { outPath } : {}),
        ...(flags.state !== undefined ? { statePath: resolve(io.cwd, flags.state) } : {}),
        resume: flags.resume ?? false,
        restartUnknown: flags.restartUnknown ?? false,
        ...(outputExpectations ? { outputExpectations } : {}),
        ...(allowed.length ? { allowedFolders: allowed } : {}),
        ...(flags.strictColumns ? { strictColumns: true } : {}),
        mode,
      },
      onEvent,
      signal,
    );
  } catch (error) {
    live.done();
    if (error instanceof BatchResumeRefused) throw new CliError(refusalText(error.refusal, path, flags, io.cwd), ExitCode.usage);
    if (error instanceof BatchSetupError) throw new CliError(setupProblemText(error.problem, path, flags, io.cwd), ExitCode.usage);
    throw error;
  }
  live.done();
  if (badRows > MAX_PRINTED_BAD_ROWS) io.stderr(`… and ${badRows - MAX_PRINTED_BAD_ROWS} more bad rows (listed in --out)\n`);
  io.stderr(summaryText(summary, outPath !== undefined ? (flags.out ?? '') : undefined));
  // The core's words for these rows name no flag: the command line names its own.
  if (summary.unknown > 0)
    io.stderr(
      `${summary.unknown} ${summary.unknown === 1 ? "row's start is" : "rows' starts are"} unknown: check the service's executions, then add --resume --restart-unknown to start ${summary.unknown === 1 ? 'it' : 'them'} again (${summary.unknown === 1 ? 'it' : 'they'} may run twice).\n`,
    );
  if (summary.timeout > 0)
    io.stderr(`${summary.timeout} ${summary.timeout === 1 ? 'row' : 'rows'} timed out: --timeout S gives each execution longer.\n`);

  if (reportRows) await writeBatchReports(reportRows, reporters, startMs, flags, io);

  if (summary.stopped) {
    const stopped = summary.stopped;
    io.stderr(`agent-workflows: ${stopWords(stopped, flags)}\n`);
    if (outPath !== undefined) io.stderr(`resume with: ${resumeCommand(path, flags)}\n`);
    else io.stderr('(without --out the batch cannot be resumed)\n');
    switch (stopped.kind) {
      case 'interrupted':
        return ExitCode.interrupted;
      case 'auth':
        return ExitCode.auth;
      // As when the files cannot be written at the start: nothing to retry until there is room.
      case 'record-failed':
        return ExitCode.usage;
      default:
        return ExitCode.network;
    }
  }
  if (summary.timeout > 0) return ExitCode.timeout;
  if (summary.ended < summary.total || summary.ended - summary.finished > 0 || summary.passed < summary.checked) return ExitCode.problems;
  return ExitCode.ok;
}

/** Each report of the batch's rows to its file or standard output; GitHub's annotations and step summary. */
async function writeBatchReports(
  rows: BatchReportRows,
  reporters: readonly ReporterChoice<BatchReporter>[],
  startMs: number,
  flags: BatchFlags,
  io: CliIo,
): Promise<void> {
  const tests = rows.tests();
  const totals = rows.totals();
  for (const choice of reporters) {
    if (choice.type === 'github') continue;
    const report =
      choice.type === 'json'
        ? batchJsonReport(rows, flags.data)
        : choice.type === 'junit'
          ? junitReport(tests, 'agent-workflows batch', totals)
          : ctrfReport(tests, { tool: { name: 'agent-workflows', version: CLI_VERSION }, startMs, stopMs: Date.now(), totals });
    if (choice.file === undefined) io.stdout(report);
    else {
      await writeReportFile(choice.file, report, io);
      io.stderr(`report written to ${choice.file}\n`);
    }
  }
  if (!reporters.some((choice) => choice.type === 'github')) return;
  const redactor = ciRedactor(io);
  const fileOf = workspaceFile(io);
  io.stderr(annotationLines(testAnnotations(tests), { redactor, fileOf }));
  const notPassed = totals.failed + totals.skipped + totals.other;
  const sections =
    flags.compareWith !== undefined && flags.out !== undefined ? [await comparisonSection(flags.compareWith, flags.out, io)] : [];
  await appendStepSummary(
    stepSummaryMarkdown(
      {
        title: `agent-workflows batch over ${flags.data}: ${notPassed ? `❌ ${notPassed} not passed` : '✅ all passed'}`,
        totals: [
          ['rows', totals.passed + notPassed],
          ['passed', totals.passed],
          ['failed', totals.failed],
          ['skipped (bad data)', totals.skipped],
          ['unknown', totals.other],
        ],
        tables: [{ heading: 'Rows not passed', columns: ['row', 'status', 'where', 'message'], rows: failureRows(tests, { fileOf }) }],
        sections,
      },
      { redactor },
    ),
    io,
  );
}

/** Columns named in the line about the data's other columns; beyond, counted. */
const MAX_NAMED_COLUMNS = 20;
/** Did-you-mean lines printed under it; beyond, counted. */
const MAX_SUGGESTION_LINES = 10;

/** The data's columns that are not inputs, in the command line's words (with its flags). */
export function otherColumnsLines(others: OtherColumns): string[] {
  const names = others.columns.slice(0, MAX_NAMED_COLUMNS).map(({ name }) => JSON.stringify(name));
  const more = others.columns.length - names.length + others.notListed;
  const count = others.columns.length + others.notListed;
  const listed = more > 0 ? `${names.join(', ')} and ${more.toLocaleString('en-US')} more` : listQuoted(names);
  const lines = [
    others.strict
      ? `${count === 1 ? 'column' : 'columns'} ${listed} of the data ${count === 1 ? 'is not an input' : 'are not inputs'}: with --strict-columns the rows that fill ${count === 1 ? 'it' : 'them'} are skipped`
      : `${count === 1 ? 'column' : 'columns'} ${listed} of the data ${count === 1 ? 'is not an input' : 'are not inputs'}: kept in each row's result, not sent (--strict-columns makes such rows bad)`,
  ];
  const typos = others.columns.filter((column) => column.suggestion !== undefined);
  for (const { name, suggestion } of typos.slice(0, MAX_SUGGESTION_LINES))
    lines.push(
      `  column ${JSON.stringify(name)}: did you mean input "${suggestion}"? (--map ${suggestion}=${name} reads it as that input)`,
    );
  if (typos.length > MAX_SUGGESTION_LINES)
    lines.push(`  … and ${typos.length - MAX_SUGGESTION_LINES} more columns close to an input's name`);
  return lines;
}

/** '"a", "b" and "c"' of names already quoted. */
function listQuoted(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** Why the batch stopped before every row ended, in the command line's words (its flags). */
function stopWords(stopped: SchedulerStop, flags: BatchFlags): string {
  switch (stopped.kind) {
    case 'interrupted':
      return 'stopped';
    case 'given-up':
      return `${stopped.message} (--give-up-after ${flags.giveUpAfter ?? '900'}); the rows not started are left for --resume`;
    case 'record-failed':
      return `the batch's state or results could not be written (${stopped.message}); nothing more was started. Make room or fix the permissions of the --out folder, then resume`;
    default:
      return stopped.message;
  }
}

/** Why --resume was refused, and what to do, with the names the command was given. */
/** Why the batch cannot start, in the command line's words: the flags that give or change it. */
function setupProblemText(problem: BatchSetupProblem, path: string, flags: BatchFlags, cwd: string): string {
  switch (problem.kind) {
    case 'column-map':
      return problem.problems.map(columnMapText).join('\n');
    case 'bad-number':
      return problem.what === 'limit'
        ? `--limit must be a whole number of 1 or more, not ${problem.value}.`
        : `The row count given must be a whole number of 1 or more, not ${problem.value}.`;
    case 'data-file':
      return problem.message;
    case 'resume-without-results':
      return '--resume goes on with the batch of a results file: give its --out.';
    case 'no-state':
      return `There is no state file ${problem.statePath} to resume from: run the batch without --resume.`;
    case 'other-data':
      return `${problem.statePath} is the state of a batch over ${problem.started}, not ${problem.given}.`;
    case 'other-mode':
      return `${problem.statePath} is the state of a batch run ${problem.started === 'local' ? 'locally (--local)' : 'against the service (without --local)'}: resume it the same way.`;
    case 'exists':
      return `${problem.path} exists: give --resume to go on with that batch, or remove it (or choose another --out) to start over.`;
    case 'unwritable':
      return `${problem.path} cannot be written: ${problem.reason}`;
    case 'unreadable':
      return `${problem.path} cannot be read: ${problem.reason}`;
    case 'resume-refused':
      return refusalText(problem.refusal, path, flags, cwd);
  }
}

function columnMapText(problem: ColumnMapProblem): string {
  if (problem.kind === 'column-twice')
    return `--map: column "${problem.column}" is given to both "${problem.inputs[0]}" and "${problem.inputs[1]}".`;
  return `--map ${problem.input}=${problem.column}: the agent has no input "${problem.input}".${problem.suggestion ? ` Did you mean "${problem.suggestion}"?` : problem.inputs.length ? ` Its inputs are ${listWords(problem.inputs, 'and')}.` : ''}`;
}

function refusalText(refusal: ResumeRefusal, path: string, flags: BatchFlags, cwd: string): string {
  const out = flags.out ?? '';
  const state = flags.state ?? `${out}.state`;
  const startOver = `To run it again, start a new batch with another --out (or remove ${out} and ${state}).`;
  if (refusal.kind === 'files-changed') {
    const files = refusal.files.map(({ file }) => (file === 'data' ? `the data file ${flags.data}` : `the agent file ${path}`));
    return `cannot resume: ${files.join(' and ')} changed since the batch started (${state} records what they held): resuming could start rows twice or leave rows out. Put back the files the batch started with to resume it. ${startOver}`;
  }
  const file = refusal.path === resolve(cwd, out) ? out : refusal.path === resolve(cwd, state) ? state : refusal.path;
  return `cannot resume: ${file}, line ${refusal.line}: ${refusal.problem}. The state of the batch is damaged: which rows ran cannot be known. ${startOver}`;
}

function summaryText(summary: BatchSummary, out: string | undefined): string {
  const parts = [`${summary.finished} finished`];
  if (summary.failed) parts.push(`${summary.failed} failed`);
  if (summary.error) parts.push(`${summary.error} ${summary.error === 1 ? 'error' : 'errors'}`);
  if (summary.timeout) parts.push(`${summary.timeout} gave up waiting`);
  if (summary.unknown) parts.push(`${summary.unknown} unknown (possibly started)`);
  if (summary.skipped) parts.push(`${summary.skipped} skipped (bad data)`);
  const notRun = summary.total - summary.ended;
  if (notRun > 0) parts.push(`${notRun} not ended`);
  const lines = [`${summary.total} ${summary.total === 1 ? 'row' : 'rows'}: ${parts.join(', ')}`];
  const figures = [];
  if (summary.p50Ms !== undefined)
    figures.push(`duration p50 ${formatDuration(summary.p50Ms)}, p95 ${formatDuration(summary.p95Ms ?? summary.p50Ms)}`);
  figures.push(`${summary.requests} ${summary.requests === 1 ? 'request' : 'requests'}`, `${summary.throttled} throttled`);
  figures.push(`in ${formatDuration(summary.elapsedMs)}`);
  lines.push(figures.join(' · '));
  if (summary.checked)
    lines.push(
      `pass rate ${((summary.passed / summary.checked) * 100).toFixed(1)}% (${summary.passed}/${summary.checked} rows with expectations)`,
    );
  if (out) lines.push(`results: ${out}`);
  return `${lines.join('\n')}\n`;
}

function progressText(counts: BatchCounts): string {
  const rate = counts.elapsedMs > 0 ? counts.endedNow / (counts.elapsedMs / 1000) : 0;
  const left = counts.total - counts.ended;
  const parts = [`${counts.ended}/${counts.total} rows`, `${rate.toFixed(1)}/s`];
  if (rate > 0 && left > 0) parts.push(`ETA ${formatDuration((left / rate) * 1000)}`);
  parts.push(`running ${counts.running}`);
  const bad = counts.failed + counts.error + counts.timeout + counts.unknown;
  if (bad) parts.push(`failed ${bad}`);
  if (counts.skipped) parts.push(`skipped ${counts.skipped}`);
  if (counts.throttled)
    parts.push(`throttled ${counts.throttled}${counts.ratePerSecond !== undefined ? ` (now ${counts.ratePerSecond} req/s)` : ''}`);
  return parts.join(' · ');
}

/** The command that goes on with this batch: the same flags, with --resume. */
function resumeCommand(path: string, flags: BatchFlags): string {
  const args = ['agent-workflows', 'batch', path, '--data', flags.data, '--out', flags.out ?? ''];
  if (flags.state) args.push('--state', flags.state);
  if (flags.local) args.push('--local');
  for (const [flag, value] of [
    ['--concurrency', flags.concurrency],
    ['--rate', flags.rate],
    ['--limit', flags.limit],
    ['--timeout', flags.timeout],
    ['--give-up-after', flags.giveUpAfter],
    ['--base-url', flags.baseUrl],
    ['--account', flags.account],
    ['--agent', flags.agent],
    ['--status-path', flags.statusPath === DEFAULT_STATUS_PATH ? undefined : flags.statusPath],
    // The same environment: a resume must poll the service the batch started on.
    ['--env', flags.env],
    ['--envs-file', flags.envsFile],
  ] as const)
    if (value !== undefined) args.push(flag, value);
  for (const pair of flags.map) args.push('--map', pair);
  for (const folder of flags.allowFilesFrom ?? []) args.push('--allow-files-from', folder);
  if (flags.expect !== undefined) args.push('--expect', flags.expect);
  if (flags.allowInsecureHttp) args.push('--allow-insecure-http');
  if (flags.strictColumns) args.push('--strict-columns');
  if (flags.yes) args.push('--yes');
  args.push('--resume');
  return args.map(shellQuote).join(' ');
}

/**
 * The output expectations of an --expect test file (*.agent.test.yaml): its one case's
 * expect.outputs, checked against every row. The file must test this agent.
 */
function expectFile(testFile: string, agentFile: string): ReadonlyMap<string, Matcher> {
  const loaded = loadSuite(testFile);
  if ('message' in loaded) throw new CliError(`--expect ${testFile}: ${loaded.message}`, ExitCode.usage);
  if (resolve(loaded.agentFile) !== agentFile)
    throw new CliError(`--expect ${testFile} tests ${loaded.agentFile}, not ${agentFile}.`, ExitCode.usage);
  const outputs = loaded.suite.cases.length === 1 ? loaded.suite.cases[0]!.expect.outputs : undefined;
  if (!outputs?.size)
    throw new CliError(
      `--expect ${testFile} must have exactly one case with expect.outputs: its expectations apply to every row (it has ${loaded.suite.cases.length} ${loaded.suite.cases.length === 1 ? 'case' : 'cases'}).`,
      ExitCode.usage,
    );
  return outputs;
}
