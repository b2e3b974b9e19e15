// "Copy as curl": the run's start request as a shell command, with $AGENT_WORKFLOWS_API_KEY in place
// of the key. From an agent file (with the inputs used last, asked for when there are none) or
// from an execution in the tree (its inputs, plus the status request).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { serviceSettings } from '../config';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import { buildCurlCommand } from '../core/service/curl';
import { prepareInputs } from '../core/inputs/inputValues';
import type { InputValues } from '../core/service/agentClient';
import { executeUrl, statusUrl } from '../core/service/target';
import type { AgentTarget } from '../core/service/target';
import { chooseAgentFile, loadAgentFile } from '../runs/agentFile';
import { RunBlocked, guardedCommand } from '../commandErrors';
import { askForInputs } from '../runs/inputPrompts';
import type { RunDeps } from '../runs/runDeps';
import { targetInfoFor } from '../runs/serviceTarget';
import { isExecutionItem } from '../views/treeItemKinds';

export function registerCopyAsCurlCommand(context: vscode.ExtensionContext, deps: RunDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.copyAsCurl,
      guardedCommand('Copy as curl', deps.logger, async (resource) => {
        const command = isExecutionItem(resource) ? curlOfRecord(resource.record) : await curlOfFile(resource, deps);
        if (command === undefined) return undefined;
        await vscode.env.clipboard.writeText(command);
        void vscode.window.showInformationMessage('Copied the curl command. Set AGENT_WORKFLOWS_API_KEY in the shell before running it.');
        return command;
      }),
    ),
  );
}

function keyless(info: { baseUrl: string; account: string; agent: string }): AgentTarget {
  const settings = serviceSettings();
  // The key is never part of the command; the target only builds URLs here.
  return { ...info, apiKey: '', statusPathTemplate: settings.statusPathTemplate, allowInsecureHttp: settings.allowInsecureHttp };
}

function curlOfRecord(record: ExecutionRecord): string {
  if (!record.target)
    throw new RunBlocked(
      `${record.agentName} ran locally in VS Code; there is no service request to copy. Start the local agent server and use Run Agent to get one.`,
    );
  const target = keyless(record.target);
  const inputs: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(record.inputs)) if (typeof value !== 'object') inputs[name] = value;
  const files = Object.entries(record.filePaths ?? {}).map(([field, path]) => ({ field, path }));
  return buildCurlCommand({
    executeUrl: executeUrl(target, files.length > 0),
    inputs,
    files,
    ...(record.executionId ? { statusUrl: statusUrl(target, record.executionId) } : {}),
  });
}

async function curlOfFile(resource: unknown, deps: RunDeps): Promise<string | undefined> {
  const uri = await chooseAgentFile(resource, 'Copy as curl');
  if (!uri) return undefined;
  const file = await loadAgentFile(uri);
  const target = keyless(await targetInfoFor(file, deps));
  const remembered = deps.inputMemory.get(uri);
  const haveInputs = file.model.inputs.size === 0 || Object.keys(remembered.values).length + Object.keys(remembered.files).length > 0;
  const given = haveInputs ? remembered : await askForInputs(file.model, file.displayName, remembered);
  if (!given) return undefined;
  const prepared = prepareInputs(file.model, given);
  const inputs: InputValues = prepared.inputs;
  return buildCurlCommand({ executeUrl: executeUrl(target, prepared.files.length > 0), inputs, files: prepared.files });
}
