// Environments on the command line, in one place for every command that reaches a deployment
// (run, status, test --deployed, batch): --env and AGENT_WORKFLOWS_ENV, the environments file
// (--envs-file, else agent-workflows.yaml found walking up from the agent file or the current
// folder, no higher than the repository root), its problems as a usage error, the confirmation a
// protected environment needs, and the note when an environment replaces an agent's own base URL.
import { resolve } from 'node:path';
import { readTextFile } from '../core/document/readTextFile';
import { displayOrigin, ENVIRONMENTS_FILE_NAME, parseEnvironmentsFile } from '../core/environments/environmentsFile';
import type { EnvironmentsFile } from '../core/environments/environmentsFile';
import { environmentsSearch, findEnvironmentsFile, replacedBaseUrl, selectEnvironment } from '../core/environments/resolveEnvironment';
import type { EnvironmentsSearch, SelectedEnvironment } from '../core/environments/resolveEnvironment';
import { errorMessage } from '../core/errors';
import { MAX_ENVIRONMENTS_FILE_BYTES } from '../core/limits';
import { displayPath } from './agentFiles';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import type { AgentModel } from '../core/document/model';

/** The environment variable that names the environment when --env does not (the "setting" level). */
export const ENVIRONMENT_ENV = 'AGENT_WORKFLOWS_ENV';

export interface EnvironmentFlags {
  /** --env NAME. */
  readonly env?: string;
  /** --envs-file PATH: the environments file, instead of looking for agent-workflows.yaml. */
  readonly envsFile?: string;
  /** --yes: run against a protected environment without asking. */
  readonly yes?: boolean;
}

export interface LoadedEnvironments {
  /** The file that was read, as shown in messages; undefined when there is none. */
  readonly path?: string;
  readonly file?: EnvironmentsFile;
  /** Where the file was looked for, for messages when there is none. */
  readonly where: string;
}

/**
 * Reads the environments file: --envs-file (relative to the current folder), else the nearest
 * agent-workflows.yaml walking up from startDir to the repository root or the current folder (see
 * environmentsSearch). A file with errors is a usage error that prints its problems as
 * file:line:col; its warnings are printed and the file is used.
 */
export async function loadEnvironments(flags: EnvironmentFlags, startDir: string, io: CliIo): Promise<LoadedEnvironments> {
  let absolute: string | undefined;
  let where: string;
  if (flags.envsFile !== undefined) {
    absolute = resolve(io.cwd, flags.envsFile);
    where = flags.envsFile;
  } else {
    const search = await environmentsSearch(startDir, io.cwd);
    absolute = await findEnvironmentsFile(search.startDir, search.stopDir);
    where = describeSearch(search, io.cwd);
  }
  if (absolute === undefined) return { where };
  const path = flags.envsFile ?? displayPath(absolute, io.cwd);
  // Not read at all when too large (nor when not a regular file): the limit holds for the bytes read, not only for parsing.
  const read = await readTextFile(absolute, { maxBytes: MAX_ENVIRONMENTS_FILE_BYTES, kind: 'environments' });
  if ('error' in read) throw new CliError(`The environments file ${path}: ${read.error}`, ExitCode.usage);
  const { text } = read;
  const { file, problems } = parseEnvironmentsFile(text);
  for (const problem of problems)
    io.stderr(`${path}:${problem.range.line}:${problem.range.column}: ${problem.severity} ${problem.code} ${problem.message}\n`);
  if (!file) {
    const errors = problems.filter((problem) => problem.severity === 'error').length;
    throw new CliError(
      `The environments file ${path} has ${errors} ${errors === 1 ? 'error' : 'errors'}; fix ${errors === 1 ? 'it' : 'them'} (nothing runs with a broken environments file).`,
      ExitCode.usage,
    );
  }
  return { path, file, where };
}

/** Where the environments file was looked for, in words: "agent-workflows.yaml in agents and its parent folders up to …". */
function describeSearch(search: EnvironmentsSearch, cwd: string): string {
  const start = displayPath(search.startDir, cwd);
  const stop = displayPath(search.stopDir, cwd);
  const boundary = search.bound === 'repository' ? 'the repository root' : 'the current folder';
  if (search.bound === 'own-folder')
    return `${ENVIRONMENTS_FILE_NAME} in ${start} only (it is outside the current folder and any repository)`;
  if (search.startDir === search.stopDir) return `${ENVIRONMENTS_FILE_NAME} in ${start} (${boundary})`;
  return `${ENVIRONMENTS_FILE_NAME} in ${start} and its parent folders up to ${boundary}, ${stop}`;
}

/**
 * The environment a command uses: --env, else AGENT_WORKFLOWS_ENV, else the file's default, else
 * none (the agent file's deployment block, as without environments). Unknown names are usage errors.
 */
export async function selectedEnvironment(flags: EnvironmentFlags, startDir: string, io: CliIo): Promise<SelectedEnvironment | undefined> {
  const loaded = await loadEnvironments(flags, startDir, io);
  try {
    return selectEnvironment(
      loaded.file,
      { flag: flags.env, setting: io.env[ENVIRONMENT_ENV] },
      { where: loaded.where, ...(loaded.path !== undefined ? { fileName: loaded.path } : {}) },
    );
  } catch (error) {
    const fromVariable = !flags.env?.trim() && io.env[ENVIRONMENT_ENV]?.trim();
    throw new CliError(`${errorMessage(error)}${fromVariable ? ` (named by ${ENVIRONMENT_ENV})` : ''}`, ExitCode.usage);
  }
}

/**
 * A protected environment is used only when confirmed: --yes, or "y" to the question when the
 * command line is interactive. Otherwise a usage error. Both name the environment with the origin
 * and account the run actually goes to (`target`: flags and the agent's override included).
 */
export async function confirmEnvironment(
  environment: SelectedEnvironment | undefined,
  target: { readonly baseUrl: string; readonly account: string },
  flags: EnvironmentFlags,
  io: CliIo,
): Promise<void> {
  if (!environment?.declaration.protected || flags.yes) return;
  const { name } = environment;
  const place = `${displayOrigin(target.baseUrl)}, account ${target.account}`;
  if (io.confirm) {
    const confirmed = await io.confirm(`Environment "${name}" (${place}) is protected. Run against it? [y/N] `);
    if (confirmed) return;
    throw new CliError(`Not run: environment "${name}" is protected and the run was not confirmed.`, ExitCode.usage);
  }
  throw new CliError(`Environment "${name}" (${place}) is protected: add --yes to confirm running against it.`, ExitCode.usage);
}

/**
 * The line that says an environment sends the run elsewhere than the agent file's own
 * deployment.baseUrl, with both origins and the environments file; undefined when it does not.
 */
export function replacedBaseUrlNote(
  model: AgentModel,
  environment: SelectedEnvironment | undefined,
  /** --base-url, which replaces both. */
  baseUrlFlag: string | undefined,
): string | undefined {
  const replaced = replacedBaseUrl(model, environment, baseUrlFlag);
  if (!replaced || !environment) return undefined;
  return `environment "${environment.name}" of ${environment.fileName} sends this run to ${replaced.environmentOrigin}, not to the agent file's deployment.baseUrl ${replaced.agentOrigin}`;
}
