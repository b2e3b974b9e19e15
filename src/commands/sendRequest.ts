// "Agent Workflows: Send Request": sends the request of one API node alone, with the values it
// needs (src/runs/nodeValues.ts), and opens its exchange beside the agent. A progress notification
// with Cancel shows while it is on its way; `agentWorkflows.sendRequest.timeout` bounds it.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, RunBlocked } from '../commandErrors';
import { proxySettings, sendRequestTimeoutMs } from '../config';
import type { ExchangeHistory } from '../core/exchange/exchangeHistory';
import { MissingValuesError, sendNode } from '../core/exchange/sendNode';
import type { SendOutcome } from '../core/exchange/sendNode';
import { anyHostDispatcher } from '../core/http/proxy';
import { withDispatcher } from '../runs/agentRuns';
import { chooseNode } from '../runs/nodeChoice';
import { prepareNode } from '../runs/nodeValues';
import type { NodeValueDeps } from '../runs/nodeValues';

export type SendRequestDeps = NodeValueDeps & { readonly exchanges: ExchangeHistory };

export function registerSendRequestCommand(context: vscode.ExtensionContext, deps: SendRequestDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.sendRequest,
      guardedCommand(
        'Send Request',
        deps.logger,
        async (resource, nodeArgument): Promise<SendOutcome | undefined> => {
          const choice = await chooseNode(resource, nodeArgument, {
            purpose: 'Send Request',
            accepts: (_uri, _node, type) => type === 'api',
            noneMessage: (name) => `${name} has no API node (type: api) to send.`,
          });
          if (!choice) return undefined;
          const { uri, node } = choice;
          const prepared = await prepareNode(uri, node, 'send', deps);
          if (!prepared) return undefined;
          const timeoutMs = sendRequestTimeoutMs(uri);
          const outcome = await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: `Send Request: ${node}`, cancellable: true },
            async (progress, token) => {
              const controller = new AbortController();
              const subscription = token.onCancellationRequested(() => controller.abort());
              progress.report({ message: `${prepared.node.kind === 'api' ? prepared.node.method : ''} waiting for the answer…` });
              try {
                return await sendNode(prepared.agent, node, {
                  inputs: prepared.inputs,
                  nodes: prepared.nodes,
                  secrets: async (name) => prepared.secrets.get(name),
                  timeoutMs,
                  signal: controller.signal,
                  ...withDispatcher(anyHostDispatcher(proxySettings())),
                });
              } catch (error) {
                // prepareNode gathered every value the node uses: one still missing is a bug to report plainly.
                if (error instanceof MissingValuesError) throw new RunBlocked(`Nothing was sent: ${error.message}`);
                throw error;
              } finally {
                subscription.dispose();
              }
            },
          );
          const file = uri.toString();
          deps.exchanges.add({ exchange: outcome.exchange, file, node, ...(outcome.result ? { result: outcome.result } : {}) });
          if (outcome.result) deps.nodeResults.set(file, node, outcome.result, 'send');
          const response = outcome.exchange.response;
          deps.logger.info(
            `Send Request ${node} of ${prepared.file.displayName}: ${response ? `${response.status} ${response.statusText}` : (outcome.failure?.message ?? 'no answer')} in ${Math.round(outcome.exchange.timing.totalMs)} ms.`,
          );
          await vscode.commands.executeCommand(COMMANDS.openExchange, outcome.exchange.id).then(undefined, (error: unknown) => {
            deps.logger.warn(`Send Request: the exchange view could not open: ${String(error)}`);
          });
          if (!response && outcome.failure) void vscode.window.showErrorMessage(`Send Request: ${node}: ${outcome.failure.message}`);
          return answerOf(outcome);
        },
        { trusted: 'Send Request' },
      ),
    ),
  );
}

/**
 * The outcome as the command's answer. A caller in the extension host gets it whole; written as
 * JSON (how VS Code sends a command's answer to the window that ran it, from a code lens or the
 * palette) it is the exchange's id and status only: its whole body was written, 20 MiB of the
 * host's heap for a 10 MiB answer, for a window that drops it.
 */
function answerOf(outcome: SendOutcome): SendOutcome {
  const summary = {
    exchangeId: outcome.exchange.id,
    ...(outcome.exchange.response ? { status: outcome.exchange.response.status } : {}),
    ...(outcome.failure ? { failure: outcome.failure.kind } : {}),
  };
  return Object.defineProperty({ ...outcome }, 'toJSON', { value: () => summary });
}
