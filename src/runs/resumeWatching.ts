// On activation: executions that were running when the window closed are watched again (in the
// status bar), so nothing started is lost. A local run cannot survive its window; it is marked so.
// How long the first status read took after activation is logged, with the part of it spent
// waiting for VS Code (the API key from its secret storage), so that a slow resume can be told
// apart from a slow VS Code.
import * as vscode from 'vscode';
import type { RunDeps } from './runDeps';
import { targetWithKey } from './serviceTarget';

/** When activation began, on performance.now()'s clock. */
export interface ResumeTiming {
  readonly activationStartedAt: number;
}

export async function resumeWatching(deps: RunDeps, timing?: ResumeTiming): Promise<void> {
  for (const record of deps.store.active()) {
    if (deps.runner.isWatching(record.key)) continue;
    if (record.mode === 'local') {
      await deps.store.update(record.key, {
        state: 'error',
        error: 'VS Code closed while this ran locally; run it again.',
        endedAt: Date.now(),
      });
      continue;
    }
    if (!record.executionId || !record.target) {
      await deps.store.update(record.key, {
        state: 'error',
        error: 'The window closed while this was starting; whether it started is unknown. Check the service, or run it again.',
        endedAt: Date.now(),
      });
      continue;
    }
    const askedForKey = performance.now();
    const target = await targetWithKey(record.target, deps, record.file ? vscode.Uri.parse(record.file) : undefined, {
      prompt: false,
    }).catch(() => undefined);
    if (!target) {
      await deps.store.update(record.key, {
        state: 'stopped',
        error: `No API key for ${record.target.baseUrl} any more; set it and use Watch Again.`,
      });
      continue;
    }
    const keyWaitMs = performance.now() - askedForKey;
    const executionId = record.executionId;
    deps.logger.info(`Watching ${record.agentName} (${executionId}) again after a reload.`);
    const onFirstStatus = timing
      ? (): void =>
          deps.logger.info(
            `Status of ${executionId} read ${Math.round(performance.now() - timing.activationStartedAt)} ms after activation began, ${Math.round(keyWaitMs)} ms of it waiting for its API key from VS Code.`,
          )
      : undefined;
    void deps.runner.watch(record, target, 'window', onFirstStatus);
  }
}
