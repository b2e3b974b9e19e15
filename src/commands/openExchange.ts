// "Open Exchange" (an exchange id of the send history, or an Exchange a local execution kept) and
// "Show Recent Requests" (the last sends of a node, or of the agent file in the editor, to reopen).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, reportCommandError } from '../commandErrors';
import type { Exchange } from '../core/exchange/exchange';
import { formatAge, formatBytes, formatDuration } from '../core/executions/executionRecord';
import type { ExchangeEntry, ExchangeHistory } from '../core/exchange/exchangeHistory';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';
import { nodeAtPosition } from '../language/nodeLocations';
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

/**
 * The sends of one node: the one given (file and node, as a code lens gives them), else the node at
 * the cursor of the agent editor when it has sends; else the sends of that agent file, else all.
 */
async function showRecent(
  exchanges: ExchangeHistory,
  views: ExchangeViews,
  file: unknown,
  nodeArgument: unknown,
): Promise<vscode.TextDocument | undefined> {
  const fileKey = file instanceof vscode.Uri ? file.toString() : typeof file === 'string' ? file : undefined;
  const editor = vscode.window.activeTextEditor;
  const activeFile = editor?.document.uri.toString();
  let node = typeof nodeArgument === 'string' ? nodeArgument : undefined;
  if (fileKey === undefined && node === undefined && editor?.document.languageId === AGENT_LANGUAGE_ID) {
    const atCursor = (await nodeAtPosition(editor.document, editor.selection.active))?.id;
    if (atCursor !== undefined && exchanges.forNode(editor.document.uri.toString(), atCursor).length > 0) node = atCursor;
  }
  let entries: readonly ExchangeEntry[];
  if (node !== undefined) entries = exchanges.forNode(fileKey ?? activeFile ?? '', node);
  else {
    const all = exchanges.all();
    const ofFile = all.filter((entry) => entry.file === (fileKey ?? activeFile));
    entries = ofFile.length > 0 ? ofFile : all;
  }
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(
      node !== undefined
        ? `No request of node ${node} was sent in this window. Use Send Request on the node first.`
        : 'No request was sent in this window. Use Send Request on an API node first.',
    );
    return undefined;
  }
  const now = Date.now();
  const items = entries.map((entry) => ({ ...describe(entry, now), id: entry.exchange.id }));
  const picked = await vscode.window.showQuickPick(items, {
    title: node !== undefined ? `Recent requests of ${node}` : 'Recent requests',
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
