// `agent-workflows validate <file or folder…>`: checks agent files, agent test files and environments
// files, each as its kind (the codes the editor shows), like a compiler, and exits 1 on errors. An
// agent file's environment overrides are checked against the environments file that `run` would
// use (which is listed too when it has problems).
import { dirname, resolve } from 'node:path';
import { undecodedFileProblems } from '../core/document/parse';
import { loadSuiteFromText } from '../core/testing/loadSuite';
import { countProblems, validateAgentText } from '../core/validation/validate';
import type { EnvironmentChecks } from '../core/validation/validate';
import type { Problem } from '../core/document/problems';
import { readTextFile } from '../core/document/readTextFile';
import { environmentChecks, parseEnvironmentsFile } from '../core/environments/environmentsFile';
import { environmentsSearch, findEnvironmentsFile } from '../core/environments/resolveEnvironment';
import { MAX_ENVIRONMENTS_FILE_BYTES } from '../core/limits';
import { CHECKED_FILES, displayPath, expandPaths, fileKindOf, readAgentFile } from './agentFiles';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { annotationLines, problemAnnotations, stepSummaryMarkdown } from '../core/reports/github';
import type { Annotation } from '../core/reports/github';
import { appendStepSummary, chosenReporters, ciRedactor, workspaceFile, writeReportFile } from './reporters';

export type ValidateFormat = 'text' | 'json';
export type ValidateReporter = ValidateFormat | 'github';
const VALIDATE_REPORTERS: readonly ValidateReporter[] = ['text', 'json', 'github'];

interface FileReport {
  readonly file: string;
  readonly problems?: readonly Problem[];
  /** Why the file could not be read (missing, a directory, no permission). */
  readonly error?: string;
  /** For a test file whose agent has errors of its own: what they are (the test file cannot run). */
  readonly agentError?: string;
}

export async function validateCommand(
  paths: readonly string[],
  format: ValidateFormat,
  io: CliIo,
  /** --reporter TYPE or TYPE:FILE (none: --format, and github on GitHub Actions). */
  reporterValues: readonly string[] = [],
  formatGiven = false,
): Promise<number> {
  if (formatGiven && reporterValues.length)
    throw new CliError(`--format ${format} and --reporter both choose the output: give --reporter ${format} instead.`, ExitCode.usage);
  const reporters = chosenReporters(reporterValues, { known: VALIDATE_REPORTERS, fallback: [format] }, io);
  const { files, errors } = await expandPaths(paths, io.cwd, CHECKED_FILES);
  const reports: FileReport[] = errors.map(({ file, error }) => ({ file, error }));
  // An environments file checked in its own right is not listed again as an agent file's.
  const environments = new EnvironmentsFiles(io.cwd, new Set(files.map((file) => resolve(io.cwd, file))));
  for (const file of files) {
    const kind = fileKindOf(file);
    const read = await readAgentFile(file, io.cwd, kind);
    if ('text' in read && kind === 'test') reports.push(await checkTestFile(file, read.text, io.cwd));
    else if ('text' in read && kind === 'environments') reports.push({ file, problems: parseEnvironmentsFile(read.text).problems });
    else if ('text' in read) {
      const { checks, report } = await environments.of(dirname(resolve(io.cwd, file)));
      if (report) reports.push(report);
      reports.push({ file, problems: validateAgentText(read.text, checks ? { environments: checks } : {}).problems });
    }
    // Read, but binary or too large: a problem of the file (as the editor shows it), not a failure to read.
    else if (read.code && read.reason) reports.push({ file, problems: undecodedFileProblems({ error: read.reason, code: read.code }) });
    else reports.push(read);
  }

  const unreadable = reports.filter((report) => report.error !== undefined);
  const problems = reports.flatMap((report) => report.problems ?? []);
  const counts = countProblems(problems);
  // A test file whose agent has errors cannot run: one error of that file.
  counts.errors += reports.filter((report) => report.agentError !== undefined).length;
  for (const choice of reporters) {
    if (choice.type === 'github') continue;
    const text = choice.type === 'json' ? `${JSON.stringify({ files: reports.map(toJson) }, null, 2)}\n` : textReport(reports);
    if (choice.file === undefined) io.stdout(text);
    else await writeReportFile(choice.file, text, io);
  }
  for (const report of unreadable) io.stderr(`agent-workflows: ${report.error}\n`);
  const checked = reports.length - unreadable.length;
  io.stderr(
    `${checked} ${checked === 1 ? 'file' : 'files'} checked: ${plural(counts.errors, 'error')}, ${plural(counts.warnings, 'warning')}, ${plural(counts.infos, 'info')}${unreadable.length ? `; ${unreadable.length} could not be read` : ''}.\n`,
  );
  if (reporters.some((choice) => choice.type === 'github')) await githubReport(reports, counts, io);
  if (unreadable.length > 0) return ExitCode.usage;
  return counts.errors > 0 ? ExitCode.problems : ExitCode.ok;
}

function textReport(reports: readonly FileReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    for (const problem of report.problems ?? [])
      lines.push(`${report.file}:${problem.range.line}:${problem.range.column}: ${problem.severity} ${problem.code} ${problem.message}\n`);
    if (report.agentError !== undefined) lines.push(`${report.file}: error ${report.agentError}\n`);
  }
  return lines.join('');
}

/** GitHub's annotations (errors and warnings, the code as title) on standard error, and the step summary. */
async function githubReport(reports: readonly FileReport[], counts: ReturnType<typeof countProblems>, io: CliIo): Promise<void> {
  const annotations: Annotation[] = [];
  for (const report of reports) {
    annotations.push(...problemAnnotations(report.file, report.problems ?? []));
    if (report.agentError !== undefined)
      annotations.push({ level: 'error', file: report.file, title: 'agent has errors', message: report.agentError });
    if (report.error !== undefined) annotations.push({ level: 'error', file: report.file, title: 'unreadable', message: report.error });
  }
  const redactor = ciRedactor(io);
  const fileOf = workspaceFile(io);
  io.stderr(annotationLines(annotations, { redactor, fileOf }));
  const listed = annotations.filter((annotation) => annotation.level === 'error' || annotation.level === 'warning');
  await appendStepSummary(
    stepSummaryMarkdown(
      {
        title: `agent-workflows validate: ${counts.errors ? `❌ ${counts.errors} ${counts.errors === 1 ? 'error' : 'errors'}` : '✅ no errors'}`,
        totals: [
          ['files', reports.length],
          ['errors', counts.errors],
          ['warnings', counts.warnings],
          ['infos', counts.infos],
        ],
        tables: [
          {
            heading: 'Problems',
            columns: ['where', 'severity', 'code', 'message'],
            rows: listed.map((annotation) => [
              `${annotation.file !== undefined ? fileOf(annotation.file) : ''}${annotation.line !== undefined ? `:${annotation.line}:${annotation.column ?? 1}` : ''}`,
              annotation.level,
              annotation.title ?? '',
              annotation.message,
            ]),
          },
        ],
      },
      { redactor },
    ),
    io,
  );
}

/**
 * A test file checked as `agent-workflows test` reads it: its own problems, those of the names it
 * uses against its agent (an agent that cannot be read among them), and whether that agent has errors.
 */
async function checkTestFile(file: string, text: string, cwd: string): Promise<FileReport> {
  const loaded = loadSuiteFromText(resolve(cwd, file), text);
  const ownErrors = loaded.problems.some((problem) => problem.severity === 'error');
  // Without errors of its own, a test file that cannot run has an agent with errors.
  return { file, problems: loaded.problems, ...(!('suite' in loaded) && !ownErrors ? { agentError: loaded.message } : {}) };
}

/** The environments file of an agent file, as run finds it (see loadEnvironments), each read once. */
class EnvironmentsFiles {
  private readonly byFolder = new Map<string, Promise<string | undefined>>();
  private readonly byFile = new Map<string, Promise<{ checks?: EnvironmentChecks; report?: FileReport }>>();

  constructor(
    private readonly cwd: string,
    /** Files checked in their own right: their problems are listed there. */
    private readonly checked: ReadonlySet<string>,
  ) {}

  /** Its checks when it has no errors; a report of its own the first time it is found with problems or unreadable. */
  async of(folder: string): Promise<{ checks?: EnvironmentChecks; report?: FileReport }> {
    let located = this.byFolder.get(folder);
    if (!located) {
      located = environmentsSearch(folder, this.cwd).then((search) => findEnvironmentsFile(search.startDir, search.stopDir));
      this.byFolder.set(folder, located);
    }
    const path = await located;
    if (path === undefined) return {};
    const known = this.byFile.get(path);
    if (known) {
      const { checks } = await known;
      return checks ? { checks } : {};
    }
    const read = this.read(path);
    this.byFile.set(path, read);
    return read;
  }

  private async read(path: string): Promise<{ checks?: EnvironmentChecks; report?: FileReport }> {
    const file = displayPath(path, this.cwd);
    const listed = !this.checked.has(path);
    const text = await readTextFile(path, { maxBytes: MAX_ENVIRONMENTS_FILE_BYTES, kind: 'environments' });
    if ('error' in text) return listed ? { report: { file, error: `The environments file ${file}: ${text.error}` } } : {};
    const parsed = parseEnvironmentsFile(text.text);
    return {
      ...(parsed.file ? { checks: environmentChecks(parsed.file) } : {}),
      ...(parsed.problems.length && listed ? { report: { file, problems: parsed.problems } } : {}),
    };
  }
}

function toJson(report: FileReport): object {
  if (report.error !== undefined) return { file: report.file, error: report.error, problems: [] };
  return {
    file: report.file,
    ...(report.agentError !== undefined ? { agentError: report.agentError } : {}),
    problems: (report.problems ?? []).map((problem) => ({
      line: problem.range.line,
      column: problem.range.column,
      endLine: problem.range.endLine,
      endColumn: problem.range.endColumn,
      severity: problem.severity,
      code: problem.code,
      message: problem.message,
    })),
  };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
