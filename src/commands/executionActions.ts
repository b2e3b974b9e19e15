// The actions on an execution in the "Agent Executions" view: open the result, copy a value or the
// id, run again with the same inputs, watch again, stop watching, remove; and "Clear Finished".
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import { guardedCommand } from '../commandErrors';
import { openResultDocument } from '../runs/resultsChannel';
import { runAgentFile, runAgentFileLocally } from '../runs/agentRuns';
import type { BatchHistory } from '../runs/batchHistory';
import type { RunDeps } from '../runs/runDeps';
import { targetWithKey } from '../runs/serviceTarget';
import { isExecutionItem, isValueItem } from '../views/treeItemKinds';

export function registerExecutionActions(context: vscode.ExtensionContext, deps: RunDeps & { readonly batches: BatchHistory }): void {
  /** The record an action is about: the clicked item, else one picked from the history. */
  const recordOf = async (
    item: unknown,
    filter: (record: ExecutionRecord) => boolean,
    placeHolder: string,
  ): Promise<ExecutionRecord | undefined> => {
    if (isExecutionItem(item) || isValueItem(item)) return deps.store.get(item.record.key) ?? item.record;
    const candidates = deps.store.all().filter(filter);
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage('No execution in the history fits. Run an agent first.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      candidates.map((record) => ({
        label: record.agentName,
        description: `${record.state}${record.executionId ? ` · ${record.executionId}` : ''}`,
        record,
      })),
      { placeHolder },
    );
    return picked?.record;
  };
  const guarded = <R>(what: string, action: (item: unknown) => Promise<R>, options: { readonly trusted?: string } = {}) =>
    guardedCommand(what, deps.logger, action, options);

  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.openResult,
      guarded('Open Result', async (item) => {
        const record = await recordOf(item, () => true, 'The execution whose result to open');
        return record ? openResultDocument(record) : undefined;
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.copyOutput,
      guarded('Copy Value', async (item) => {
        let text: string | undefined;
        if (isValueItem(item)) text = item.copyText;
        else {
          const record = await recordOf(item, (candidate) => candidate.outputs !== undefined, 'The execution whose outputs to copy');
          if (record) text = JSON.stringify(record.outputs ?? null, null, 2);
        }
        if (text === undefined) return undefined;
        await vscode.env.clipboard.writeText(text);
        vscode.window.setStatusBarMessage('$(check) Copied', 3000);
        return text;
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.copyExecutionId,
      guarded('Copy Execution Id', async (item) => {
        const record = await recordOf(item, (candidate) => candidate.executionId !== undefined, 'The execution whose id to copy');
        if (!record?.executionId) return undefined;
        await vscode.env.clipboard.writeText(record.executionId);
        vscode.window.setStatusBarMessage(`$(check) Copied ${record.executionId}`, 3000);
        return record.executionId;
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.runAgain,
      guarded(
        'Run Again',
        async (item) => {
          const record = await recordOf(item, (candidate) => candidate.file !== undefined, 'The execution to run again');
          if (!record?.file) return undefined;
          const values: Record<string, string | number | boolean> = {};
          for (const [name, value] of Object.entries(record.inputs)) if (typeof value !== 'object') values[name] = value;
          const given = { values, files: { ...record.filePaths } };
          const uri = vscode.Uri.parse(record.file);
          // On the environment it ran on, not the one chosen since.
          return record.mode === 'local'
            ? runAgentFileLocally(uri, deps, given)
            : runAgentFile(uri, deps, given, record.target?.environment);
        },
        { trusted: 'Running agents' },
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.watchAgain,
      guarded(
        'Watch Again',
        async (item) => {
          const record = await recordOf(
            item,
            (candidate) => candidate.mode === 'deployed' && candidate.executionId !== undefined && !deps.runner.isWatching(candidate.key),
            'The execution to watch again',
          );
          if (!record?.target || !record.executionId) return undefined;
          if (deps.runner.isWatching(record.key)) return record;
          const target = await targetWithKey(record.target, deps, record.file ? vscode.Uri.parse(record.file) : undefined);
          return target ? deps.runner.watch(record, target, 'notification') : undefined;
        },
        { trusted: 'Watching executions' },
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.stopWatching,
      guarded('Stop', async (item) => {
        const record = await recordOf(item, (candidate) => deps.runner.isWatching(candidate.key), 'The execution to stop watching');
        return record ? deps.runner.stop(record.key) : false;
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.remove,
      guarded('Remove', async (item) => {
        const record = await recordOf(item, () => true, 'The execution to remove from the history');
        if (!record) return false;
        deps.runner.stop(record.key);
        await deps.store.remove(record.key);
        return true;
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.clearFinished,
      guarded('Clear Finished', async () => {
        // Ended batches go too (with their files); running ones stay, like running executions.
        const removed = (await deps.store.clearFinished()) + (await deps.batches.clearFinished());
        vscode.window.setStatusBarMessage(`$(check) Removed ${removed} finished ${removed === 1 ? 'execution' : 'executions'}`, 3000);
        return removed;
      }),
    ),
  );
}
