// Where a deployed-style run goes and with which key: the active environment of agent-workflows.yaml
// when there is one, else the file's `deployment:`, else the settings, else the local agent server.
// The key is looked up by the target's origin only, so a file naming another service never receives
// a key set for a different one.
import * as vscode from 'vscode';
import { RunBlocked } from '../commandErrors';
import { COMMANDS } from '../commandIds';
import { proxySettings, serviceSettings } from '../config';
import type { ExecutionTargetInfo } from '../core/executions/executionRecord';
import { dispatcherFor } from '../core/http/proxy';
import { LOCAL_ACCOUNT } from '../core/server/agentDirectory';
import { ServiceError } from '../core/service/serviceError';
import { checkBaseUrl } from '../core/service/target';
import type { AgentTarget } from '../core/service/target';
import { promptForApiKey } from '../secrets/apiKeyPrompt';
import type { ApiKeyStore } from '../secrets/apiKeyStore';
import { originOf } from '../secrets/apiKeyStore';
import type { AgentFile } from './agentFile';
import type { ActiveEnvironment, WorkspaceEnvironments } from '../environments/workspaceEnvironments';
import { loadLanguageCore } from '../language/loadLanguageCore';
import type { LocalServerHost } from './localServerHost';
import type { ResultsChannel } from './resultsChannel';
import { errorMessage } from '../core/errors';

export interface TargetDeps {
  readonly keys: ApiKeyStore;
  readonly localServer: LocalServerHost;
  readonly environments: WorkspaceEnvironments;
  /** The "Agent Workflows" output channel, for what a run should say before it starts. */
  readonly results: Pick<ResultsChannel, 'note'>;
}

/** Where a run of a file goes, and the environment that says so (when one does). */
export interface RunTarget {
  readonly info: ExecutionTargetInfo;
  readonly environment?: ActiveEnvironment;
  /** Said in the output when the run starts: the environment sends it elsewhere than the file's own deployment.baseUrl. */
  readonly notice?: string;
}

/**
 * Where a file's run goes. With an environment (agent-workflows.yaml; `requested` is Run Again's):
 * the agent file's override for it, then the environment, then the file's deployment block. Without:
 * the file's deployment, else the settings, else the local agent server. A RunBlocked says what to set.
 */
export async function runTargetFor(
  file: AgentFile,
  deps: Pick<TargetDeps, 'localServer' | 'environments'>,
  requested?: string,
): Promise<RunTarget> {
  const environment = await deps.environments.active(file.uri, requested);
  if (!environment) return { info: targetInfoWithoutEnvironment(file, deps.localServer) };
  const core = await loadLanguageCore();
  let fields;
  try {
    fields = core.environmentDeployment(file.model, environment);
  } catch (error) {
    // A protected environment the agent file moves elsewhere: refused, with the way out.
    throw new RunBlocked(errorMessage(error), [
      { title: 'Open Environments File', run: () => vscode.window.showTextDocument(environment.fileUri) },
    ]);
  }
  const replaced = core.replacedBaseUrl(file.model, environment);
  return {
    environment,
    ...(replaced
      ? {
          notice: `environment "${environment.name}" of ${environment.fileName} sends "${file.displayName}" to ${replaced.environmentOrigin}, not to its deployment.baseUrl ${replaced.agentOrigin}`,
        }
      : {}),
    info: {
      ...targetInfo(file, fields, `The base URL of environment "${environment.name}" for ${file.agentPath}`),
      environment: environment.name,
      ...(fields.statusPath ? { statusPathTemplate: fields.statusPath } : {}),
    },
  };
}

/** Base URL, account and agent of a file's run (its environment's when one applies). */
export async function targetInfoFor(file: AgentFile, deps: Pick<TargetDeps, 'localServer' | 'environments'>): Promise<ExecutionTargetInfo> {
  return (await runTargetFor(file, deps)).info;
}

/**
 * The target of a run that starts an execution, with its key: a protected environment is confirmed
 * first (every time, unless the user said not to ask again in this window); undefined when the user
 * declined the confirmation or the key.
 */
export async function startTargetWithKey(
  run: RunTarget,
  deps: TargetDeps,
  scope: vscode.Uri,
  what: string,
): Promise<AgentTarget | undefined> {
  if (run.environment && !(await deps.environments.confirmRun(run.environment, run.info, what))) return undefined;
  const target = await targetWithKey(run.info, deps, scope);
  if (target && run.notice) deps.results.note(run.notice);
  return target;
}

/** Base URL, account and agent of a file's run without environments, or a RunBlocked that says where to set them. */
function targetInfoWithoutEnvironment(file: AgentFile, localServer: LocalServerHost): ExecutionTargetInfo {
  const settings = serviceSettings(file.uri);
  const deployment = file.model.deployment;
  const fileBaseUrl = deployment?.baseUrl?.value.trim();
  const local = localServer.running;
  const baseUrl = fileBaseUrl || settings.baseUrl || local?.url;
  if (!baseUrl) {
    throw new RunBlocked(
      `Where is "${file.displayName}" deployed? Add deployment.baseUrl to the file or set "agentWorkflows.baseUrl", or start the local agent server to run it on this machine.`,
      [
        { title: 'Start Local Agent Server', run: () => vscode.commands.executeCommand(COMMANDS.startLocalServer) },
        { title: 'Run Locally', run: () => vscode.commands.executeCommand(COMMANDS.runLocally, file.uri) },
        { title: 'Open Settings', run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentWorkflows.baseUrl') },
      ],
    );
  }
  const baseUrlFrom = fileBaseUrl
    ? `deployment.baseUrl of ${file.agentPath}`
    : `The "agentWorkflows.baseUrl" setting for ${file.agentPath}`;
  const toLocal = local !== undefined && baseUrl === local.url;
  const account = deployment?.account?.trim() || (toLocal ? LOCAL_ACCOUNT : settings.account);
  if (!account) {
    throw new RunBlocked(
      `The account of "${file.displayName}" is not set: add deployment.account to the file (the path segment after /api/ in the service's Agents tab) or set "agentWorkflows.account".`,
      [{ title: 'Open Settings', run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentWorkflows.account') }],
    );
  }
  return targetInfo(file, { baseUrl, account, agent: deployment?.agent }, baseUrlFrom);
}

/**
 * A run's base URL (without trailing slashes), account and agent (the file's path when not set),
 * from the fields that apply; `baseUrlFrom` names where the base URL comes from, for the message
 * when it holds an expression (the runs send it as is).
 */
function targetInfo(
  file: AgentFile,
  fields: { readonly baseUrl: string; readonly account: string; readonly agent?: string | undefined },
  baseUrlFrom: string,
): ExecutionTargetInfo {
  if (fields.baseUrl.includes('{{'))
    throw new RunBlocked(`${baseUrlFrom} contains an expression; write the service's address itself (https://…).`);
  return { baseUrl: fields.baseUrl.replace(/\/+$/, ''), account: fields.account, agent: fields.agent?.trim() || file.agentPath };
}

/**
 * A full target with its key. When the origin has no key, asks for one (or to reuse one set for
 * another origin, explicitly); resolves to undefined when the user declines.
 */
export async function targetWithKey(
  info: ExecutionTargetInfo,
  deps: Pick<TargetDeps, 'keys'>,
  scope?: vscode.Uri,
  options: { readonly prompt?: boolean } = {},
): Promise<AgentTarget | undefined> {
  const settings = serviceSettings(scope);
  try {
    checkBaseUrl(info.baseUrl, settings.allowInsecureHttp);
  } catch (error) {
    throw new RunBlocked(error instanceof ServiceError ? error.message : String(error));
  }
  const origin = originOf(info.baseUrl);
  const key = (await deps.keys.get(origin)) ?? (options.prompt === false ? undefined : await askForKey(origin, deps.keys));
  if (key === undefined) return undefined;
  const dispatcher = dispatcherFor(info.baseUrl, proxySettings());
  return {
    ...info,
    apiKey: key,
    statusPathTemplate: info.statusPathTemplate ?? settings.statusPathTemplate,
    allowInsecureHttp: settings.allowInsecureHttp,
    requestTimeoutMs: settings.requestTimeoutMs,
    ...(dispatcher ? { dispatcher } : {}),
  };
}

async function askForKey(origin: string, keys: ApiKeyStore): Promise<string | undefined> {
  const others = keys.origins().filter((known) => known !== origin);
  const SET = 'Set API Key';
  const choice = await vscode.window.showWarningMessage(
    `No API key is set for ${origin}. Set one for this service${others.length ? ', or reuse the key of another service if it is the same account' : ''}.`,
    { modal: true },
    SET,
    ...others.map((other) => `Reuse the key of ${other}`),
  );
  if (choice === SET) {
    const key = await promptForApiKey(origin);
    if (key !== undefined) await keys.set(origin, key);
    return key;
  }
  const reused = others.find((other) => choice === `Reuse the key of ${other}`);
  if (!reused) return undefined;
  const key = await keys.get(reused);
  // Reusing is a decision for this origin from now on, stored like a key set for it.
  if (key !== undefined) await keys.set(origin, key);
  return key;
}
