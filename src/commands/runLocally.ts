// "Agent Workflows: Run Locally": runs an agent file in this window with the workflow engine, no
// service or account needed. Secrets come from SecretStorage (asked for when missing); the
// per-node trace shows in the output and the executions tree.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { chooseAgentFile } from '../runs/agentFile';
import { runAgentFileLocally } from '../runs/agentRuns';
import type { RunDeps } from '../runs/runDeps';
import { guardedCommand } from '../commandErrors';

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
