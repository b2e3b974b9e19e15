// Running an agent over a data file from VS Code: what "Run Agent on Dataset…", Resume Batch and the
// resume after a reload share. The core's runBatch does the work (one scheduler, resumable state in
// the extension's storage); this shows its progress (cancellable), keeps the batch's record in step
// (throttled) and says how it ended. A cancelled or interrupted batch resumes without starting any
// row twice.
import * as vscode from 'vscode';
import { proxySettings, batchSettings, serviceSettings } from '../config';
import type { BatchRecord } from '../core/batch/batchRecord';
import type { DataSurvey } from '../core/batch/dataRows';
import { describeBatchCounts, previousBatchOf } from '../core/batch/batchRecord';
import { COMMANDS } from '../commandIds';
import { compareBatchRecords, comparisonWords } from './batchComparison';
import type { BatchCounts, BatchMode, BatchSetupProblem, BatchSummary } from '../core/batch/runBatch';
import type { ExecutionTargetInfo } from '../core/executions/executionRecord';
import { errorMessage } from '../core/errors';
import { anyHostDispatcher } from '../core/http/proxy';
import type { AgentTarget } from '../core/service/target';
import type { BatchHistory } from './batchHistory';
import { loadBatchCore } from './batchCore';
import { loadAgentFile } from './agentFile';
import { withDispatcher } from './agentRuns';
import type { AgentFile } from './agentFile';
import type { RunDeps } from './runDeps';
import { startTargetWithKey, targetWithKey } from './serviceTarget';
import { RunBlocked } from '../commandErrors';
import { ProgressSaves } from './progressSaves';
import { batchSetupWords } from './batchSetupWords';
import { allowedFolders, allowFoldersOnce } from './allowFiles';

export interface BatchRunDeps extends RunDeps {
  readonly batches: BatchHistory;
  /** Called (throttled) as rows end, so an open results table can follow. */
  readonly onRowsChanged: (batch: BatchRecord) => void;
  /** Opens a batch's results table. */
  readonly showResults: (batch: BatchRecord) => void;
}

/** How often a running batch's record (and the view) is brought up to date. */
const RECORD_UPDATE_MS = 1000;

/** Batches running in this window, to stop them. */
const running = new Map<string, AbortController>();

export function isBatchRunning(key: string): boolean {
  return running.has(key);
}

/** Stops a running batch (it can be resumed); false when it was not running here. */
export function stopBatch(key: string): boolean {
  const controller = running.get(key);
  controller?.abort();
  return controller !== undefined;
}

/** Starts a new batch of `file` over `dataPath`, on `target` (deployed) or on this machine (without one). */
export async function startBatch(
  file: AgentFile,
  dataPath: string,
  where: { readonly info: ExecutionTargetInfo; readonly target: AgentTarget } | { readonly local: true },
  total: number,
  deps: BatchRunDeps,
  /** The data file's columns, surveyed with its rows: not read again. */
  columns?: Pick<DataSurvey, 'columns' | 'columnsNotListed'>,
): Promise<BatchRecord> {
  const key = `batch-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const folder = deps.batches.folderOf(key);
  await vscode.workspace.fs.createDirectory(folder);
  const settings = batchSettings(file.uri);
  const record: BatchRecord = {
    key,
    agentName: file.displayName,
    file: file.uri.toString(),
    dataPath,
    mode: 'target' in where ? 'deployed' : 'local',
    ...('info' in where ? { target: where.info } : {}),
    resultsPath: vscode.Uri.joinPath(folder, 'results.jsonl').fsPath,
    statePath: vscode.Uri.joinPath(folder, 'results.jsonl.state').fsPath,
    concurrency: settings.concurrency,
    ratePerSecond: settings.ratePerSecond,
    state: 'running',
    startedAt: Date.now(),
    total,
  };
  // Before any row is read or sent: folders outside the data file's that its rows name, asked once.
  const core = await loadBatchCore();
  const refused = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `Checking the files named by ${vscode.workspace.asRelativePath(dataPath)}` },
    () => core.refusedDataFolders(file.model, dataPath, { allowedFolders: allowedFolders(deps.fileAllowances, file.uri) }),
  );
  const allowed = await allowFoldersOnce(refused, dataPath, 'data file', file.uri, deps.fileAllowances);
  await deps.batches.put(record);
  return execute(record, file, 'target' in where ? where.target : undefined, false, deps, allowed, columns);
}

/**
 * Goes on with a batch that was stopped or interrupted (a window closed): ended rows are kept,
 * started ones polled again, never started twice. With `prompt: false` (after a reload) a missing key
 * leaves the batch stopped rather than asking. With `restartUnknown` (confirmed by the user: they may
 * run twice) the rows whose start is unknown are started again.
 */
export async function resumeBatch(
  record: BatchRecord,
  deps: BatchRunDeps,
  options: { readonly prompt?: boolean; readonly restartUnknown?: boolean } = {},
): Promise<BatchRecord | undefined> {
  if (running.has(record.key)) return record;
  const file = await loadAgentFile(vscode.Uri.parse(record.file));
  let target: AgentTarget | undefined;
  if (record.mode === 'deployed') {
    if (!record.target) throw new RunBlocked(`The batch of ${record.agentName} does not say where it ran; run it again.`);
    if (options.prompt !== false) {
      // Resumed by hand, the rows left start like a new run: a protected environment is confirmed
      // again, a missing key asked for (a batch going on after a reload was confirmed when it started).
      const environment = record.target.environment ? await deps.environments.active(file.uri, record.target.environment) : undefined;
      target = await startTargetWithKey(
        { info: record.target, ...(environment ? { environment } : {}) },
        deps,
        file.uri,
        options.restartUnknown ? `Restart the unknown rows of "${record.agentName}"` : `Resume the batch of "${record.agentName}"`,
      );
      if (!target) return undefined;
    } else {
      target = await targetWithKey(record.target, deps, file.uri, { prompt: false });
      if (!target) {
        await deps.batches.update(record.key, { state: 'stopped', error: `Not resumed: no API key for ${record.target.baseUrl}.` });
        return undefined;
      }
    }
  }
  const { error: _stoppedBecause, endedAt: _endedAt, ...rest } = record;
  const resumed = await deps.batches.put({ ...rest, state: 'running' });
  return execute(
    resumed,
    file,
    target,
    { restartUnknown: options.restartUnknown === true },
    deps,
    allowedFolders(deps.fileAllowances, file.uri),
  );
}

async function execute(
  record: BatchRecord,
  file: AgentFile,
  target: AgentTarget | undefined,
  /** False for a new batch; on resume, whether the rows whose start is unknown start again. */
  resume: false | { readonly restartUnknown: boolean },
  deps: BatchRunDeps,
  allowedFolders: readonly string[],
  columns?: Pick<DataSurvey, 'columns' | 'columnsNotListed'>,
): Promise<BatchRecord> {
  const core = await loadBatchCore();
  const controller = new AbortController();
  running.set(record.key, controller);
  const settings = serviceSettings(file.uri);
  const mode: BatchMode = target
    ? {
        kind: 'service',
        scheduler: {
          target,
          concurrency: record.concurrency,
          ratePerSecond: record.ratePerSecond,
          executionTimeoutMs: settings.runTimeoutMs,
          giveUpAfterMs: batchSettings(file.uri).giveUpAfterMs,
        },
      }
    : {
        kind: 'local',
        agent: core.loadAgent(file.text, file.agentPath),
        concurrency: record.concurrency,
        executionTimeoutMs: settings.runTimeoutMs,
        engine: {
          secrets: async (name) => deps.workflowSecrets.get(name),
          ...withDispatcher(anyHostDispatcher(proxySettings())),
        },
      };
  let counts: BatchCounts | undefined;
  const saves = new ProgressSaves<BatchCounts>(
    async (snapshot) => {
      const updated = await deps.batches.update(record.key, { counts: snapshot, total: snapshot.total });
      if (updated) deps.onRowsChanged(updated);
    },
    (error) => deps.logger.warn(`Saving the progress of batch ${record.agentName} failed: ${errorMessage(error)}`),
    RECORD_UPDATE_MS,
  );
  const saveCounts = (force = false): void => {
    if (counts) saves.offer(counts, force);
  };

  let summary: BatchSummary | undefined;
  let failure: string | undefined;
  let refused: string | undefined;
  try {
    summary = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Batch: ${record.agentName}`, cancellable: true },
      async (progress, token) => {
        const cancelling = token.onCancellationRequested(() => controller.abort());
        let reported = 0;
        return core
          .runBatch(
            {
              model: file.model,
              agentPath: file.agentPath,
              agentText: file.text,
              dataPath: record.dataPath,
              outPath: record.resultsPath,
              statePath: record.statePath,
              resume: resume !== false,
              ...(resume && resume.restartUnknown ? { restartUnknown: true } : {}),
              // Counted to confirm a new batch: not counted again (a resumed one is, as the file now is).
              ...(!resume && record.total !== undefined ? { total: record.total, ...(columns ? { columns } : {}) } : {}),
              ...(allowedFolders.length ? { allowedFolders } : {}),
              mode,
            },
            (event) => {
              if (event.kind === 'prepared' && event.filesUnchecked)
                void vscode.window.showWarningMessage(
                  `Batch ${record.agentName}: its saved state was written by an older version and does not record the data file and the agent as they were, so they cannot be checked: if they changed since, rows may run twice or be left out.`,
                );
              if (event.kind !== 'progress') return;
              counts = event.counts;
              const share = counts.total ? (counts.ended / counts.total) * 100 : 0;
              progress.report({ message: describeBatchCounts({ counts, total: counts.total }), increment: share - reported });
              reported = share;
              saveCounts();
            },
            controller.signal,
          )
          .finally(() => cancelling.dispose());
      },
    );
  } catch (error) {
    // Told apart by name: the core is another bundle. Its facts, in the editor's words.
    const problem =
      error instanceof Error && (error.name === 'BatchSetupError' || error.name === 'BatchResumeRefused')
        ? (error as { problem?: BatchSetupProblem }).problem
        : undefined;
    if (problem?.kind === 'resume-refused') refused = batchSetupWords(problem, record);
    else failure = problem ? batchSetupWords(problem, record) : errorMessage(error);
  } finally {
    running.delete(record.key);
  }
  saveCounts(true);
  await saves.settled();

  // A refused resume changed nothing: the batch is left stopped, to resume once its files are back.
  const stopped = refused !== undefined || controller.signal.aborted || summary?.stopped?.kind === 'interrupted';
  const givenUp = summary?.stopped?.kind === 'given-up' ? summary.stopped : undefined;
  const state: BatchRecord['state'] = givenUp
    ? 'given-up'
    : failure || (summary?.stopped && !stopped)
      ? 'error'
      : stopped
        ? 'stopped'
        : 'finished';
  const error =
    failure ??
    refused ??
    (givenUp ? `Given up: ${givenUp.message.replace(/: gave up$/, '')}. Resume Batch starts the rows left, none twice.` : undefined) ??
    (summary?.stopped?.kind === 'record-failed'
      ? `Stopped: the batch's results could not be written (${summary.stopped.message}); nothing more was started. Make room or fix the folder's permissions, then Resume Batch.`
      : undefined) ??
    (summary?.stopped && summary.stopped.kind !== 'interrupted'
      ? summary.stopped.message
      : stopped
        ? 'Stopped: Resume Batch goes on without starting any row twice.'
        : undefined);
  const final =
    (await deps.batches.update(record.key, {
      state,
      endedAt: Date.now(),
      ...(summary ? { counts: summary, total: summary.total } : {}),
      ...(error ? { error } : {}),
    })) ?? record;
  deps.onRowsChanged(final);
  const OPEN = 'Open Results';
  const COMPARE = 'Compare';
  const against = state === 'finished' ? await againstPrevious(final, deps) : undefined;
  const text = `Batch ${record.agentName}: ${state === 'finished' ? 'done' : state === 'given-up' ? 'given up' : state}, ${describeBatchCounts(final)}${error ? `. ${error}` : ''}${against ? `. Against the previous batch: ${against.words}.` : ''}`;
  const show = state === 'finished' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  void show(text, OPEN, ...(against ? [COMPARE] : [])).then((choice) => {
    if (choice === OPEN) deps.showResults(final);
    if (choice === COMPARE && against) void vscode.commands.executeCommand(COMMANDS.compareBatches, against.previous.key, final.key);
  });
  return final;
}

/**
 * How a finished batch compares with the last earlier batch of the same agent and data file, in
 * words for its notification; undefined when there is none, or the two cannot be compared (logged:
 * the batch itself went well).
 */
async function againstPrevious(batch: BatchRecord, deps: BatchRunDeps): Promise<{ previous: BatchRecord; words: string } | undefined> {
  const previous = previousBatchOf(deps.batches.all(), batch);
  if (!previous) return undefined;
  try {
    return { previous, words: comparisonWords(await compareBatchRecords(previous, batch)) };
  } catch (error) {
    deps.logger.warn(`The batch of ${batch.agentName} was not compared with the previous one: ${errorMessage(error)}`);
    return undefined;
  }
}
