// "Agent Workflows: Debug Agent": starts the agent debugger (debug type agent-workflow) on an agent
// file, beside Run Locally (code lens, editor title, context menus). The debug configuration
// provider asks for the secrets and inputs as Run Locally does (src/runs/debugAdapterCode.ts).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { chooseAgentFile } from '../runs/agentFile';
import { AGENT_DEBUG_TYPE } from '../runs/agentDebugConfig';

export function registerDebugAgentCommand(context: vscode.ExtensionContext, deps: { readonly logger: vscode.LogOutputChannel }): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.debugAgent,
      guardedCommand(
        'Debug Agent',
        deps.logger,
        async (resource) => {
          const uri = await chooseAgentFile(resource, 'Debug Agent');
          if (!uri) return undefined;
          const name = uri.path.split('/').pop() ?? 'agent';
          return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(uri), {
            type: AGENT_DEBUG_TYPE,
            request: 'launch',
            name: `Debug ${name}`,
            program: uri.fsPath,
          });
        },
        { trusted: 'Running agents' },
      ),
    ),
  );
}
