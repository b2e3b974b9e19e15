// Typed access to the extension's settings (contributes.configuration in package.json).
import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_STATUS_PATH } from './core/service/target';

const SECTION = 'agentWorkflows';

export interface ValidationSettings {
  /** Check agent files as they change. */
  readonly enabled: boolean;
  /** Milliseconds to wait after the last change before checking again. */
  readonly delay: number;
}

export function validationSettings(): ValidationSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    enabled: config.get<boolean>('validation.enabled', true),
    delay: clamp(config.get<number>('validation.delay', 300), 0, 5000),
  };
}

export interface ServiceSettings {
  /** Fallbacks for an agent file without deployment fields. */
  readonly baseUrl: string;
  readonly account: string;
  readonly statusPathTemplate: string;
  readonly requestTimeoutMs: number;
  readonly pollMaxIntervalMs: number;
  readonly runTimeoutMs: number;
  readonly allowInsecureHttp: boolean;
}

export function serviceSettings(scope?: vscode.Uri): ServiceSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return {
    baseUrl: config.get<string>('baseUrl', '').trim(),
    account: config.get<string>('account', '').trim(),
    statusPathTemplate: config.get<string>('statusPath', DEFAULT_STATUS_PATH).trim() || DEFAULT_STATUS_PATH,
    requestTimeoutMs: clamp(config.get<number>('requestTimeout', 30), 1, 600) * 1000,
    pollMaxIntervalMs: clamp(config.get<number>('pollMaxInterval', 5), 0.5, 60) * 1000,
    runTimeoutMs: clamp(config.get<number>('runTimeout', 30), 1, 24 * 60) * 60_000,
    allowInsecureHttp: config.get<boolean>('allowInsecureHttp', false),
  };
}

/** Time limit of one Send Request (redirects included). */
export function sendRequestTimeoutMs(scope?: vscode.Uri): number {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return clamp(config.get<number>('sendRequest.timeout', 30), 1, 600) * 1000;
}

export interface BatchSettings {
  /** Executions of a batch running at once. */
  readonly concurrency: number;
  /** Requests a second a batch sends to the service (starts and polls together). */
  readonly ratePerSecond: number;
  /** A batch whose service answers nothing but 429 or 503 for this long gives up (resumable). */
  readonly giveUpAfterMs: number;
}

export function batchSettings(scope?: vscode.Uri): BatchSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return {
    concurrency: Math.round(clamp(config.get<number>('batch.concurrency', 8), 1, 100)),
    ratePerSecond: clamp(config.get<number>('batch.rate', 10), 0.5, 1000),
    giveUpAfterMs: clamp(config.get<number>('batch.giveUpAfter', 900), 1, 86_400) * 1000,
  };
}

export interface EnvironmentSettings {
  /** The environment of agent-workflows.yaml runs use when none is chosen in the status bar. */
  readonly environment: string;
}

export function environmentSettings(scope?: vscode.Uri): EnvironmentSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return { environment: config.get<string>('environment', '').trim() };
}

export interface ResultsSettings {
  /** Executions kept in the history (finished ones; running ones are always kept). */
  readonly historySize: number;
  /** Longer outputs are cut in the output channel. */
  readonly maxOutputLength: number;
  readonly codeLens: boolean;
}

export function resultsSettings(): ResultsSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    historySize: Math.round(clamp(config.get<number>('history.size', 50), 1, 1000)),
    maxOutputLength: Math.round(clamp(config.get<number>('results.maxOutputLength', 4000), 200, 1_000_000)),
    codeLens: config.get<boolean>('codeLens.enabled', true),
  };
}

export interface ProxySettings {
  readonly proxy: string;
  readonly strictSSL: boolean;
  readonly noProxy: readonly string[];
}

/** VS Code's own proxy settings, which agent calls honour. */
export function proxySettings(): ProxySettings {
  const http = vscode.workspace.getConfiguration('http');
  return {
    proxy: http.get<string>('proxy', '').trim(),
    strictSSL: http.get<boolean>('proxyStrictSSL', true),
    noProxy: http.get<string[]>('noProxy', []),
  };
}

/** True when a configuration change touches one of the given settings (relative to the section). */
export function affects(event: vscode.ConfigurationChangeEvent, ...keys: string[]): boolean {
  return keys.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : min;
}

/**
 * Folders a data file or test file may name files in besides its own (agentWorkflows.files.allowFrom),
 * absolute. Only the user's own value counts (user or remote settings; the setting's scope is
 * "machine"): a workspace's settings file is as much someone else's as the files it would allow.
 */
export function allowedFileFolders(scope?: vscode.Uri): string[] {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  const entries = config.inspect<unknown>('files.allowFrom')?.globalValue ?? [];
  const root = (scope && vscode.workspace.getWorkspaceFolder(scope)) ?? vscode.workspace.workspaceFolders?.[0];
  return (Array.isArray(entries) ? entries : [])
    .filter((entry): entry is string => typeof entry === 'string' && entry.trim() !== '')
    .map((entry) => (isAbsolute(entry) ? entry : root ? join(root.uri.fsPath, entry) : entry))
    .filter((entry) => isAbsolute(entry));
}
