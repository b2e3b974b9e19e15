// Registers the "Agent Executions" view and the status bar item that counts running executions.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { isActive } from '../core/executions/executionRecord';
import type { BatchHistory } from '../runs/batchHistory';
import type { ExecutionExchangeFiles } from '../runs/executionExchanges';
import type { ExecutionHistory } from '../runs/executionHistory';
import { ExecutionsTreeProvider } from './executionsTree';

export const EXECUTIONS_VIEW_ID = 'agentWorkflows.executions';
/** Relative times ("2 min ago") go stale; refresh them while the view is visible. */
const AGE_REFRESH_MS = 30_000;

export function registerExecutionsView(
  context: vscode.ExtensionContext,
  deps: { readonly store: ExecutionHistory; readonly batches: BatchHistory; readonly exchanges?: ExecutionExchangeFiles },
): ExecutionsTreeProvider {
  const provider = new ExecutionsTreeProvider(deps.store, deps.batches, deps.exchanges);
  const view = vscode.window.createTreeView(EXECUTIONS_VIEW_ID, {
    treeDataProvider: provider,
    showCollapseAll: true,
    // Two executions selected can be compared.
    canSelectMany: true,
  });
  let timer: ReturnType<typeof setInterval> | undefined;
  const syncTimer = (): void => {
    if (view.visible && !timer) timer = setInterval(() => provider.refresh(), AGE_REFRESH_MS);
    else if (!view.visible && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const status = vscode.window.createStatusBarItem('agentWorkflows.running', vscode.StatusBarAlignment.Left, 50);
  status.name = 'Agent Workflows: running executions';
  status.command = COMMANDS.showExecutions;
  const updateStatus = (): void => {
    const running = deps.store.all().filter(isActive);
    view.badge = running.length ? { value: running.length, tooltip: `${running.length} running` } : undefined;
    if (running.length === 0) {
      status.hide();
      return;
    }
    status.text = `$(sync~spin) ${running.length === 1 ? running[0]!.agentName : `${running.length} agents`} running`;
    status.tooltip = `Agent executions running:\n${running.map((record) => `• ${record.agentName}${record.executionId ? ` (${record.executionId})` : ''}`).join('\n')}\nClick to open the Agent Executions view.`;
    status.show();
  };
  updateStatus();
  syncTimer();
  context.subscriptions.push(
    provider,
    view,
    status,
    view.onDidChangeVisibility(syncTimer),
    deps.store.onDidChange(updateStatus),
    vscode.commands.registerCommand(COMMANDS.refresh, () => provider.refresh()),
    new vscode.Disposable(() => timer && clearInterval(timer)),
  );
  return provider;
}
