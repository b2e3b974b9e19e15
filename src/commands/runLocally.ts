// "Agent Workflows: Run Locally": runs an agent file in this window with the workflow engine, no
// service or account needed. Secrets come from SecretStorage (asked for when missing); the
// per-node trace shows in the output and the executions tree.
import type { Dispatcher } from 'undici';
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { proxySettings } from '../config';
import type { ExecutionRecord, RecordedInput } from '../core/executions/executionRecord';
import { anyHostDispatcher } from '../core/http/proxy';
import { loadAgent } from '../core/engine/agentPlan';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import type { GivenInputs } from '../core/inputs/inputValues';
import { chooseAgentFile, loadAgentFile } from '../runs/agentFile';
import { guardedCommand } from '../runs/commandErrors';
import { askForInputs } from '../runs/inputPrompts';
import type { RunDeps } from '../runs/runDeps';
import { promptForSecret } from './setSecret';


export function registerRunLocallyCommand(context: vscode.ExtensionContext, deps: RunDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.runLocally,
      guardedCommand(
        'Run Locally',
        deps.logger,
        async (resource) => {
          const uri = await chooseAgentFile(resource, 'Run Locally');
          return uri ? runAgentFileLocally(uri, deps) : undefined;
        },
        { trusted: 'Running agents' },
      ),
    ),
  );
}

export async function runAgentFileLocally(uri: vscode.Uri, deps: RunDeps, given?: GivenInputs): Promise<ExecutionRecord | undefined> {
  const file = await loadAgentFile(uri);
  const agent = loadAgent(file.text, file.agentPath);
  if (!(await ensureSecrets(agent.plan.secretNames, file.displayName, deps))) return undefined;
  const inputs = given ?? (await askForInputs(file.model, file.displayName, deps.inputMemory.get(uri)));
  if (!inputs) return undefined;
  await deps.inputMemory.set(uri, inputs);

  const files = await filesFromPaths(inputs.files ?? {});
  const recordedInputs: Record<string, RecordedInput> = { ...inputs.values };
  for (const [name, file] of Object.entries(files)) recordedInputs[name] = { file: file.name, size: file.size };
  const resolved = resolveInputs(file.model, { values: inputs.values ?? {}, files });
  return deps.runner.runLocal({
    agentName: file.displayName,
    file: uri,
    agent,
    inputs: resolved,
    recordedInputs,
    filePaths: inputs.files ?? {},
    secrets: async (name) => deps.workflowSecrets.get(name),
    ...withDispatcher(anyHostDispatcher(proxySettings())),
  });
}

/** Asks for the secrets the agent needs and SecretStorage lacks; false when the user declines. */
async function ensureSecrets(names: readonly string[], agentName: string, deps: RunDeps): Promise<boolean> {
  const missing: string[] = [];
  for (const name of names) if ((await deps.workflowSecrets.get(name)) === undefined) missing.push(name);
  if (missing.length === 0) return true;
  const SET = missing.length === 1 ? 'Set Secret' : 'Set Secrets';
  const choice = await vscode.window.showWarningMessage(
    `${agentName} uses ${missing.length === 1 ? 'a secret' : 'secrets'} not set in this VS Code: ${missing.join(', ')}. Set ${missing.length === 1 ? 'it' : 'them'} now? (Kept in VS Code's secret storage, never in files.)`,
    { modal: true },
    SET,
  );
  if (choice !== SET) return false;
  for (const name of missing) {
    const value = await promptForSecret(name);
    if (value === undefined) return false;
    await deps.workflowSecrets.set(name, value);
  }
  return true;
}

function withDispatcher(dispatcher: Dispatcher | undefined): { dispatcher?: Dispatcher } {
  return dispatcher ? { dispatcher } : {};
}
