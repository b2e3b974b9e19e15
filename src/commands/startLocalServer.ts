// "Agent Workflows: Start Local Agent Server": serves the workspace folder's agent files on
// 127.0.0.1 with the service's HTTP interface, so Run Agent can target it with no cloud account.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import type { LocalServerHost } from '../runs/localServerHost';

export function registerStartLocalServerCommand(
  context: vscode.ExtensionContext,
  deps: { readonly localServer: LocalServerHost; readonly logger: vscode.LogOutputChannel },
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.startLocalServer,
      guardedCommand(
        'Start Local Agent Server',
        deps.logger,
        async (folder) => {
          const chosen = folder instanceof vscode.Uri ? folder : await pickFolder();
          if (!chosen) return undefined;
          const server = await deps.localServer.start(chosen);
          const agents = server.agents();
          const broken = agents.filter((agent) => agent.error).length;
          void vscode.window
            .showInformationMessage(
              `Local agent server on ${server.url}: ${agents.length} agent ${agents.length === 1 ? 'file' : 'files'}${broken ? ` (${broken} with errors)` : ''}. Run Agent now targets it for files without a deployment.`,
              'Copy URL',
              'Stop',
            )
            .then((choice) => {
              if (choice === 'Copy URL') void vscode.env.clipboard.writeText(server.url);
              else if (choice === 'Stop') void vscode.commands.executeCommand(COMMANDS.stopLocalServer);
            });
          return server.url;
        },
        { trusted: 'The local agent server' },
      ),
    ),
    vscode.commands.registerCommand(COMMANDS.stopLocalServer, async () => {
      const stopped = await deps.localServer.stop();
      if (!stopped) void vscode.window.showInformationMessage('The local agent server is not running.');
      return stopped;
    }),
  );
}

async function pickFolder(): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    void vscode.window.showErrorMessage(
      'Open a folder with agent files first: the local server serves the *.agent.yaml files of a workspace folder.',
    );
    return undefined;
  }
  if (folders.length === 1) return folders[0]!.uri;
  return (await vscode.window.showWorkspaceFolderPick({ placeHolder: 'The folder whose agent files to serve' }))?.uri;
}
