// "Agent Workflows: Poll Execution…": watches an execution by its id, on the service of the active
// agent file (or the configured one, or the local server), and adds it to the history.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { serviceSettings } from '../config';
import type { ExecutionRecord, ExecutionTargetInfo } from '../core/executions/executionRecord';
import { LOCAL_ACCOUNT } from '../core/server/agentDirectory';
import { ServiceError } from '../core/service/serviceError';
import { checkExecutionId } from '../core/service/target';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';
import { loadAgentFile } from '../runs/agentFile';
import { RunBlocked, guardedCommand } from '../commandErrors';
import type { RunDeps } from '../runs/runDeps';
import { targetInfoFor, targetWithKey } from '../runs/serviceTarget';

export function registerPollExecutionCommand(context: vscode.ExtensionContext, deps: RunDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.pollExecution,
      guardedCommand(
        'Poll Execution',
        deps.logger,
        (executionId) => pollExecutionById(typeof executionId === 'string' ? executionId : undefined, deps),
        { trusted: 'Watching executions' },
      ),
    ),
  );
}

async function pollExecutionById(given: string | undefined, deps: RunDeps): Promise<ExecutionRecord | undefined> {
  const { info, agentName, file } = await serviceOfContext(deps);
  const id =
    given ??
    (await vscode.window.showInputBox({
      title: `Poll Execution on ${info.baseUrl}`,
      prompt: 'The execution id the service answered when the run started',
      placeHolder: '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01',
      ignoreFocusOut: true,
      validateInput: (value) => {
        try {
          checkExecutionId(value);
          return undefined;
        } catch (error) {
          return error instanceof ServiceError ? error.message : String(error);
        }
      },
    }));
  if (id === undefined) return undefined;
  const executionId = checkExecutionId(id);
  const target = await targetWithKey(info, deps, file);
  if (!target) return undefined;
  const existing = deps.store.all().find((record) => record.executionId === executionId && record.target?.baseUrl === info.baseUrl);
  if (existing && deps.runner.isWatching(existing.key)) {
    void vscode.window.showInformationMessage(`Execution ${executionId} is already being watched.`);
    return existing;
  }
  const record: ExecutionRecord = existing ?? {
    key: `poll-${executionId}`,
    executionId,
    mode: 'deployed',
    agentName: agentName ?? `Execution ${executionId.slice(0, 8)}`,
    ...(file ? { file: file.toString() } : {}),
    target: info,
    inputs: {},
    state: 'running',
    startedAt: Date.now(),
  };
  if (!existing) deps.results.started(record);
  return deps.runner.watch(record, target, 'notification');
}

/** The service to ask: the active agent file's, else the settings', else the local server's. */
async function serviceOfContext(deps: RunDeps): Promise<{ info: ExecutionTargetInfo; agentName?: string; file?: vscode.Uri }> {
  const active = vscode.window.activeTextEditor?.document;
  if (active?.languageId === AGENT_LANGUAGE_ID) {
    const file = await loadAgentFile(active.uri);
    return { info: await targetInfoFor(file, deps), agentName: file.displayName, file: active.uri };
  }
  const settings = serviceSettings();
  if (settings.baseUrl && settings.account) return { info: { baseUrl: settings.baseUrl, account: settings.account, agent: '' } };
  const local = deps.localServer.running;
  if (local) return { info: { baseUrl: local.url, account: LOCAL_ACCOUNT, agent: '' } };
  throw new RunBlocked(
    'Which service runs the execution? Open its agent file first, or set "agentWorkflows.baseUrl" and "agentWorkflows.account".',
    [{ title: 'Open Settings', run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentWorkflows.baseUrl') }],
  );
}
