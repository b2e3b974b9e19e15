// "Run Agent on Dataset…" and the actions on a batch in the Agent Executions view: pick the agent and
// the data file (from the explorer, the editor or dialogs), say where it runs and how many rows,
// confirm, then run it with cancellable progress (src/runs/batchRuns.ts); open a batch's results
// table or one row's result, stop, resume, restart the rows whose start is unknown, remove.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import type { BatchRecord } from '../core/batch/batchRecord';
import type { DataSurvey } from '../core/batch/dataRows';
import { errorMessage } from '../core/errors';
import { AGENT_FILES, AGENT_LANGUAGE_ID } from '../language/languageIds';
import { findWorkspaceFiles } from '../workspaceSearch';
import { loadAgentFile } from '../runs/agentFile';
import type { AgentFile } from '../runs/agentFile';
import { loadBatchCore } from '../runs/batchCore';
import type { BatchHistory } from '../runs/batchHistory';
import { isBatchRunning, resumeBatch, startBatch, stopBatch } from '../runs/batchRuns';
import { otherColumnsWords } from '../runs/batchSetupWords';
import type { BatchRunDeps } from '../runs/batchRuns';
import type { RunDeps } from '../runs/runDeps';
import { runTargetFor, startTargetWithKey } from '../runs/serviceTarget';
import type { RunTarget } from '../runs/serviceTarget';
import { batchResultsPanelOf, showBatchResults } from '../views/batchResultsPanel';
import type { BatchResultsPanel } from '../views/batchResultsPanel';
import { isBatchItem, isBatchRowItem } from '../views/treeItemKinds';
import { guardedCommand, RunBlocked } from '../commandErrors';

const DATA_FILE = /\.(jsonl|ndjson|csv|json)$/i;

export interface DatasetCommandDeps extends RunDeps {
  readonly batches: BatchHistory;
  readonly extensionUri: vscode.Uri;
}

export function registerDatasetCommands(context: vscode.ExtensionContext, deps: DatasetCommandDeps): BatchRunDeps {
  const showResults = (batch: BatchRecord): BatchResultsPanel =>
    showBatchResults(
      { extensionUri: deps.extensionUri, logger: deps.logger },
      { key: batch.key, title: `${batch.agentName}: ${basename(batch.dataPath)}`, resultsPath: batch.resultsPath },
    );
  const batchDeps: BatchRunDeps = {
    ...deps,
    showResults,
    // Called at most once a second while a batch runs (batchRuns.ts saves its counts that often), and when it ends.
    onRowsChanged: (batch) => void batchResultsPanelOf(batch.key)?.refresh(),
  };
  const batchOf = (argument: unknown): BatchRecord | undefined => {
    if (isBatchItem(argument)) return deps.batches.get(argument.batch.key) ?? argument.batch;
    if (typeof argument === 'string') return deps.batches.get(argument);
    return undefined;
  };
  const guarded = <R>(what: string, action: (argument: unknown) => Promise<R>, options: { readonly trusted?: string } = {}) =>
    guardedCommand(what, deps.logger, action, options);

  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.runDataset,
      guarded('Run Agent on Dataset', (argument) => runDataset(argument, batchDeps), { trusted: 'Running agents' }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.openBatchResults,
      guarded('Open Results Table', async (argument) => {
        const batch = batchOf(argument) ?? (await pickBatch(deps.batches, () => true));
        return batch ? showResults(batch) : undefined;
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.openBatchRow,
      guarded('Open Row Result', async (argument) => {
        if (!isBatchRowItem(argument)) return undefined;
        const document = await vscode.workspace.openTextDocument({
          language: 'json',
          content: `${JSON.stringify(argument.result, null, 2)}\n`,
        });
        return vscode.window.showTextDocument(document, { preview: true });
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.stopBatch,
      guarded('Stop Batch', async (argument) => {
        const batch = batchOf(argument) ?? (await pickBatch(deps.batches, (candidate) => isBatchRunning(candidate.key)));
        return batch ? stopBatch(batch.key) : false;
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.resumeBatch,
      guarded(
        'Resume Batch',
        async (argument) => {
          const batch =
            batchOf(argument) ??
            (await pickBatch(deps.batches, (candidate) => candidate.state !== 'finished' && !isBatchRunning(candidate.key)));
          return batch ? resumeBatch(batch, batchDeps) : undefined;
        },
        { trusted: 'Running agents' },
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.restartUnknownRows,
      guarded(
        'Restart Unknown Rows',
        async (argument) => {
          const batch =
            batchOf(argument) ??
            (await pickBatch(deps.batches, (candidate) => Boolean(candidate.counts?.unknown) && !isBatchRunning(candidate.key)));
          return batch ? restartUnknownRows(batch, batchDeps) : undefined;
        },
        { trusted: 'Running agents' },
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.removeBatch,
      guarded('Remove Batch', async (argument) => {
        const batch = batchOf(argument) ?? (await pickBatch(deps.batches, () => true));
        if (!batch) return false;
        stopBatch(batch.key);
        batchResultsPanelOf(batch.key)?.webviewPanel.dispose();
        await deps.batches.remove(batch.key);
        return true;
      }),
    ),
  );
  return batchDeps;
}

/** The batches that were running when the window closed go on (no prompt: a missing key leaves them stopped). */
export async function resumeBatches(deps: BatchRunDeps): Promise<void> {
  for (const batch of deps.batches.all().filter((candidate) => candidate.state === 'running' && !isBatchRunning(candidate.key))) {
    try {
      await resumeBatch(batch, deps, { prompt: false });
    } catch (error) {
      deps.logger.error(`Resuming the batch ${batch.key} failed: ${errorMessage(error)}`);
      await deps.batches.update(batch.key, { state: 'error', error: `Not resumed: ${errorMessage(error)}` });
    }
  }
}

/**
 * Resumes a batch starting again its rows whose start is unknown (sent, its answer never recorded),
 * once the user has confirmed that they may already run on the service and so run twice.
 */
async function restartUnknownRows(batch: BatchRecord, deps: BatchRunDeps): Promise<BatchRecord | undefined> {
  if (batch.state === 'running' || isBatchRunning(batch.key)) {
    void vscode.window.showInformationMessage(
      `The batch of "${batch.agentName}" is running: stop it first, then restart its rows whose start is unknown.`,
    );
    return undefined;
  }
  const unknown = batch.counts?.unknown ?? 0;
  if (unknown === 0) {
    void vscode.window.showInformationMessage(
      `The batch of "${batch.agentName}" has no rows whose start is unknown: there is nothing to restart.${batch.state === 'finished' ? '' : ' Resume Batch goes on with the rows left.'}`,
    );
    return undefined;
  }
  const rows = `${unknown} ${unknown === 1 ? 'row' : 'rows'}`;
  const RESTART = `Restart ${unknown} ${unknown === 1 ? 'Row' : 'Rows'}`;
  const choice = await vscode.window.showWarningMessage(
    `Restart ${rows} of "${batch.agentName}" whose start is unknown?`,
    {
      modal: true,
      detail: `The start of ${unknown === 1 ? 'this row was' : 'these rows were'} sent but the answer never came back (the batch stopped or the window closed), so ${unknown === 1 ? 'it' : 'they'} may already have started on the service: restarted, ${unknown === 1 ? 'it' : 'they'} may run twice. Check the service's executions first if that matters. The other rows are not started again.`,
    },
    RESTART,
  );
  if (choice !== RESTART) return undefined;
  return resumeBatch(batch, deps, { restartUnknown: true });
}

async function runDataset(argument: unknown, deps: BatchRunDeps): Promise<BatchRecord | undefined> {
  const chosen = await chooseAgentAndData(argument);
  if (!chosen) return undefined;
  const file = await loadAgentFile(chosen.agent);
  const dataPath = chosen.data.fsPath;
  const where = await chooseWhere(file, deps);
  if (!where) return undefined;

  const core = await loadBatchCore();
  let survey: DataSurvey;
  try {
    survey = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Counting the rows of ${basename(dataPath)}` },
      () => core.surveyDataFile(dataPath),
    );
  } catch (error) {
    throw new RunBlocked(`${basename(dataPath)} cannot be run: ${errorMessage(error)}`);
  }
  const total = survey.rows;
  // Columns that are not inputs are said before anything is sent: kept in the results, or a typo.
  const others = core.otherColumns(file.model, survey);

  const RUN = `Run ${total} ${total === 1 ? 'Row' : 'Rows'}`;
  const place =
    where === 'local'
      ? 'on this machine with the workflow engine (nothing is sent to the service)'
      : `on ${where.info.baseUrl}, account ${where.info.account}, agent ${where.info.agent}${where.info.environment ? ` (environment ${where.info.environment})` : ''}`;
  const choice = await vscode.window.showInformationMessage(
    `Run "${file.displayName}" on ${total} ${total === 1 ? 'row' : 'rows'} of ${basename(dataPath)}?`,
    {
      modal: true,
      detail: `It runs ${place}. Results go to the Agent Executions view and a results table; the batch can be stopped and resumed.${others ? `\n\n${otherColumnsWords(others)}` : ''}`,
    },
    RUN,
  );
  if (choice !== RUN) return undefined;
  if (where === 'local') return startBatch(file, dataPath, { local: true }, total, deps, survey);
  const target = await startTargetWithKey(where, deps, file.uri, `Run "${file.displayName}" on ${total} rows`);
  if (!target) return undefined;
  return startBatch(file, dataPath, { info: where.info, target }, total, deps, survey);
}

/** The agent and data file: from the argument (either), the active editor, else asked for. */
async function chooseAgentAndData(argument: unknown): Promise<{ agent: vscode.Uri; data: vscode.Uri } | undefined> {
  const given = argument instanceof vscode.Uri ? argument : undefined;
  const active = vscode.window.activeTextEditor?.document;
  let agent = given && !DATA_FILE.test(given.path) ? given : !given && active?.languageId === AGENT_LANGUAGE_ID ? active.uri : undefined;
  let data = given && DATA_FILE.test(given.path) ? given : undefined;
  if (!agent) {
    const agents = await findWorkspaceFiles(AGENT_FILES, { max: 500 });
    if (agents.length === 0) throw new RunBlocked('There is no agent file (*.agent.yaml) in the workspace to run on a dataset.');
    const picked = await vscode.window.showQuickPick(
      agents.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri })),
      { title: 'Run Agent on Dataset', placeHolder: 'The agent to run on each row' },
    );
    agent = picked?.uri;
    if (!agent) return undefined;
  }
  if (!data) {
    const picked = await vscode.window.showOpenDialog({
      title: 'Run Agent on Dataset: the data file',
      openLabel: 'Run on This Dataset',
      canSelectMany: false,
      filters: { 'Data files': ['jsonl', 'ndjson', 'csv', 'json'] },
      ...(vscode.workspace.getWorkspaceFolder(agent) ? { defaultUri: vscode.workspace.getWorkspaceFolder(agent)!.uri } : {}),
    });
    data = picked?.[0];
    if (!data) return undefined;
  }
  if (data.scheme !== 'file') throw new RunBlocked('A dataset is read from disk: choose a data file on this machine.');
  return { agent, data };
}

/** On the deployment (the run target, environment included) or on this machine; asked when both can. */
async function chooseWhere(file: AgentFile, deps: BatchRunDeps): Promise<RunTarget | 'local' | undefined> {
  let deployed: RunTarget | undefined;
  let why: string | undefined;
  try {
    deployed = await runTargetFor(file, deps);
  } catch (error) {
    why = errorMessage(error);
  }
  const items: (vscode.QuickPickItem & { readonly where: RunTarget | 'local' })[] = [];
  if (deployed)
    items.push({
      label: '$(cloud) On the deployment',
      description: `${deployed.info.baseUrl} · ${deployed.info.account}${deployed.info.environment ? ` · ${deployed.info.environment}` : ''}`,
      where: deployed,
    });
  items.push({
    label: '$(debug-alt-small) On this machine',
    description: 'the workflow engine; nothing is sent to the service',
    ...(why ? { detail: `No deployment: ${why}` } : {}),
    where: 'local',
  });
  const picked = await vscode.window.showQuickPick(items, {
    title: `Run "${file.displayName}" on a dataset`,
    placeHolder: 'Where the rows run',
  });
  return picked?.where;
}

async function pickBatch(batches: BatchHistory, filter: (batch: BatchRecord) => boolean): Promise<BatchRecord | undefined> {
  const candidates = batches.all().filter(filter);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage('No batch fits. Run an agent on a dataset first (Run Agent on Dataset…).');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((batch) => ({ label: batch.agentName, description: `${basename(batch.dataPath)} · ${batch.state}`, batch })),
    { placeHolder: 'The batch' },
  );
  return picked?.batch;
}
