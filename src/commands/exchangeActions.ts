// The exchange view's title actions: Save Body, Copy Body, Copy as curl (each secret as the shell
// variable `agent-workflows send` reads, never its value), and for a send Send Again and Pin (the
// send commands do those, given the agent file and node, or the exchange id).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { RunBlocked, guardedCommand } from '../commandErrors';
import { curlForExchange } from '../core/exchange/curl';
import { bodyBytes, bodyFileExtension } from '../core/exchange/exchangeDocument';
import { formatBytes } from '../core/executions/executionRecord';
import { EXCHANGE_SCHEME } from '../views/exchangeView';
import type { ExchangeViews, ShownExchange } from '../views/exchangeView';

export interface ExchangeActionsDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly views: ExchangeViews;
}

export function registerExchangeActions(context: vscode.ExtensionContext, deps: ExchangeActionsDeps): void {
  const { logger, views } = deps;
  const action = (what: string, run: (shown: ShownExchange) => Promise<unknown>): ((argument?: unknown) => Promise<unknown>) =>
    guardedCommand(what, logger, async (argument) => run(shownExchange(views, argument)));
  context.subscriptions.push(
    vscode.commands.registerCommand(COMMANDS.saveExchangeBody, action('Save Body', saveBody)),
    vscode.commands.registerCommand(COMMANDS.copyExchangeBody, action('Copy Body', copyBody)),
    vscode.commands.registerCommand(COMMANDS.copyExchangeAsCurl, action('Copy as curl', copyAsCurl)),
    vscode.commands.registerCommand(
      COMMANDS.openWholeExchangeBody,
      action('Open Whole Body', ({ exchange }) => views.show(exchange.id, { wholeBody: true })),
    ),
    vscode.commands.registerCommand(
      COMMANDS.sendExchangeAgain,
      action('Send Again', async ({ entry }) => {
        if (!entry) throw new RunBlocked('This exchange is from a run, not a send: use Run Locally to run the agent again.');
        return vscode.commands.executeCommand(COMMANDS.sendRequest, vscode.Uri.parse(entry.file), entry.node);
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.pinExchange,
      action('Pin', async ({ exchange, entry }) => {
        if (!entry) throw new RunBlocked('Only the result of a send can be pinned from its exchange.');
        return vscode.commands.executeCommand(COMMANDS.pinNodeResult, exchange.id);
      }),
    ),
  );
}

/** The exchange a title action is for: the URI the menu passes, an id, else the active editor's. */
function shownExchange(views: ExchangeViews, argument: unknown): ShownExchange {
  const target =
    argument instanceof vscode.Uri || typeof argument === 'string'
      ? argument
      : vscode.window.activeTextEditor?.document.uri.scheme === EXCHANGE_SCHEME
        ? vscode.window.activeTextEditor.document.uri
        : undefined;
  if (target === undefined) throw new RunBlocked('Open an exchange first: Send Request on an API node, or Show Recent Requests.');
  const shown = views.find(target);
  if (!shown)
    throw new RunBlocked('This exchange is no longer kept: the window keeps the last 20 sends of each node. Send the request again.');
  return shown;
}

async function saveBody({ exchange }: ShownExchange): Promise<vscode.Uri | undefined> {
  const response = exchange.response;
  const body = response?.body;
  if (!response || !body || body.kind === 'empty' || body.kind === 'file')
    throw new RunBlocked('This exchange has no response body to save.');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `${exchange.node}-response${bodyFileExtension(response.contentType)}`;
  const target = await vscode.window.showSaveDialog({
    title: 'Save Response Body',
    saveLabel: 'Save Body',
    ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
  });
  if (!target) return undefined;
  const bytes = bodyBytes(body);
  await vscode.workspace.fs.writeFile(target, bytes);
  const saved = body.truncated
    ? `Saved the first ${formatBytes(bytes.length)} of the body (${formatBytes(body.size)} in all: only the start was kept).`
    : `Saved the body (${formatBytes(bytes.length)}).`;
  void vscode.window.showInformationMessage(saved);
  return target;
}

async function copyBody({ exchange }: ShownExchange): Promise<string | undefined> {
  const body = exchange.response?.body;
  if (!body || body.kind === 'empty' || body.kind === 'file') throw new RunBlocked('This exchange has no response body to copy.');
  if (body.kind === 'binary')
    throw new RunBlocked(
      `The body is ${formatBytes(body.size)} of binary data (${exchange.response?.contentType ?? 'no Content-Type'}): use Save Body.`,
    );
  await vscode.env.clipboard.writeText(body.text);
  if (body.truncated) void vscode.window.showInformationMessage(`Copied the start of the body kept (${formatBytes(body.size)} in all).`);
  return body.text;
}

async function copyAsCurl({ exchange }: ShownExchange): Promise<string> {
  const command = curlForExchange(exchange);
  await vscode.env.clipboard.writeText(command);
  const secrets = [...new Set([...command.matchAll(/\$\{(AGENT_SECRET_\w+)\}/g)].map((match) => match[1]))];
  void vscode.window.showInformationMessage(
    secrets.length > 0 ? `Copied the curl command. Set ${secrets.join(', ')} in the shell before running it.` : 'Copied the curl command.',
  );
  return command;
}
