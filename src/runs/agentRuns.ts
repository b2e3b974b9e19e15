// Running an agent file from VS Code, on its service or on this machine: what Run Agent, Run
// Locally and the executions view's Run Again share. Validates first, asks for what is missing
// (the API key, secrets, inputs, remembered per file), then hands the run to the runner.
import type { Dispatcher } from 'undici';
import * as vscode from 'vscode';
import { proxySettings } from '../config';
import { loadAgent } from '../core/engine/agentPlan';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import type { ExecutionRecord, RecordedInput } from '../core/executions/executionRecord';
import { anyHostDispatcher } from '../core/http/proxy';
import { prepareInputs } from '../core/inputs/inputValues';
import type { GivenInputs } from '../core/inputs/inputValues';
import type { AgentTarget } from '../core/service/target';
import { promptForSecret } from '../secrets/secretPrompt';
import { agentTextDigest, loadAgentFile } from './agentFile';
import { askForInputs } from './inputPrompts';
import type { RunDeps } from './runDeps';
import { runTargetFor, startTargetWithKey } from './serviceTarget';

/**
 * Runs an agent file on its service; resolves to the final record, or undefined when the user
 * cancelled a prompt. With `given`, no inputs are asked for (Run Again).
 */
export async function runAgentFile(
  uri: vscode.Uri,
  deps: RunDeps,
  given?: GivenInputs,
  environment?: string,
): Promise<ExecutionRecord | undefined> {
  const file = await loadAgentFile(uri);
  const run = await runTargetFor(file, deps, environment);
  const { info } = run;
  // The confirmation and key first: nobody should type inputs for a run that cannot start.
  const target = await startTargetWithKey(run, deps, uri, `Run "${file.displayName}"`);
  if (!target) return undefined;
  const inputs = given ?? (await askForInputs(file.model, file.displayName, deps.inputMemory.get(uri)));
  if (!inputs) return undefined;
  await deps.inputMemory.set(uri, inputs);
  const prepared = prepareInputs(file.model, inputs);
  return deps.runner.runDeployed({ agentName: file.displayName, file: uri, info, target, inputs: prepared.inputs, files: prepared.files });
}

/**
 * Where an agent file's deployed tests go, with the key (asked for when missing, as a run does);
 * undefined when the user declined to give one.
 */
export async function deployedTestTarget(uri: vscode.Uri, deps: RunDeps): Promise<AgentTarget | undefined> {
  const file = await loadAgentFile(uri);
  return startTargetWithKey(await runTargetFor(file, deps), deps, uri, `Run the tests of "${file.displayName}"`);
}

/** Runs an agent file with the workflow engine in this window; undefined when the user cancelled a prompt. */
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
  const pinned = deps.pins.results(uri);
  return deps.runner.runLocal({
    agentName: file.displayName,
    file: uri,
    agent,
    inputs: resolved,
    recordedInputs,
    filePaths: inputs.files ?? {},
    fileDigest: agentTextDigest(file.text),
    secrets: async (name) => deps.workflowSecrets.get(name),
    pinnedResults: pinned,
    // Each node's result as later nodes saw it, for Send Request's upstream values (pins are not results).
    onNodeValue: (node, result) => {
      if (!pinned.has(node)) deps.nodeResults.set(uri.toString(), node, result, 'run');
    },
    ...withDispatcher(anyHostDispatcher(proxySettings())),
  });
}

/** Asks for the secrets the agent needs and SecretStorage lacks; false when the user declines. */
export async function ensureSecrets(names: readonly string[], agentName: string, deps: Pick<RunDeps, 'workflowSecrets'>): Promise<boolean> {
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

/** A dispatcher as an engine option: none at all when there is none (no proxy set). */
export function withDispatcher(dispatcher: Dispatcher | undefined): { dispatcher?: Dispatcher } {
  return dispatcher ? { dispatcher } : {};
}
