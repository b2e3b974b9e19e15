// "Agent Workflows: Set API Key": stores the service key in SecretStorage for one service origin
// (scheme, host and port): the active agent file's service, the configured one, or one picked.
import * as vscode from 'vscode';
import type { WorkspaceEnvironments } from '../environments/workspaceEnvironments';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { serviceSettings } from '../config';
import { checkBaseUrl } from '../core/service/target';
import { promptForApiKey } from '../secrets/apiKeyPrompt';
import type { ApiKeyStore } from '../secrets/apiKeyStore';
import { originOf } from '../secrets/apiKeyStore';
import { loadAgentFile } from '../runs/agentFile';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';
import type { LocalServerHost } from '../runs/localServerHost';
import { targetInfoFor } from '../runs/serviceTarget';
import { errorMessage } from '../core/errors';

export interface ApiKeyCommandDeps {
  readonly keys: ApiKeyStore;
  readonly localServer: LocalServerHost;
  readonly environments: WorkspaceEnvironments;
  readonly logger: vscode.LogOutputChannel;
}

export function registerSetApiKeyCommand(context: vscode.ExtensionContext, deps: ApiKeyCommandDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.setApiKey,
      guardedCommand('Set API Key', deps.logger, async (baseUrl) => {
        const origin = typeof baseUrl === 'string' && baseUrl ? safeOrigin(baseUrl) : await chooseOrigin(deps, 'Set API Key');
        if (!origin) return false;
        const key = await promptForApiKey(origin);
        if (key === undefined) return false;
        await deps.keys.set(origin, key);
        void vscode.window.showInformationMessage(`API key set for ${origin}.`);
        return true;
      }),
    ),
  );
}

function safeOrigin(baseUrl: string): string | undefined {
  try {
    return originOf(baseUrl);
  } catch {
    return undefined;
  }
}

/** The services a key may be for: the active file's, the settings', the local server's, and those with keys. */
export async function knownOrigins(deps: ApiKeyCommandDeps): Promise<{ origin: string; why: string }[]> {
  const found = new Map<string, string>();
  const add = (baseUrl: string | undefined, why: string): void => {
    const origin = baseUrl ? safeOrigin(baseUrl) : undefined;
    if (origin && !found.has(origin)) found.set(origin, why);
  };
  const active = vscode.window.activeTextEditor?.document;
  if (active?.languageId === AGENT_LANGUAGE_ID) {
    try {
      add(
        (await targetInfoFor(await loadAgentFile(active.uri), deps)).baseUrl,
        `used by ${active.uri.path.split('/').pop() ?? 'the active file'}`,
      );
    } catch {
      // A file with errors names no usable service.
    }
  }
  add(serviceSettings().baseUrl, 'agentWorkflows.baseUrl');
  add(deps.localServer.running?.url, 'the local agent server');
  for (const origin of deps.keys.origins()) add(origin, 'has a key');
  return [...found].map(([origin, why]) => ({ origin, why }));
}

export async function chooseOrigin(deps: ApiKeyCommandDeps, title: string): Promise<string | undefined> {
  const known = await knownOrigins(deps);
  const OTHER = '$(globe) Another service…';
  if (known.length === 1) return known[0]!.origin;
  if (known.length > 1) {
    const picked = await vscode.window.showQuickPick(
      [...known.map(({ origin, why }) => ({ label: origin, description: why })), { label: OTHER, description: '' }],
      {
        title,
        placeHolder: 'The service the key is for',
      },
    );
    if (!picked) return undefined;
    if (picked.label !== OTHER) return picked.label;
  }
  const url = await vscode.window.showInputBox({
    title,
    prompt: 'The address of the agent service (its base URL)',
    placeHolder: 'https://agents.example.com',
    ignoreFocusOut: true,
    validateInput: (value) => {
      try {
        checkBaseUrl(value.trim(), serviceSettings().allowInsecureHttp);
        return undefined;
      } catch (error) {
        return errorMessage(error);
      }
    },
  });
  return url ? originOf(url.trim()) : undefined;
}
