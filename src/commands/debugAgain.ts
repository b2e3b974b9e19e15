// "Debug Again" on a local execution in the Agent Executions view (inline and item menu): debugs
// the agent file it ran with the same inputs and input files, under the agent debugger. Secrets
// come from secret storage, asked for when missing as Debug Agent asks them (the debug
// configuration provider, src/runs/debugAdapterCode.ts): an execution never keeps one. A file gone
// since is said, nothing started; a file changed since is debugged as it is now, with a note.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, RunBlocked } from '../commandErrors';
import { AGENT_DEBUG_TYPE } from '../runs/agentDebugConfig';
import { agentTextDigest } from '../runs/agentFile';
import type { ExecutionHistory } from '../runs/executionHistory';
import { openDocument, savedText } from '../workspaceFiles';
import { chooseExecution } from '../views/executionChoice';

export interface DebugAgainDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly store: ExecutionHistory;
}

export function registerDebugAgainCommand(context: vscode.ExtensionContext, { logger, store }: DebugAgainDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.debugAgain,
      guardedCommand(
        'Debug Again',
        logger,
        async (argument) => {
          const record = await chooseExecution(argument, store, {
            accepts: (candidate) => candidate.mode === 'local' && candidate.file !== undefined,
            noneMessage: 'No local execution in the history. Run an agent with Run Locally first.',
            placeHolder: 'The local execution to debug again',
            detail: (candidate) => candidate.state,
          });
          if (!record) return undefined;
          if (record.mode !== 'local' || !record.file)
            throw new RunBlocked(
              `Debug Again debugs executions that ran on this machine (Run Locally); this execution of ${record.agentName} ran on a service.`,
            );
          const uri = vscode.Uri.parse(record.file);
          const name = uri.path.split('/').pop() ?? uri.path;
          // What the session will read: the editor's unsaved text, else the file (an open editor
          // without changes may not have caught up with the file yet).
          const open = openDocument(uri);
          const text = open?.isDirty ? open.getText() : await savedText(uri);
          if (text === undefined)
            throw new RunBlocked(
              `${name} no longer exists: this execution cannot be debugged again. It ran ${uri.fsPath}; to debug the agent now, open its file and choose Debug Agent.`,
            );
          if (record.fileDigest !== undefined && agentTextDigest(text) !== record.fileDigest)
            void vscode.window.showWarningMessage(
              `${name} changed since this execution ran: it is debugged as it is now, with the execution's inputs.`,
            );
          const inputs: Record<string, string | number | boolean> = {};
          for (const [input, value] of Object.entries(record.inputs)) if (typeof value !== 'object') inputs[input] = value;
          return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(uri), {
            type: AGENT_DEBUG_TYPE,
            request: 'launch',
            name: `Debug ${name} again`,
            program: uri.fsPath,
            // Given (even empty), so the inputs are not asked for: they are the execution's.
            inputs,
            files: { ...record.filePaths },
          });
        },
        { trusted: 'Running agents' },
      ),
    ),
  );
}
