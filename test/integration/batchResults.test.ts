// The batch results table in the real extension host: the panel reads a results file (the last line
// of a row winning), its webview draws the rows (read back from the webview's page), a refresh
// shows rows ended since, one panel per batch key, and an export writes the rows passing a filter.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { showBatchResults } from '../../src/views/batchResultsPanel';
import type { BatchResultsPanel } from '../../src/views/batchResultsPanel';
import type { RenderReport } from '../../src/webview/batchResults/protocol';
import { waitFor } from './wait';

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;

function drawn(panel: BatchResultsPanel, check: (report: RenderReport) => boolean): Promise<RenderReport> {
  return waitFor(
    () => {
      const report = panel.rendered;
      return report && check(report) ? report : undefined;
    },
    `the results table to be drawn; last drawn: ${JSON.stringify(panel.rendered)}`,
    15_000,
  );
}

describe('batch results table', () => {
  let dir: string;
  let logger: vscode.LogOutputChannel;
  const panels: BatchResultsPanel[] = [];
  let deps: { extensionUri: vscode.Uri; logger: vscode.LogOutputChannel };

  before(() => {
    const extension = vscode.extensions.getExtension('agent-workflows.agent-workflows');
    assert.ok(extension, 'the extension is installed in the test host');
    logger = vscode.window.createOutputChannel('Batch results test', { log: true });
    deps = { extensionUri: extension.extensionUri, logger };
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-workflows-results-'));
  });
  afterEach(async () => {
    for (const panel of panels.splice(0)) panel.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(dir, { recursive: true, force: true });
  });
  after(() => logger.dispose());

  it('draws the rows of a results file, shows rows ended since on refresh, one panel per batch', async () => {
    const resultsPath = join(dir, 'results.jsonl');
    writeFileSync(
      resultsPath,
      line({ row: 1, status: 'finished', inputs: { city: 'Paris' }, outputs: { answer: 'sunny' }, durationMs: 120 }) +
        line({ row: 2, status: 'unknown' }) +
        line({ row: 3, status: 'failed', inputs: { city: 'Oslo' }, error: { status: 'Failed' } }) +
        line({ row: 2, status: 'finished', inputs: { city: 'Lima' }, outputs: { answer: 'rain' }, durationMs: 80 }),
    );
    const batch = { key: 'batch-1', title: 'weather over cities.jsonl', resultsPath };
    const panel = showBatchResults(deps, batch);
    panels.push(panel);
    assert.equal(panel.webviewPanel.title, 'Results: weather over cities.jsonl');
    const first = await drawn(panel, (report) => report.rows.length === 3);
    assert.deepEqual(first.rows, [1, 2, 3]);
    const posted = panel.lastPosted();
    assert.ok(posted);
    assert.equal(posted.total, 3);
    assert.deepEqual(posted.counts, { finished: 2, failed: 1, error: 0, timeout: 0, unknown: 0, skipped: 0 });
    assert.deepEqual(posted.inputNames, ['city']);
    assert.deepEqual(posted.outputNames, ['answer']);

    appendFileSync(resultsPath, line({ row: 4, status: 'timeout', inputs: { city: 'Rome' } }));
    await panel.refresh();
    assert.deepEqual((await drawn(panel, (report) => report.rows.length === 4)).rows, [1, 2, 3, 4]);

    assert.equal(showBatchResults(deps, batch), panel, 'the open panel of the batch is shown again');
    const other = showBatchResults(deps, { ...batch, key: 'batch-2' });
    panels.push(other);
    assert.notEqual(other, panel);
  });

  it('exports the rows that pass a filter, and says when there is no results file yet', async () => {
    const resultsPath = join(dir, 'results.jsonl');
    const panel = showBatchResults(deps, { key: 'batch-3', title: 'not started', resultsPath });
    panels.push(panel);
    await waitFor(() => panel.lastPosted(), 'the first read of the results file');
    assert.match(panel.lastPosted()!.notice ?? '', /No results file yet/);

    writeFileSync(
      resultsPath,
      line({ row: 1, status: 'finished', inputs: { q: '=1+1' }, outputs: { a: 'x, y' } }) +
        line({ row: 2, status: 'failed', inputs: { q: 'b' }, error: 'bad' }) +
        line({ row: 3, status: 'failed', inputs: { q: 'c' }, error: 'worse' }),
    );
    await panel.refresh();
    await drawn(panel, (report) => report.rows.length === 3);
    const target = vscode.Uri.file(join(dir, 'failed.csv'));
    const summary = await panel.exportTo(target, 'csv', { status: 'failed', text: 'wor' });
    assert.equal(summary.rows, 1);
    assert.equal(
      readFileSync(target.fsPath, 'utf8'),
      'row,status,passed,executionId,durationMs,input.q,output.a,error\r\n3,failed,,,,c,,worse\r\n',
    );
    const all = vscode.Uri.file(join(dir, 'all.jsonl'));
    assert.equal((await panel.exportTo(all, 'jsonl', { status: 'all', text: '' })).rows, 3);
    assert.equal(readFileSync(all.fsPath, 'utf8'), readFileSync(resultsPath, 'utf8'));
  });
});
