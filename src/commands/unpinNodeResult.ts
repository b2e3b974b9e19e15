// "Agent Workflows: Unpin Node Result": the node is called again by Send Request and Run Locally.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { chooseNode } from '../runs/nodeChoice';
import type { PinStore } from '../runs/pinStore';

export function registerUnpinNodeResultCommand(
  context: vscode.ExtensionContext,
  deps: { readonly pins: PinStore; readonly logger: vscode.LogOutputChannel },
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.unpinNodeResult,
      guardedCommand('Unpin Node Result', deps.logger, async (resource, nodeArgument) => {
        const choice = await chooseNode(resource, nodeArgument, {
          purpose: 'Unpin Node Result',
          accepts: (uri, node) => deps.pins.get(uri, node) !== undefined,
          noneMessage: (name) => `${name} has no pinned node result.`,
        });
        if (!choice) return false;
        const removed = await deps.pins.unpin(choice.uri, choice.node);
        if (!removed) void vscode.window.showInformationMessage(`Node "${choice.node}" has no pinned result.`);
        return removed;
      }),
    ),
  );
}
