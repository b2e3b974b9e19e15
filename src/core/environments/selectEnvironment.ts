// Which environment a run uses, and where an agent is deployed in it. The precedence (documented in
// docs/environments.md): the environment named by a flag, else by a setting (VS Code's picker, or
// AGENT_WORKFLOWS_ENV on the command line), else the file's default, else none; and for each field,
// the agent file's override for that environment, then the environment (base URL and account), then
// the agent file's plain deployment block (agent), except that a protected environment's base URL
// and account are the environments file's only (unless it says allowAgentOverride). Environments are
// found by walking up from the agent file to agent-workflows.yaml, no higher than the repository
// root or the current folder (resolveEnvironment.ts; the editor stops at the workspace folder).
import type { AgentModel, DeploymentOverride } from '../document/model';
import { ServiceError } from '../service/serviceError';
import { firstSet } from '../service/target';
import type { DeploymentFields } from '../service/target';
import { agentsMayOverride, displayOrigin, ENVIRONMENTS_FILE_NAME } from './environmentsFile';
import type { EnvironmentDeclaration, EnvironmentsFile } from './environmentsFile';

export interface SelectedEnvironment {
  readonly name: string;
  readonly declaration: EnvironmentDeclaration;
  /** Which level named it. */
  readonly source: 'flag' | 'setting' | 'default';
  /** The environments file that declares it, as messages show it. */
  readonly fileName: string;
}

/** The names a run asks for, highest precedence first; an empty or blank name counts as none. */
export interface RequestedEnvironment {
  readonly flag?: string | undefined;
  readonly setting?: string | undefined;
}

/** How messages name the environments file: where it is, or where it was looked for. */
export interface EnvironmentsFilePlace {
  /** The file as messages show it (default agent-workflows.yaml). */
  readonly fileName?: string;
  /** Where the file was looked for, for the message when there is none. */
  readonly where?: string;
}

/**
 * The environment to use: flag, else setting, else the file's default, else none. A name that the
 * file does not declare (or a name with no file at all) is an error that lists what there is.
 */
export function selectEnvironment(
  file: EnvironmentsFile | undefined,
  requested: RequestedEnvironment,
  place: EnvironmentsFilePlace = {},
): SelectedEnvironment | undefined {
  const where = place.where ?? `${ENVIRONMENTS_FILE_NAME} in the folder of the agent file or one of its parents`;
  const flag = requested.flag?.trim();
  const setting = requested.setting?.trim();
  const [name, source] = flag ? [flag, 'flag' as const] : setting ? [setting, 'setting' as const] : [file?.defaultName, 'default' as const];
  if (!name) return undefined;
  if (!file) {
    throw new ServiceError(
      'config',
      `Environment "${name}" is asked for, but there is no environments file: none was found (looked for ${where}). Create ${ENVIRONMENTS_FILE_NAME} with "environments:", or leave the environment out.`,
    );
  }
  const declaration = file.environments.get(name);
  if (!declaration) {
    const known = [...file.environments.keys()];
    throw new ServiceError(
      'config',
      `Unknown environment "${name}": ${known.length ? `known environments are ${known.join(', ')}` : 'no environments are declared'} (in ${place.fileName ?? ENVIRONMENTS_FILE_NAME}).`,
    );
  }
  return { name, declaration, source, fileName: place.fileName ?? ENVIRONMENTS_FILE_NAME };
}

/** Where the agent is deployed in an environment: the environment always gives a base URL and an account. */
export interface EnvironmentDeployment {
  readonly baseUrl: string;
  readonly account: string;
  readonly agent?: string;
  readonly statusPath?: string;
}

/**
 * Where the agent is deployed in the environment: its override for the environment first, then the
 * environment's baseUrl and account (they beat the plain deployment block, which names one service;
 * the file's check requires both, so the plain block's never apply). With no environment, the plain
 * deployment block as before. The agent path is never the environment's: override, then
 * deployment.agent (then, for the caller, the file name rule).
 */
export function environmentDeployment(model: AgentModel, env: SelectedEnvironment): EnvironmentDeployment;
export function environmentDeployment(model: AgentModel, env: SelectedEnvironment | undefined): DeploymentFields & { statusPath?: string };
export function environmentDeployment(model: AgentModel, env: SelectedEnvironment | undefined): DeploymentFields & { statusPath?: string } {
  const plain = model.deployment;
  if (!env) return withoutUndefined({ baseUrl: plain?.baseUrl?.value, account: plain?.account, agent: plain?.agent });
  const override = plain?.environments?.get(env.name);
  const moved = override && !agentsMayOverride(env.declaration) ? movedFields(override) : [];
  if (moved.length > 0) {
    // The same rule as the agent file's check (protected-environment-override), for a file run with that error.
    const what = moved.map(([field, value]) => `${field} (${field === 'baseUrl' ? displayOrigin(value) : value})`).join(' and ');
    throw new ServiceError(
      'config',
      `Environment "${env.name}" is protected in ${env.fileName}, and the agent file sets its ${what} in deployment.environments.${env.name}: a protected environment's runs and API key go only to the service and account its environments file names. Remove ${moved.map(([field]) => field).join(' and ')} there, or add "allowAgentOverride: true" to ${env.name} in ${env.fileName}.`,
    );
  }
  const statusPath = env.declaration.statusPath;
  return withoutUndefined({
    baseUrl: firstSet(override?.baseUrl?.value) ?? env.declaration.baseUrl,
    account: firstSet(override?.account) ?? env.declaration.account,
    agent: firstSet(override?.agent, plain?.agent),
    ...(statusPath !== undefined ? { statusPath } : {}),
  });
}

/** The fields of an override that would move an environment to another service or account. */
function movedFields(override: DeploymentOverride): (readonly [field: 'baseUrl' | 'account', value: string])[] {
  const baseUrl = firstSet(override.baseUrl?.value);
  const account = firstSet(override.account);
  return [
    ...(baseUrl !== undefined ? [['baseUrl', baseUrl] as const] : []),
    ...(account !== undefined ? [['account', account] as const] : []),
  ];
}

/**
 * When the environment replaces the agent file's own deployment.baseUrl with another origin (no
 * override of the agent's for it, no base URL flag): both origins, so a run can say where it goes
 * instead. Undefined when the agent file has no base URL of its own, or the same origin.
 */
export function replacedBaseUrl(
  model: AgentModel,
  env: SelectedEnvironment | undefined,
  baseUrlFlag?: string,
): { readonly agentOrigin: string; readonly environmentOrigin: string } | undefined {
  const own = firstSet(model.deployment?.baseUrl?.value);
  if (!env || own === undefined || firstSet(baseUrlFlag) !== undefined) return undefined;
  if (firstSet(model.deployment?.environments?.get(env.name)?.baseUrl?.value) !== undefined) return undefined;
  const agentOrigin = displayOrigin(own);
  const environmentOrigin = displayOrigin(env.declaration.baseUrl);
  return agentOrigin === environmentOrigin ? undefined : { agentOrigin, environmentOrigin };
}

/** The fields that have a value: an absent field and an undefined one read the same to callers. */
function withoutUndefined<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}
