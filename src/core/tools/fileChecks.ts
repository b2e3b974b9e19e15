// A file checked for an assistant's tool: an agent file, an agent test file or an environments file,
// its problems as facts (code, severity, place, message, the titles of their quick fixes) and the
// short text that lists them. The MCP server's and VS Code's validate tools answer these.
import { AGENT_FILE_ANY_CASE } from '../document/agentFiles';
import type { Problem } from '../document/problems';
import { readTextFile } from '../document/readTextFile';
import { ENVIRONMENTS_FILE_NAME, parseEnvironmentsFile } from '../environments/environmentsFile';
import { quickFixes } from '../language/quickFixes';
import { loadSuite } from '../testing/suite';
import { validateAgentText } from '../validation/validate';
import { ToolCallError } from './toolArguments';

/** A file's problems as a tool answers them: code, severity, line, message and the titles of its fixes. */
export function problemFacts(text: string | undefined, problems: readonly Problem[]): Record<string, unknown>[] {
  return problems.map((problem) => {
    const fixes = text !== undefined ? quickFixes(text, problem).map((fix) => fix.title) : [];
    return {
      code: problem.code,
      severity: problem.severity,
      line: problem.range.line,
      column: problem.range.column,
      message: problem.message,
      ...(fixes.length ? { fixes } : {}),
    };
  });
}

/** A checked file: its problems as facts and the text listing them. */
export interface CheckedFile {
  readonly text: string;
  readonly facts: { readonly file: string; readonly errors: number; readonly problems: Record<string, unknown>[] };
}

/** Checks the file at `path` (shown as `shown`) by its kind; a ToolCallError for any other file. */
export async function checkFile(path: string, shown: string): Promise<CheckedFile> {
  let problems: Record<string, unknown>[];
  if (/\.agent\.test\.ya?ml$/i.test(path)) {
    const loaded = loadSuite(path);
    problems = problemFacts(undefined, loaded.problems);
    if (!('suite' in loaded) && !loaded.problems.some((problem) => problem.severity === 'error'))
      problems.push({ severity: 'error', message: loaded.message });
  } else {
    const read = await readTextFile(path, { kind: path.endsWith(ENVIRONMENTS_FILE_NAME) ? 'environments' : 'agent' });
    if ('error' in read) throw new ToolCallError(`${shown}: ${read.error}`);
    if (path.endsWith(ENVIRONMENTS_FILE_NAME)) problems = problemFacts(undefined, parseEnvironmentsFile(read.text).problems);
    else if (AGENT_FILE_ANY_CASE.test(path)) problems = problemFacts(read.text, validateAgentText(read.text).problems);
    else
      throw new ToolCallError(
        `${shown} is not an agent file (.agent.yaml), an agent test file (.agent.test.yaml) or ${ENVIRONMENTS_FILE_NAME}.`,
      );
  }
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  const lines = problems.map(
    (problem) =>
      `${shown}:${String(problem.line ?? '')}: ${String(problem.severity)} ${String(problem.code ?? '')} ${String(problem.message)}${Array.isArray(problem.fixes) ? ` (fix: ${problem.fixes.join('; ')})` : ''}`,
  );
  return {
    text: `${shown}: ${problems.length ? `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}, ${errors} ${errors === 1 ? 'error' : 'errors'}` : 'no problems'}${lines.length ? `\n${lines.join('\n')}` : ''}`,
    facts: { file: shown, errors, problems },
  };
}
