// The reports a command writes for CI, in one place for validate, test and batch: which reporters
// were asked for (`--reporter TYPE` to standard output, `--reporter TYPE:FILE` to a file, repeatable;
// `--output FILE` for the one given without a file; `github` when GITHUB_ACTIONS is set and none
// is given), writing their files, and GitHub's annotations and step summary. The reports' text is
// made by the core (core/reports/, core/testing/report.ts, core/batch/batchReports.ts).
import { appendFile, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { writeFileAtomically } from '../core/atomicFile';
import { CompareError, describeCompareProblem } from '../core/compare/compareFiles';
import { markdownReport } from '../core/compare/compareMarkdown';
import { compareRuns } from '../core/compare/compareRuns';
import { SECRET_ENV_PREFIX } from '../core/engine/secrets';
import { printable } from '../core/printable';
import { keyRedactor } from '../core/redaction';
import type { Redactor } from '../core/redaction';
import { boundedSummary, MAX_STEP_SUMMARY_BYTES } from '../core/reports/github';
import { describeFsError } from './agentFiles';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { API_KEY_ENV } from './serviceOptions';

declare const AGENT_WORKFLOWS_VERSION: string | undefined;

/** The version CTRF's tool field names. */
export const CLI_VERSION = typeof AGENT_WORKFLOWS_VERSION === 'string' ? AGENT_WORKFLOWS_VERSION : 'development';

export interface ReporterChoice<T extends string> {
  readonly type: T;
  /** As the user gave it; none: standard output (github: annotations on standard error). */
  readonly file?: string;
}

export interface ReporterOptions<T extends string> {
  /** Every type this command writes, `github` among them. */
  readonly known: readonly T[];
  /** What is written when no --reporter is given (besides github on GitHub Actions). */
  readonly fallback: readonly T[];
  /** --output: the file of the one reporter given without a file. */
  readonly output?: string;
}

/**
 * The reporters asked for, checked: known types, a file after `TYPE:` when there is a colon, at
 * most one on standard output, no file written twice. A bad choice is a usage error.
 */
export function chosenReporters<T extends string>(values: readonly string[], options: ReporterOptions<T>, io: CliIo): ReporterChoice<T>[] {
  const known = options.known as readonly string[];
  const forms = `${known.join(', ')} (TYPE for standard output, TYPE:FILE for a file)`;
  const chosen: Array<{ type: T; file?: string }> = [];
  for (const value of values) {
    // The type is what comes before the first colon: a Windows path (junit:C:\out.xml) keeps its own.
    const colon = value.indexOf(':');
    const type = colon < 0 ? value : value.slice(0, colon);
    const file = colon < 0 ? undefined : value.slice(colon + 1);
    if (!known.includes(type))
      throw new CliError(`--reporter ${value}: there is no reporter "${type}"; the reporters are ${forms}.`, ExitCode.usage);
    if (file === '')
      throw new CliError(`--reporter ${value} names no file: give ${type}:FILE, or ${type} alone for standard output.`, ExitCode.usage);
    if (type === 'github' && file !== undefined)
      throw new CliError(
        `--reporter ${value}: github takes no file: its annotations go to standard error and its summary to the file $GITHUB_STEP_SUMMARY names.`,
        ExitCode.usage,
      );
    chosen.push({ type: type as T, ...(file !== undefined ? { file } : {}) });
  }
  if (!chosen.length) {
    chosen.push(...options.fallback.map((type) => ({ type })));
    if (io.env.GITHUB_ACTIONS === 'true' && known.includes('github') && !chosen.some((choice) => choice.type === 'github'))
      chosen.push({ type: 'github' as T });
  }
  const withoutFile = chosen.filter((choice) => choice.file === undefined && choice.type !== 'github');
  if (options.output !== undefined) {
    if (withoutFile.length !== 1)
      throw new CliError(
        withoutFile.length
          ? `--output names the file of one reporter, and ${withoutFile.map((choice) => choice.type).join(' and ')} are given without one: write each as TYPE:FILE.`
          : '--output names the file of the reporter given without one, and each --reporter has its file (or is github).',
        ExitCode.usage,
      );
    withoutFile[0]!.file = options.output;
  } else if (withoutFile.length > 1)
    throw new CliError(
      `--reporter ${withoutFile.map((choice) => choice.type).join(' and --reporter ')} would all write to standard output: give all but one a file (TYPE:FILE).`,
      ExitCode.usage,
    );
  const files = new Map<string, string>();
  for (const choice of chosen) {
    if (choice.file === undefined) continue;
    const path = resolve(io.cwd, choice.file);
    const other = files.get(path);
    if (other !== undefined)
      throw new CliError(`--reporter ${other} and ${choice.type} would both write ${choice.file}: give each its own file.`, ExitCode.usage);
    files.set(path, choice.type);
  }
  const github = chosen.filter((choice) => choice.type === 'github');
  return github.length > 1 ? chosen.filter((choice) => choice.type !== 'github').concat(github[0]!) : chosen;
}

/**
 * Writes a report to its file, whole or not at all, control characters escaped as standard output
 * shows them (viewing the file cannot retitle or clear a terminal; JSON keeps its meaning, XML its text).
 */
export async function writeReportFile(file: string, report: string, io: CliIo): Promise<void> {
  try {
    await writeFileAtomically(resolve(io.cwd, file), printable(report));
  } catch (error) {
    throw new CliError(`The report could not be written: ${describeFsError(error, file)}`, ExitCode.usage);
  }
}

/**
 * What GitHub's reports must not show: the API key and the AGENT_SECRET_ values of the
 * environment, besides what the core redacted already (a case's own secrets).
 */
export function ciRedactor(io: CliIo): Redactor {
  const redactor = keyRedactor(io.env[API_KEY_ENV]?.trim() || undefined);
  for (const [name, value] of Object.entries(io.env)) if (name.startsWith(SECRET_ENV_PREFIX) && value) redactor.add(value);
  return redactor;
}

/** A file as GitHub names it in an annotation: relative to the workspace (else the working folder), with forward slashes. */
export function workspaceFile(io: CliIo): (file: string) => string {
  const workspace = io.env.GITHUB_WORKSPACE ? resolve(io.cwd, io.env.GITHUB_WORKSPACE) : io.cwd;
  return (file) => {
    const absolute = resolve(io.cwd, file);
    const inWorkspace = relative(workspace, absolute);
    const shown = inWorkspace === '' || inWorkspace.startsWith('..') || isAbsolute(inWorkspace) ? absolute : inWorkspace;
    return shown.split(sep).join('/');
  };
}

/**
 * Appends Markdown to the step summary, the file $GITHUB_STEP_SUMMARY names (nothing without it),
 * cut so that the step's summary stays within GitHub's limit.
 */
export async function appendStepSummary(markdown: string, io: CliIo): Promise<void> {
  const path = io.env.GITHUB_STEP_SUMMARY;
  if (!path) return;
  const target = resolve(io.cwd, path);
  const used = await stat(target).then(
    (stats) => stats.size,
    () => 0,
  );
  const text = boundedSummary(markdown, MAX_STEP_SUMMARY_BYTES - used);
  if (!text) {
    io.stderr(`agent-workflows: note: the step summary ${path} is full (GitHub shows 1 MiB): nothing added\n`);
    return;
  }
  try {
    await appendFile(target, printable(text));
  } catch (error) {
    io.stderr(`agent-workflows: note: the step summary could not be written: ${describeFsError(error, path)}\n`);
  }
}

/**
 * The comparison of the previous run (`--compare-with`) with this one, as Markdown for the step
 * summary; a previous run that cannot be read is said (a first run has none), not a failure.
 */
export async function comparisonSection(previous: string, current: string, io: CliIo): Promise<string> {
  try {
    const comparison = await compareRuns(resolve(io.cwd, previous), resolve(io.cwd, current), {
      ...(io.interrupt ? { signal: io.interrupt } : {}),
    });
    return markdownReport({ ...comparison, a: { ...comparison.a, path: previous }, b: { ...comparison.b, path: current } });
  } catch (error) {
    if (!(error instanceof CompareError)) throw error;
    const why = describeCompareProblem(error.problem);
    io.stderr(`agent-workflows: note: --compare-with ${previous}: not compared: ${why}\n`);
    return `_Not compared with ${previous}: ${why}_`;
  }
}
