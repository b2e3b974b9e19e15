// "Agent Workflows: Run Agent": validates the agent file, asks for its inputs (remembered per file),
// starts it on the service its deployment names (multipart when it has file inputs) and watches it
// to the end. From the palette, the explorer and editor menus, and the code lens.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { chooseAgentFile } from '../runs/agentFile';
import { runAgentFile } from '../runs/agentRuns';
import type { RunDeps } from '../runs/runDeps';
import { guardedCommand } from '../commandErrors';

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
