// The commands the browser build (VS Code for the Web) contributes but cannot run: package.json
// contributes them for both hosts, so each is registered to say why it is absent, not to fail.
import * as vscode from 'vscode';
import { DESKTOP_ONLY_COMMANDS } from '../commandIds';
import type { HostNeed } from '../core/hostNeeds';

const WHY: Readonly<Record<HostNeed, string>> = {
  service:
    'it calls the agent service through Node’s HTTP client (proxies, time limits, and redirect checks that keep your API key on its origin), which a browser tab does not have',
  engine: 'it runs workflow nodes, which call APIs through Node’s HTTP client, absent in a browser tab',
  server: 'it starts the local agent server, an HTTP server a browser tab cannot run',
  disk: 'it reads files from your disk, which a browser tab cannot reach',
  tests: 'agent tests run the workflow engine, which needs Node',
};

/** What the user is told when invoking a command the browser cannot run. */
export function desktopOnlyMessage(title: string, need: HostNeed): string {
  return `"${title}" needs the desktop VS Code: ${WHY[need]}. Open this repository in VS Code on your computer (or in a codespace) to use it; here you can write, check and draw agent files.`;
}

/** Registers each desktop-only command to say why it is absent (titles from the manifest). */
export function registerDesktopOnlyCommands(context: vscode.ExtensionContext): void {
  const contributed = (
    context.extension.packageJSON as { contributes?: { commands?: { command: string; title: string; category?: string }[] } }
  ).contributes?.commands;
  const titles = new Map(
    (contributed ?? []).map((command) => [command.command, command.category ? `${command.category}: ${command.title}` : command.title]),
  );
  for (const [id, need] of Object.entries(DESKTOP_ONLY_COMMANDS)) {
    const message = desktopOnlyMessage(titles.get(id) ?? id, need);
    context.subscriptions.push(
      vscode.commands.registerCommand(id, () => {
        void vscode.window.showInformationMessage(message);
        return message;
      }),
    );
  }
}
