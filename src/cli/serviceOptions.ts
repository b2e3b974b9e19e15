// What run and status share: the API key from the environment, the target, exit codes for
// service errors, and the final output.
import { ServiceError } from '../core/service/serviceError';
import type { AgentModel } from '../core/document/model';
import { environmentDeployment } from '../core/environments/resolveEnvironment';
import type { SelectedEnvironment } from '../core/environments/resolveEnvironment';
import { checkBaseUrl, DEFAULT_STATUS_PATH, resolveDeployment } from '../core/service/target';
import type { AgentTarget } from '../core/service/target';
import type { PollOutcome } from '../core/service/poller';
import { errorMessage } from '../core/errors';
import { positiveNumber } from './flagValues';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import type { EnvironmentFlags } from './environmentOptions';
import { shellQuote } from '../core/service/curl';

export const API_KEY_ENV = 'AGENT_WORKFLOWS_API_KEY';

export interface ServiceFlags {
  readonly baseUrl?: string;
  readonly account?: string;
  readonly agent?: string;
  readonly statusPath?: string;
  readonly allowInsecureHttp?: boolean;
  readonly timeout?: string;
  readonly json?: boolean;
}

export function apiKeyFrom(io: CliIo): string {
  const key = io.env[API_KEY_ENV]?.trim();
  if (!key) {
    throw new CliError(
      `No API key: set the ${API_KEY_ENV} environment variable to the key created in the service's editor (Settings, App Token).`,
      ExitCode.auth,
    );
  }
  return key;
}

/**
 * The target of the given fields and key. The status path: --status-path, else the environment's
 * (statusPath in agent-workflows.yaml), else the default.
 */
export function makeTarget(
  fields: { baseUrl: string; account: string; agent: string; statusPath?: string | undefined },
  flags: ServiceFlags,
  apiKey: string,
): AgentTarget {
  try {
    checkBaseUrl(fields.baseUrl, flags.allowInsecureHttp);
  } catch (error) {
    throw new CliError(
      `${(error as Error).message}${/clear text/.test((error as Error).message) ? ' (--allow-insecure-http)' : ''}`,
      ExitCode.usage,
    );
  }
  return {
    baseUrl: fields.baseUrl,
    account: fields.account,
    agent: fields.agent,
    apiKey,
    statusPathTemplate: flags.statusPath ?? fields.statusPath ?? DEFAULT_STATUS_PATH,
    allowInsecureHttp: flags.allowInsecureHttp ?? false,
  };
}

/**
 * Where an agent is deployed, with the key: the flags first, then, in the selected environment (see
 * environmentOptions.ts), the agent's override for it and the environment itself, then the agent
 * file's deployment block. `source` names the file in the message when none says (e.g. a test
 * file's agent).
 */
export function deploymentTarget(
  model: AgentModel,
  flags: ServiceFlags,
  apiKey: string,
  source?: string,
  environment?: SelectedEnvironment,
): AgentTarget {
  let deployed;
  let fields;
  try {
    deployed = environmentDeployment(model, environment);
    fields = resolveDeployment({ baseUrl: flags.baseUrl, account: flags.account, agent: flags.agent }, deployed);
  } catch (error) {
    const message = errorMessage(error).replace('give them as options', 'give them with --base-url, --account and --agent');
    throw new CliError(source ? `${source}: ${message}` : message, ExitCode.usage);
  }
  return makeTarget({ ...fields, statusPath: deployed.statusPath }, flags, apiKey);
}

/**
 * --local runs on this machine, so no deployment or environment flag applies (those of
 * withDeploymentOptions in main.ts), nor the command's own `others` (flag: whether it was given).
 * When one is given, a usage error that lists them all; `what` says what runs ("the file").
 */
export function rejectWithLocal(flags: ServiceFlags & EnvironmentFlags, what: string, others: Readonly<Record<string, boolean>>): void {
  const given: Record<string, boolean> = {
    '--base-url': flags.baseUrl !== undefined,
    '--account': flags.account !== undefined,
    '--agent': flags.agent !== undefined,
    '--status-path': flags.statusPath !== undefined,
    '--allow-insecure-http': flags.allowInsecureHttp === true,
    '--yes': flags.yes === true,
    '--env': flags.env !== undefined,
    '--envs-file': flags.envsFile !== undefined,
    ...others,
  };
  if (!Object.values(given).some(Boolean)) return;
  const names = Object.keys(given);
  throw new CliError(
    `--local runs ${what} on this machine: ${names.slice(0, -1).join(', ')} and ${names.at(-1)} do not apply.`,
    ExitCode.usage,
  );
}

/** --timeout in seconds, as milliseconds. */
export function timeoutMs(flags: ServiceFlags, fallbackSeconds: number): number {
  if (flags.timeout === undefined) return fallbackSeconds * 1000;
  return positiveNumber(flags.timeout, '--timeout', 'a number of seconds') * 1000;
}

export function exitCodeFor(error: ServiceError): number {
  switch (error.kind) {
    case 'auth':
      return ExitCode.auth;
    case 'config':
      return ExitCode.usage;
    case 'timeout':
      return ExitCode.timeout;
    case 'cancelled':
      return ExitCode.interrupted;
    default:
      return ExitCode.network;
  }
}

/**
 * Prints how a watched execution ended and returns the exit code. A problem answer is shown whole
 * (the client already masked the key in it, should the service echo it).
 */
export function reportOutcome(io: CliIo, executionId: string, outcome: PollOutcome, json: boolean): number {
  const answer = outcome.kind === 'problem' ? outcome.answer.body : undefined;
  if (json) {
    const status = outcome.kind === 'finished' ? 'finished' : outcome.status;
    const outputs = outcome.kind === 'finished' ? (outcome.outputs ?? null) : null;
    io.stdout(`${JSON.stringify({ executionId, status, outputs, ...(answer !== undefined ? { answer } : {}) })}\n`);
  } else if (outcome.kind === 'finished') {
    io.stdout(`${JSON.stringify(outcome.outputs ?? null, null, 2)}\n`);
  } else {
    io.stderr(`Execution ${executionId} ended with status "${outcome.status}":\n${JSON.stringify(answer, null, 2)}\n`);
  }
  return outcome.kind === 'finished' ? ExitCode.ok : ExitCode.problems;
}

export function resumeHint(executionId: string, target: AgentTarget): string {
  const args = ['agent-workflows', 'status', executionId, '--base-url', target.baseUrl, '--account', target.account];
  const template = target.statusPathTemplate;
  if (template && template !== DEFAULT_STATUS_PATH) {
    args.push('--status-path', template);
    // The template may name the agent: status needs it then, or the printed command fails.
    if (template.includes('{agent}')) args.push('--agent', target.agent);
  }
  if (target.allowInsecureHttp) args.push('--allow-insecure-http');
  return `${args.map(shellQuote).join(' ')} --wait`;
}

export { ServiceError };
