// On activation: executions that were running when the window closed are watched again (in the
// status bar), so nothing started is lost. A local run cannot survive its window; it is marked so.
import * as vscode from 'vscode';
import type { RunDeps } from './runDeps';
import { targetWithKey } from './serviceTarget';

export async function resumeWatching(deps: RunDeps): Promise<void> {
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
    deps.logger.info(`Watching ${record.agentName} (${record.executionId}) again after a reload.`);
    void deps.runner.watch(record, target, 'window');
  }
}
