// `agent-workflows validate <file…>`: checks agent files like a compiler and exits 1 on errors.
import { undecodedFileProblems } from '../core/document/parse';
import { countProblems, validateAgentText } from '../core/validation/validate';
import type { Problem } from '../core/document/problems';
import { expandPaths, readAgentFile } from './agentFiles';
import { ExitCode } from './io';
import type { CliIo } from './io';

export type ValidateFormat = 'text' | 'json';

interface FileReport {
  readonly file: string;
  readonly problems?: readonly Problem[];
  /** Why the file could not be read (missing, a directory, no permission). */
  readonly error?: string;
}

export async function validateCommand(paths: readonly string[], format: ValidateFormat, io: CliIo): Promise<number> {
  const { files, errors } = await expandPaths(paths, io.cwd);
  const reports: FileReport[] = errors.map(({ file, error }) => ({ file, error }));
  for (const file of files) {
    const read = await readAgentFile(file, io.cwd);
    if ('text' in read) reports.push({ file, problems: validateAgentText(read.text).problems });
    // Read, but binary or too large: a problem of the file (as the editor shows it), not a failure to read.
    else if (read.code && read.reason) reports.push({ file, problems: undecodedFileProblems({ error: read.reason, code: read.code }) });
    else reports.push(read);
  }

  const unreadable = reports.filter((report) => report.error !== undefined);
  const problems = reports.flatMap((report) => report.problems ?? []);
  const counts = countProblems(problems);
  if (format === 'json') {
    io.stdout(`${JSON.stringify({ files: reports.map(toJson) }, null, 2)}\n`);
  } else {
    for (const report of reports) {
      for (const problem of report.problems ?? []) {
        io.stdout(`${report.file}:${problem.range.line}:${problem.range.column}: ${problem.severity} ${problem.code} ${problem.message}\n`);
      }
    }
  }
  for (const report of unreadable) io.stderr(`agent-workflows: ${report.error}\n`);
  const checked = reports.length - unreadable.length;
  io.stderr(
    `${checked} ${checked === 1 ? 'file' : 'files'} checked: ${plural(counts.errors, 'error')}, ${plural(counts.warnings, 'warning')}, ${plural(counts.infos, 'info')}${unreadable.length ? `; ${unreadable.length} could not be read` : ''}.\n`,
  );
  if (unreadable.length > 0) return ExitCode.usage;
  return counts.errors > 0 ? ExitCode.problems : ExitCode.ok;
}

function toJson(report: FileReport): object {
  if (report.error !== undefined) return { file: report.file, error: report.error, problems: [] };
  return {
    file: report.file,
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
