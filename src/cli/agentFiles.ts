// Finding and reading agent files (and agent test files) named on the command line.
import { stat } from 'node:fs/promises';
import { basename, relative, resolve } from 'node:path';
import { AGENT_FILE, findFilesUnder } from '../core/document/agentFiles';
import { fileKindOfName } from '../core/document/fileKind';
import type { ParsedFileKind } from '../core/document/parse';
import { ENVIRONMENTS_FILE_NAME } from '../core/environments/environmentsFileName';
import { TEST_FILE } from '../core/testing/testFileName';
import { fileErrorReason, readTextFile } from '../core/document/readTextFile';
import type { AgentModel } from '../core/document/model';
import { MAX_ENVIRONMENTS_FILE_BYTES } from '../core/limits';
import { validateAgentText } from '../core/validation/validate';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';

/** Files a command looks for in a directory: their names, and how a message says so. */
export interface FileKind {
  readonly pattern: RegExp;
  readonly description: string;
}

export const AGENT_FILES: FileKind = { pattern: AGENT_FILE, description: '*.agent.yaml or *.agent.yml files' };

/** What `validate` checks in a folder: agent files, agent test files and environments files. */
export const CHECKED_FILES: FileKind = {
  pattern: new RegExp(`(${AGENT_FILE.source})|(${TEST_FILE.source})|^${ENVIRONMENTS_FILE_NAME.replace(/\./g, '\\.')}$`),
  description: `agent, agent test or environments files (*.agent.yaml, *.agent.test.yaml, ${ENVIRONMENTS_FILE_NAME})`,
};

/** Which kind of file a path names, by its name alone (an agent file unless it is one of the others). */
export function fileKindOf(file: string): ParsedFileKind {
  return fileKindOfName(basename(file)) ?? 'agent';
}

/** A file's text, or why it cannot be used; `code` names a file that was read but is not an agent's text. */
export type ReadResult =
  | { file: string; text: string }
  | {
      file: string;
      error: string;
      /** For a file that was read but is not an agent's text: why, and the reason in words (without the file). */
      code?: 'file-too-large' | 'not-text';
      reason?: string;
    };

/**
 * Expands the arguments: files as given, directories to every file of the kind below them.
 * Returns the files in order and the arguments that could not be used.
 */
export async function expandPaths(
  args: readonly string[],
  cwd: string,
  kind: FileKind = AGENT_FILES,
): Promise<{ files: string[]; errors: { file: string; error: string }[] }> {
  const files: string[] = [];
  const errors: { file: string; error: string }[] = [];
  for (const arg of args) {
    const absolute = resolve(cwd, arg);
    let info;
    try {
      info = await stat(absolute);
    } catch (error) {
      errors.push({ file: arg, error: describeFsError(error, arg) });
      continue;
    }
    if (info.isDirectory()) {
      const found = await findFilesUnder(absolute, kind.pattern, (skipped, reason) =>
        errors.push({ file: displayPath(skipped, cwd), error: `${displayPath(skipped, cwd)}: ${reason} Its files are left out.` }),
      );
      if (found.length === 0) errors.push({ file: arg, error: `${arg}: no ${kind.description} in this directory.` });
      for (const file of found) files.push(displayPath(file, cwd));
    } else {
      files.push(arg);
    }
  }
  return { files, errors };
}

/** An agent file's text (or, with kind 'test', a test file's: its problems name test files); only a regular file of at most MAX_FILE_BYTES is read (see readTextFile). */
export async function readAgentFile(file: string, cwd: string, kind: ParsedFileKind = 'agent'): Promise<ReadResult> {
  const read = await readTextFile(resolve(cwd, file), kind === 'environments' ? { kind, maxBytes: MAX_ENVIRONMENTS_FILE_BYTES } : { kind });
  if ('text' in read) return { file, text: read.text };
  return read.code === 'file-too-large' || read.code === 'not-text'
    ? { file, error: `${file}: ${read.error}`, code: read.code, reason: read.error }
    : { file, error: `${file}: ${read.error}` };
}

/** A path as messages show it: relative to cwd when inside it ('.' for cwd itself), else as given. */
export function displayPath(file: string, cwd: string): string {
  const relativePath = relative(cwd, file);
  return relativePath === '' ? '.' : relativePath.startsWith('..') ? file : relativePath;
}

export function describeFsError(error: unknown, file: string): string {
  return `${file}: ${fileErrorReason(error)}`;
}

/**
 * An agent file read and checked before it runs (run, batch): its text and model, or a usage error
 * after printing each error at its line.
 */
export async function readRunnableAgentFile(file: string, io: CliIo): Promise<{ text: string; model: AgentModel }> {
  const read = await readAgentFile(file, io.cwd);
  if ('error' in read) throw new CliError(read.error, ExitCode.usage);
  const { problems, model } = validateAgentText(read.text);
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.length || !model) {
    for (const problem of errors)
      io.stderr(`${file}:${problem.range.line}:${problem.range.column}: error ${problem.code} ${problem.message}\n`);
    throw new CliError(
      `${file} has ${errors.length} ${errors.length === 1 ? 'error' : 'errors'}; fix ${errors.length === 1 ? 'it' : 'them'} before running (agent-workflows validate ${file}).`,
      ExitCode.usage,
    );
  }
  return { text: read.text, model };
}
