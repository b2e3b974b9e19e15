// Where a deployed agent lives and how its URLs are built. Every path segment is encoded and an
// execution id is checked before it becomes part of a path.
import { isLoopbackHost } from '../http/hosts';
import type { Dispatcher } from 'undici';
import { ServiceError } from './serviceError';

export const DEFAULT_STATUS_PATH = '{baseUrl}/api/{account}/agent/{executionId}/status';

export interface AgentTarget {
  readonly baseUrl: string;
  readonly account: string;
  readonly agent: string;
  readonly apiKey: string;
  /** Template of the status URL: {baseUrl}, {account}, {agent}, {executionId}. */
  readonly statusPathTemplate?: string;
  /** Allow an http:// base URL that is not loopback (the key then travels in clear text). */
  readonly allowInsecureHttp?: boolean;
  /** Time limit of each request. */
  readonly requestTimeoutMs?: number;
  /** A proxy agent, for example. */
  readonly dispatcher?: Dispatcher;
}

/** Checks a base URL: http(s), no query, and https unless it is loopback or explicitly allowed. */
export function checkBaseUrl(baseUrl: string, allowInsecureHttp = false): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ServiceError('config', `The base URL "${baseUrl}" is not a valid URL; write it like https://agents.example.com.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ServiceError('config', `The base URL must start with https:// (or http:// for a local server), not ${url.protocol}//.`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ServiceError(
      'config',
      'The base URL must not contain a user name, password, query or fragment; the API key is sent in the Authorization header.',
    );
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    throw new ServiceError(
      'config',
      `The base URL ${url.origin} uses plain http, so the API key would travel in clear text. Use https://, or allow insecure http explicitly if this network is trusted.`,
    );
  }
  return url;
}

/** An execution id goes into a URL path: a UUID, or at least one safe path segment. */
export function checkExecutionId(executionId: string): string {
  const id = executionId.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/.test(id) || id === '.' || id === '..') {
    throw new ServiceError(
      'config',
      `"${executionId.slice(0, 80)}" is not an execution id: expected a UUID such as 3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01.`,
    );
  }
  return id;
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

function join(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

const segment = encodeURIComponent;

export function executeUrl(target: AgentTarget, multipart: boolean): string {
  checkBaseUrl(target.baseUrl, target.allowInsecureHttp);
  return join(target.baseUrl, `/api/${segment(target.account)}/agent/${segment(target.agent)}/execute${multipart ? '/multipart' : ''}`);
}

/**
 * Whether a base URL is on this machine: a local agent server (this window's, or `serve`), which
 * keeps the exchanges of its executions. False for a URL that does not parse.
 */
export function isLocalServerUrl(baseUrl: string): boolean {
  try {
    return isLoopbackHost(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

/**
 * GET …/agent/<executionId>/exchanges: what the local agent server (`serve`, Start Local Agent
 * Server) answers with each API node's request and answer. The service itself has no such route.
 */
export function exchangesUrl(target: AgentTarget, executionId: string): string {
  checkBaseUrl(target.baseUrl, target.allowInsecureHttp);
  return join(target.baseUrl, `/api/${segment(target.account)}/agent/${segment(checkExecutionId(executionId))}/exchanges`);
}

export function statusUrl(target: AgentTarget, executionId: string): string {
  checkBaseUrl(target.baseUrl, target.allowInsecureHttp);
  const id = checkExecutionId(executionId);
  const template = target.statusPathTemplate ?? DEFAULT_STATUS_PATH;
  // Quoted without what follows a "?" or "#": that is where a token would be.
  const shown = template.replace(/[?#].*$/s, '…');
  if (/[?#]/.test(template)) {
    throw new ServiceError(
      'config',
      `The status path template "${shown}" has a query or fragment: it must be a path only, like the default ${DEFAULT_STATUS_PATH}; the API key is sent in the Authorization header.`,
    );
  }
  if (!template.includes('{executionId}')) {
    throw new ServiceError('config', `The status path template "${shown}" has no {executionId}; the default is ${DEFAULT_STATUS_PATH}.`);
  }
  const filled = template
    .replace(/\{account\}/g, segment(target.account))
    .replace(/\{agent\}/g, segment(target.agent))
    .replace(/\{executionId\}/g, segment(id));
  // A template without {baseUrl} is a path on the base URL.
  const url = filled.includes('{baseUrl}')
    ? filled.replace('{baseUrl}', target.baseUrl.replace(/\/+$/, ''))
    : join(target.baseUrl, filled.startsWith('/') ? filled : `/${filled}`);
  // The key goes with the request, so a template (which may come from a workspace's settings) must
  // not lead it to another host, e.g. "{baseUrl}@attacker.example/{executionId}".
  let origin: string | undefined;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = undefined;
  }
  if (origin !== new URL(target.baseUrl).origin) {
    throw new ServiceError(
      'config',
      `The status path template "${shown}" leads away from ${new URL(target.baseUrl).origin}; it must be a path on the base URL, like the default ${DEFAULT_STATUS_PATH}.`,
    );
  }
  return url;
}

/** One source of the deployment fields; a field it does not give is absent or undefined. */
export interface DeploymentFields {
  readonly baseUrl?: string | undefined;
  readonly account?: string | undefined;
  readonly agent?: string | undefined;
}

/** The first value that is set (not undefined, empty or blank), trimmed. */
export function firstSet(...values: readonly (string | undefined)[]): string | undefined {
  return values.map((value) => value?.trim()).find((value) => !!value);
}

/**
 * Picks each field from the first source that has it (explicit options, then the file's
 * deployment, then settings), or says which are missing and where to set them.
 */
export function resolveDeployment(...sources: readonly (DeploymentFields | undefined)[]): {
  baseUrl: string;
  account: string;
  agent: string;
} {
  const pick = (field: keyof DeploymentFields): string | undefined => firstSet(...sources.map((source) => source?.[field]));
  const baseUrl = pick('baseUrl');
  const account = pick('account');
  const agent = pick('agent');
  const missing = [!baseUrl && 'baseUrl', !account && 'account', !agent && 'agent'].filter(Boolean) as string[];
  if (missing.length) {
    throw new ServiceError(
      'config',
      `The agent's ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set: add them under "deployment:" in the agent file (paths from the Agents tab of the service's editor), or give them as options.`,
    );
  }
  return { baseUrl: baseUrl!, account: account!, agent: agent! };
}
