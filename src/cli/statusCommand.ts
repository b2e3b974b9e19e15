// `agent-workflows status <executionId>`: one status read, or with --wait a poll to the end.
import { getStatus } from '../core/service/agentClient';
import { IN_PROGRESS_STATUSES } from '../core/service/poller';
import { ServiceError } from '../core/service/serviceError';
import { checkExecutionId } from '../core/service/target';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { selectedEnvironment } from './environmentOptions';
import type { EnvironmentFlags } from './environmentOptions';
import { apiKeyFrom, exitCodeFor, makeTarget, timeoutMs } from './serviceOptions';
import type { ServiceFlags } from './serviceOptions';
import { watchExecution } from './watch';

export interface StatusFlags extends ServiceFlags, EnvironmentFlags {
  readonly wait?: boolean;
}

export async function statusCommand(executionId: string, flags: StatusFlags, io: CliIo): Promise<number> {
  try {
    checkExecutionId(executionId);
  } catch (error) {
    throw new CliError((error as Error).message, ExitCode.usage);
  }
  // Reading a status runs nothing: a protected environment needs no confirmation here.
  const environment = flags.baseUrl && flags.account && !flags.env ? undefined : await selectedEnvironment(flags, io.cwd, io);
  const baseUrl = flags.baseUrl ?? environment?.declaration.baseUrl;
  const account = flags.account ?? environment?.declaration.account;
  if (!baseUrl || !account)
    throw new CliError(
      'status needs --base-url and --account (as shown in the Agents tab), or --env with an environment of agent-workflows.yaml.',
      ExitCode.usage,
    );
  const limit = timeoutMs(flags, 30 * 60);
  const target = makeTarget(
    { baseUrl, account, agent: flags.agent ?? '', statusPath: environment?.declaration.statusPath },
    flags,
    apiKeyFrom(io),
  );
  if (flags.wait) return watchExecution(io, target, executionId, { timeoutMs: limit, json: flags.json ?? false });
  try {
    const answer = await getStatus(target, executionId, io.interrupt ? { signal: io.interrupt } : {});
    io.stdout(
      flags.json
        ? `${JSON.stringify({ executionId, status: answer.status, outputs: answer.outputs ?? null })}\n`
        : `${answer.status}\n${answer.outputs !== undefined ? `${JSON.stringify(answer.outputs, null, 2)}\n` : ''}`,
    );
    const status = answer.status.trim().toLowerCase();
    if (status === 'finished' || IN_PROGRESS_STATUSES.has(status)) return ExitCode.ok;
    if (!flags.json) io.stderr(`Execution ${executionId} ended with status "${answer.status}":\n${JSON.stringify(answer.body, null, 2)}\n`);
    return ExitCode.problems;
  } catch (error) {
    if (error instanceof ServiceError) {
      io.stderr(`agent-workflows: ${error.message}\n`);
      return exitCodeFor(error);
    }
    throw error;
  }
}
