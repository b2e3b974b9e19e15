// `agent-workflows run <file>`: validates the agent, checks the inputs against its declarations,
// starts it (multipart when there are files) and, unless --no-wait, polls it to the end. With
// --local, runs it on this machine with the workflow engine instead.
import { dirname, resolve } from 'node:path';
import { startAgent } from '../core/service/agentClient';
import { InputError, prepareInputs } from '../core/inputs/inputValues';
import { ServiceError } from '../core/service/serviceError';
import { readRunnableAgentFile } from './agentFiles';
import { formatBytes } from '../core/executions/executionRecord';
import { INPUT_FLAG_HINTS, pairs } from './flagValues';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { confirmEnvironment, replacedBaseUrlNote, selectedEnvironment } from './environmentOptions';
import type { EnvironmentFlags } from './environmentOptions';
import { apiKeyFrom, deploymentTarget, exitCodeFor, rejectWithLocal, timeoutMs } from './serviceOptions';
import type { ServiceFlags } from './serviceOptions';
import { runLocally } from './runLocalCommand';
import { watchExecution } from './watch';

export interface RunFlags extends ServiceFlags, EnvironmentFlags {
  readonly input: readonly string[];
  readonly file: readonly string[];
  /** commander's --no-wait sets wait to false. */
  readonly wait: boolean;
  /** Run on this machine with the workflow engine instead of the service. */
  readonly local?: boolean;
  /** With --local: each exchange on stderr, as `curl -v` prints it. */
  readonly verbose?: boolean;
}

export async function runCommand(path: string, flags: RunFlags, io: CliIo): Promise<number> {
  const read = await readRunnableAgentFile(path, io);
  const { model } = read;

  if (flags.local) {
    rejectWithLocal(flags, 'the file', { '--no-wait': !flags.wait });
    return runLocally(
      path,
      read.text,
      givenInputs(flags, io.cwd),
      {
        timeoutMs: timeoutMs(flags, 30 * 60),
        json: flags.json ?? false,
        inputHints: INPUT_FLAG_HINTS,
        verbose: flags.verbose ?? false,
      },
      io,
    );
  }
  // The service's status answer carries no exchange to print.
  if (flags.verbose) throw new CliError('--verbose prints the exchanges of a run on this machine: use it with --local.', ExitCode.usage);

  let prepared;
  try {
    prepared = prepareInputs(model, givenInputs(flags, io.cwd), INPUT_FLAG_HINTS);
  } catch (error) {
    if (error instanceof InputError) throw new CliError(error.problems.join('\n'), ExitCode.usage);
    throw error;
  }

  const limit = timeoutMs(flags, 30 * 60);
  const environment = await selectedEnvironment(flags, dirname(resolve(io.cwd, path)), io);
  const target = deploymentTarget(model, flags, apiKeyFrom(io), undefined, environment);
  const replaced = replacedBaseUrlNote(model, environment, flags.baseUrl);
  if (replaced) io.stderr(`agent-workflows: ${replaced}\n`);
  // Last before the start: nothing is asked about a run that could not start anyway.
  await confirmEnvironment(environment, target, flags, io);
  // --timeout covers the whole run: the start request as well as the wait.
  const deadline = Date.now() + limit;

  let executionId: string;
  try {
    const options = { limitMs: limit, ...(io.interrupt ? { signal: io.interrupt } : {}) };
    const started = await startAgent(target, prepared, options);
    executionId = started.executionId;
    const files = Object.entries(started.fileSizes ?? {}).map(([name, size]) => `${name} (${formatBytes(size)})`);
    io.stderr(
      `started ${model.name ?? path}${environment ? ` in ${environment.name}` : ''} as execution ${executionId}${files.length ? ` with ${files.join(', ')}` : ''}\n`,
    );
  } catch (error) {
    if (error instanceof ServiceError) {
      io.stderr(`agent-workflows: ${error.message}\n`);
      // The request's own limit was the run's: say which limit ran out (setTimeout may fire a little early).
      if (error.kind === 'timeout' && Date.now() >= deadline - 50)
        io.stderr(`agent-workflows: the run's time limit (--timeout ${limit / 1000}) ran out while starting the agent.\n`);
      return exitCodeFor(error);
    }
    throw error;
  }

  if (!flags.wait) {
    // Only the start is known: whether it is running or still queued, a status read would tell.
    io.stdout(flags.json ? `${JSON.stringify({ executionId, status: 'started', outputs: null })}\n` : `${executionId}\n`);
    return ExitCode.ok;
  }
  return watchExecution(io, target, executionId, { timeoutMs: Math.max(1, deadline - Date.now()), json: flags.json ?? false });
}
/** The --input and --file values, the files' paths resolved against the current folder. */
function givenInputs(flags: RunFlags, cwd: string): { values: Record<string, string>; files: Record<string, string> } {
  const values = pairs(flags.input, '--input', 'NAME=VALUE');
  const files = pairs(flags.file, '--file', 'NAME=PATH');
  return {
    values: Object.fromEntries(values),
    files: Object.fromEntries([...files].map(([name, path]) => [name, resolve(cwd, path)])),
  };
}
