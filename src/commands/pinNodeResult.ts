// "Agent Workflows: Pin Node Result": keeps a node's result (from a send, or from a local
// execution in this window) in workspace storage; while pinned, Send Request and Run Locally use it
// instead of calling the node. The exchange view's Pin passes an exchange id; the editor passes
// the file and node (or the node under the cursor).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, RunBlocked } from '../commandErrors';
import type { ExchangeHistory } from '../core/exchange/exchangeHistory';
import type { PinnedResult } from '../core/nodeValues/pins';
import type { NodeResultMemory } from '../core/nodeValues/nodeResultMemory';
import { chooseNode } from '../runs/nodeChoice';
import type { PinStore } from '../runs/pinStore';

export interface PinDeps {
  readonly pins: PinStore;
  readonly nodeResults: NodeResultMemory;
  readonly exchanges: ExchangeHistory;
  readonly logger: vscode.LogOutputChannel;
}

export function registerPinNodeResultCommand(context: vscode.ExtensionContext, deps: PinDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.pinNodeResult,
      guardedCommand('Pin Node Result', deps.logger, async (resource, nodeArgument) => {
        const target = typeof resource === 'string' ? fromExchange(resource, deps) : await fromNode(resource, nodeArgument, deps);
        if (!target) return undefined;
        const check = await deps.pins.pin(target.uri, target.pin);
        if (!check.ok) throw new RunBlocked(`The result of "${target.pin.node}" cannot be pinned: ${check.reason}.`);
        void vscode.window.showInformationMessage(
          `Pinned the result of "${target.pin.node}": Send Request and Run Locally use it instead of calling the node, until you unpin it.`,
        );
        return target.pin;
      }),
    ),
  );
}

function fromExchange(id: string, deps: PinDeps): { uri: vscode.Uri; pin: PinnedResult } | undefined {
  const entry = deps.exchanges.get(id);
  if (!entry)
    throw new RunBlocked('That send is no longer kept in this window (only the last 20 per node are): send the node again, then pin.');
  if (!entry.result) {
    const failure = entry.exchange.failure?.message ?? 'it has no result';
    throw new RunBlocked(`This send of "${entry.node}" has no result to pin: ${failure}`);
  }
  return {
    uri: vscode.Uri.parse(entry.file),
    pin: { node: entry.node, result: entry.result, pinnedAt: Date.now(), source: 'send', exchangeId: id },
  };
}

async function fromNode(
  resource: unknown,
  nodeArgument: unknown,
  deps: PinDeps,
): Promise<{ uri: vscode.Uri; pin: PinnedResult } | undefined> {
  const choice = await chooseNode(resource, nodeArgument, {
    purpose: 'Pin Node Result',
    accepts: (uri, node) => deps.nodeResults.get(uri.toString(), node) !== undefined,
    noneMessage: (name) => `No node of ${name} has a result in this window yet: use Send Request or Run Locally first, then pin.`,
  });
  if (!choice) return undefined;
  const kept = deps.nodeResults.get(choice.uri.toString(), choice.node);
  if (!kept)
    throw new RunBlocked(`Node "${choice.node}" has no result in this window yet: use Send Request or Run Locally first, then pin.`);
  return { uri: choice.uri, pin: { node: choice.node, result: kept.result, pinnedAt: Date.now(), source: kept.source } };
}
