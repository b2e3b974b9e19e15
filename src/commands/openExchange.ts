// "Open Exchange" (an exchange id of the send history, or an Exchange a local execution kept) and
// "Show Recent Requests" (the last sends of a node, or of the agent file in the editor, to reopen).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, reportCommandError } from '../commandErrors';
import type { Exchange } from '../core/exchange/exchange';
import { formatAge, formatBytes, formatDuration } from '../core/executions/executionRecord';
import type { ExchangeEntry, ExchangeHistory } from '../core/exchange/exchangeHistory';
import type { ExchangeViews } from '../views/exchangeView';

export interface OpenExchangeDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly exchanges: ExchangeHistory;
  readonly views: ExchangeViews;
}

export function registerOpenExchangeCommands(context: vscode.ExtensionContext, deps: OpenExchangeDeps): void {
  const { logger, exchanges, views } = deps;
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.openExchange,
      guardedCommand('Open Exchange', logger, async (argument) => {
        if (typeof argument === 'string' || isExchange(argument)) return views.show(argument);
        throw new Error('Open Exchange takes an exchange id or an exchange.');
      }),
    ),
    vscode.commands.registerCommand(COMMANDS.showRecentRequests, async (file?: unknown, node?: unknown) => {
      try {
        return await showRecent(exchanges, views, file, node);
      } catch (error) {
        return reportCommandError(error, 'Show Recent Requests', logger);
      }
    }),
  );
}

/** The sends of one node (file and node given, as a code lens does), else of the active agent file, else all. */
async function showRecent(
  exchanges: ExchangeHistory,
  views: ExchangeViews,
  file: unknown,
  node: unknown,
): Promise<vscode.TextDocument | undefined> {
  const fileKey = file instanceof vscode.Uri ? file.toString() : typeof file === 'string' ? file : undefined;
  const activeFile = vscode.window.activeTextEditor?.document.uri.toString();
  let entries: readonly ExchangeEntry[];
  if (fileKey !== undefined && typeof node === 'string') entries = exchanges.forNode(fileKey, node);
  else {
    const all = exchanges.all();
    const ofFile = all.filter((entry) => entry.file === (fileKey ?? activeFile));
    entries = ofFile.length > 0 ? ofFile : all;
  }
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(
      typeof node === 'string'
        ? `No request of node ${node} was sent in this window. Use Send Request on the node first.`
        : 'No request was sent in this window. Use Send Request on an API node first.',
    );
    return undefined;
  }
  const now = Date.now();
  const items = entries.map((entry) => ({ ...describe(entry, now), id: entry.exchange.id }));
  const picked = await vscode.window.showQuickPick(items, {
    title: typeof node === 'string' ? `Recent requests of ${node}` : 'Recent requests',
    placeHolder: 'Pick a request to see its exchange',
    matchOnDetail: true,
  });
  return picked ? views.show(picked.id) : undefined;
}

function describe(entry: ExchangeEntry, now: number): vscode.QuickPickItem {
  const { exchange } = entry;
  const response = exchange.response;
  const outcome = response ? `${response.status} ${response.statusText}` : `failed (${exchange.failure?.kind ?? 'no answer'})`;
  const size = response && response.body.kind !== 'empty' ? ` · ${formatBytes(response.body.size)}` : '';
  const started = Date.parse(exchange.startedAt);
  const age = Number.isFinite(started) ? ` · ${formatAge(started, now)}` : '';
  return {
    label: `${entry.node} · ${outcome}`,
    description: `${formatDuration(exchange.timing.totalMs)}${size}${age}`,
    detail: `${exchange.request.method} ${exchange.request.url}`,
  };
}

function isExchange(value: unknown): value is Exchange {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Exchange).id === 'string' &&
    typeof (value as Exchange).request === 'object' &&
    typeof (value as Exchange).timing === 'object'
  );
}
