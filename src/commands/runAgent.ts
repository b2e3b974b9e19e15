// "Agent Workflows: Run Agent": validates the agent file, asks for its inputs (remembered per file),
// starts it on the service its deployment names (multipart when it has file inputs) and watches it
// to the end. From the palette, the explorer and editor menus, and the code lens.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import { prepareInputs } from '../core/inputs/inputValues';
import type { GivenInputs } from '../core/inputs/inputValues';
import { chooseAgentFile, loadAgentFile } from '../runs/agentFile';
import { guardedCommand } from '../runs/commandErrors';
import { askForInputs } from '../runs/inputPrompts';
import type { RunDeps } from '../runs/runDeps';
import { targetInfoFor, targetWithKey } from '../runs/serviceTarget';


export function registerRunAgentCommand(context: vscode.ExtensionContext, deps: RunDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.runAgent,
      guardedCommand(
        'Run Agent',
        deps.logger,
        async (resource) => {
          const uri = await chooseAgentFile(resource, 'Run Agent');
          return uri ? runAgentFile(uri, deps) : undefined;
        },
        { trusted: 'Running agents' },
      ),
    ),
  );
}

/**
 * Runs an agent file on its service; resolves to the final record, or undefined when the user
 * cancelled a prompt. With `given`, no inputs are asked for (Run Again).
 */
export async function runAgentFile(uri: vscode.Uri, deps: RunDeps, given?: GivenInputs): Promise<ExecutionRecord | undefined> {
  const file = await loadAgentFile(uri);
  const info = targetInfoFor(file, deps.localServer);
  // The key first: nobody should type inputs for a run that cannot start.
  const target = await targetWithKey(info, deps, uri);
  if (!target) return undefined;
  const inputs = given ?? (await askForInputs(file.model, file.displayName, deps.inputMemory.get(uri)));
  if (!inputs) return undefined;
  await deps.inputMemory.set(uri, inputs);
  const prepared = prepareInputs(file.model, inputs);
  return deps.runner.runDeployed({ agentName: file.displayName, file: uri, info, target, inputs: prepared.inputs, files: prepared.files });
}
