// Comparing two batches in the real extension host: the same data run twice on this machine against
// a real HTTP API on 127.0.0.1, the agent changed between the runs (its API version: v2 fails one
// row, fixes another and changes two titles). The second batch's notification says how it compares
// with the first and its Compare button opens the comparison table; Compare with Previous Batch on a
// batch, and Compare Batches on two selected, open the same table (read back from its webview):
// regressions first, then fixes, then changed outputs, a row opening the diff editor on its two
// results; Export as Markdown writes the command line's report. Batches of different agents are
// said, and compared by output names once agreed.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { BatchRecord } from '../../src/core/batch/batchRecord';
import type { AgentWorkflowsApi } from '../../src/extension';
import type { CompareRenderReport, ComparisonMessage } from '../../src/webview/batchCompare/protocol';
import { runCliCaptured } from '../support/cli';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const FOLDER = workspaceUri('compare-batches');
const AGENT = vscode.Uri.joinPath(FOLDER, 'lookup.agent.yaml');
const OTHER_AGENT = vscode.Uri.joinPath(FOLDER, 'other.agent.yaml');
const DATA = vscode.Uri.joinPath(FOLDER, 'people.jsonl');

const agentText = (name: string, api: string, output: string): string => `version: 1
name: ${name}
inputs:
  who: { type: string, required: true }
nodes:
  person:
    type: api
    method: GET
    url: ${api}/{{ inputs.who }}
outputs:
  ${output}: { from: "{{ nodes.person.body.title }}" }
`;

/** What the comparison panel offers a test (the panel of the extension's bundle, not this one's). */
interface ComparePanel {
  lastPosted(): ComparisonMessage | undefined;
  readonly rendered: CompareRenderReport | undefined;
  openRow(index: number): Promise<{ left: vscode.Uri; right: vscode.Uri } | undefined>;
  exportMarkdown(uri: vscode.Uri): Promise<void>;
  readonly webviewPanel: vscode.WebviewPanel;
}

function drawn(panel: ComparePanel, rows: number): Promise<CompareRenderReport> {
  return waitFor(
    () => (panel.rendered?.rows.length === rows ? panel.rendered : undefined),
    `the comparison table drawn with ${rows} rows; last drawn: ${JSON.stringify(panel.rendered)}`,
    15_000,
  );
}

/** The tab of a comparison table, by its title. */
function compareTab(): vscode.Tab | undefined {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .find((tab) => tab.input instanceof vscode.TabInputWebview && tab.label === 'Compare: Lookup: people.jsonl');
}

describe('compare two batches', function () {
  this.timeout(60_000);
  let api: AgentWorkflowsApi;
  let server: TestServer;
  let ui: ScriptedUi;
  let dir: string;
  const made: BatchRecord[] = [];
  let first: BatchRecord;
  let second: BatchRecord;

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    api = await extension.activate();
    // v1: Nobody is unknown (500). v2: Nobody found (a fix), Alan lost (a regression), and two titles changed.
    server = await startServer((request, response) => {
      const [, version, who] = /^\/(v\d)\/(.*)$/.exec(request.url ?? '') ?? [];
      const name = decodeURIComponent(who ?? '');
      if (version === 'v1')
        return name === 'Nobody' ? json(response, 500, { error: 'no such person' }) : json(response, 200, { title: `Dr ${name}` });
      if (name === 'Alan') return json(response, 500, { error: 'lost' });
      return json(response, 200, { title: `${name === 'Grace' || name === 'Edsger' ? 'Prof' : 'Dr'} ${name}` });
    });
    await vscode.workspace.fs.writeFile(
      DATA,
      Buffer.from(['Ada', 'Grace', 'Nobody', 'Alan', 'Edsger'].map((who) => JSON.stringify({ who })).join('\n') + '\n'),
    );
    dir = mkdtempSync(join(tmpdir(), 'aw-compare-batches-'));
  });

  after(async () => {
    const cleanup = new ScriptedUi();
    try {
      // Later suites expect a view without batches.
      for (const batch of made) await vscode.commands.executeCommand('agentWorkflows.batches.remove', batch.key);
    } finally {
      cleanup.restore();
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(FOLDER, { recursive: true }).then(undefined, () => undefined);
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    ui = new ScriptedUi();
  });

  afterEach(() => {
    ui.restore();
    assert.deepEqual(ui.unexpected, [], 'every prompt was answered');
  });

  /** Runs `agent` (written with `text` first) over the data on this machine. */
  const runBatch = async (agent: vscode.Uri, text: string): Promise<BatchRecord> => {
    await vscode.workspace.fs.writeFile(agent, Buffer.from(text));
    // The batch reads the agent's document: once it has the text written.
    await waitFor(async () => (await vscode.workspace.openTextDocument(agent)).getText() === text, 'the agent document to hold the change');
    ui.openFile(DATA);
    ui.pick((items) => items.find((item) => item.label.includes('On this machine')));
    const batch = await vscode.commands.executeCommand<BatchRecord | undefined>('agentWorkflows.runDataset', agent);
    assert.ok(batch, JSON.stringify(ui.messages));
    made.push(batch);
    assert.equal(batch.state, 'finished', batch.error);
    return batch;
  };

  const batchItem = async (key: string): Promise<vscode.TreeItem> => {
    const item = ((await api.executionsTree.getChildren()) ?? []).find((candidate) => candidate.id === `batch:${key}`);
    assert.ok(item, `the batch ${key} in the view`);
    return item;
  };

  it('says in the notification of a batch how it compares with the previous one; Compare opens the table', async () => {
    ui.onMessage = (message) => (message.modal ? 'Run 5 Rows' : undefined);
    first = await runBatch(AGENT, agentText('Lookup', `${server.url}/v1`, 'title'));
    const firstDone = ui.messages.find((message) => message.text.startsWith('Batch Lookup: done'));
    assert.equal(firstDone?.text, 'Batch Lookup: done, 5/5 · 1 failed');
    assert.deepEqual(firstDone.items, ['Open Results'], 'nothing to compare with yet');

    ui.messages.length = 0;
    ui.onMessage = (message) => (message.modal ? 'Run 5 Rows' : message.text.startsWith('Batch Lookup: done') ? 'Compare' : undefined);
    second = await runBatch(AGENT, agentText('Lookup', `${server.url}/v2`, 'title'));
    const done = ui.messages.find((message) => message.text.startsWith('Batch Lookup: done'));
    assert.equal(done?.text, 'Batch Lookup: done, 5/5 · 1 failed. Against the previous batch: 1 regression, 1 fix, 2 outputs changed.');
    assert.deepEqual(done.items, ['Open Results', 'Compare']);
    // Its Compare button opens the comparison table.
    await waitFor(() => compareTab(), 'the comparison table opened from the notification', 15_000);
  });

  it('Compare with Previous Batch shows the summary, then regressions, fixes and changed outputs; a row opens its diff', async () => {
    const panel = await vscode.commands.executeCommand<ComparePanel>(
      'agentWorkflows.batches.compareWithPrevious',
      await batchItem(second.key),
    );
    assert.ok(panel, JSON.stringify(ui.messages));
    assert.equal(panel.webviewPanel.title, 'Compare: Lookup: people.jsonl');
    const report = await drawn(panel, 4);
    assert.deepEqual(
      report.rows.map((row) => `${row.verdict}: ${row.label}`),
      ['regression: row 4', 'fix: row 3', 'changed: row 2', 'changed: row 5'],
    );
    assert.deepEqual(report.summary.slice(0, 3), [
      ['rows', '5', '5'],
      ['pass rate', '–', '–'],
      ['failures', '1', '1'],
    ]);
    assert.deepEqual(
      report.summary.slice(3).map((row) => row[0]),
      ['duration p50', 'duration p95'],
    );
    assert.equal(report.counts, '5 rows in both · ✗ 1 regression · ✓ 1 fix · ~ 2 rows with outputs changed · 1 unchanged');
    const posted = panel.lastPosted();
    assert.ok(posted);
    assert.match(posted.a.label, /^Lookup · people\.jsonl · \d\d:\d\d:\d\d$/);
    assert.equal(posted.a.resultsPath, first.resultsPath, 'the earlier batch is A');
    assert.equal(posted.b.resultsPath, second.resultsPath);
    assert.equal(posted.rows[2]?.words, 'outputs changed: title');
    assert.equal(posted.rows[2]?.diff, 'title:\n  - Dr Grace\n  + Prof Grace');

    // The regression's row: its result in A and in B, side by side in the diff editor.
    const opened = await panel.openRow(0);
    assert.ok(opened);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, 'a diff editor is active');
    assert.equal(tab.input.original.toString(), opened.left.toString());
    assert.equal(tab.input.modified.scheme, 'agent-compare');
    const left = (await vscode.workspace.openTextDocument(tab.input.original)).getText();
    const right = (await vscode.workspace.openTextDocument(tab.input.modified)).getText();
    assert.match(left, /^\/\/ Lookup · people\.jsonl · [\d:]+, row 4: finished\n\{\n {2}"outputs": \{\n {4}"title": "Dr Alan"\n {2}\},\n/);
    assert.match(right, /^\/\/ Lookup · people\.jsonl · [\d:]+, row 4: failed\n\{\n {2}\/\/ none\n {2}"outputs": null,\n {2}"error": /);
    // One JSONC object each (comments aside, JSON), so the JSON language marks no problem in the diff.
    assert.deepEqual((JSON.parse(right.replace(/^\s*\/\/.*$/gm, '')) as { inputs: unknown }).inputs, { who: 'Alan' });
  });

  it('Compare Batches on two selected batches: the same table, and Export as Markdown writes the command line report', async () => {
    const items = [await batchItem(second.key), await batchItem(first.key)];
    // Selected later first: the earlier batch is still A, and the pair's open panel is the one shown.
    const panel = await vscode.commands.executeCommand<ComparePanel>('agentWorkflows.batches.compare', items[0], items);
    assert.ok(panel, JSON.stringify(ui.messages));
    assert.equal(panel.lastPosted()?.a.resultsPath, first.resultsPath);
    assert.deepEqual(
      (await drawn(panel, 4)).rows.map((row) => row.verdict),
      ['regression', 'fix', 'changed', 'changed'],
    );
    assert.equal(
      vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.label === 'Compare: Lookup: people.jsonl').length,
      1,
    );

    // One batch alone: said, nothing opened.
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.batches.compare', items[0], [items[0]]), undefined);
    assert.ok(
      ui.messages.some((message) => message.text === 'Select two batches in the Agent Executions view to compare them (1 batch selected).'),
      JSON.stringify(ui.messages),
    );

    const target = vscode.Uri.file(join(dir, 'comparison.md'));
    await panel.exportMarkdown(target);
    const exported = readFileSync(target.fsPath, 'utf8');
    const cli = await runCliCaptured(['compare', first.resultsPath, second.resultsPath, '--format', 'markdown'], { cwd: dir, env: {} });
    assert.equal(cli.code, 0, cli.stderr);
    // The same report; the batches named by their labels rather than their storage paths.
    const fileLine = /^\| file \|.*$/m;
    assert.match(exported, /^\| file \| Lookup · people\.jsonl · [\d:]+ \| Lookup · people\.jsonl · [\d:]+ \|$/m);
    assert.equal(exported.replace(fileLine, '| file |'), cli.stdout.replace(fileLine, '| file |'));
    assert.match(exported, /^### Agent runs compared: ⚠️ 1 regression\n/);
    assert.match(exported, /\| 🔴 regression \| row 4 \| finished → failed \|/);
  });

  it('says when two batches are of different agents, and compares them by output names once agreed', async () => {
    ui.onMessage = (message) => (message.modal ? 'Run 5 Rows' : undefined);
    const other = await runBatch(OTHER_AGENT, agentText('Other', `${server.url}/v1`, 'name'));
    ui.messages.length = 0;
    ui.onMessage = () => undefined;
    const items = [await batchItem(first.key), await batchItem(other.key)];
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.batches.compare', items[0], items), undefined, 'declined');
    const warning = ui.messages.find((message) => message.kind === 'warning');
    assert.match(
      warning?.text ?? '',
      /^"Lookup · people\.jsonl · [\d:]+" and "Other · people\.jsonl · [\d:]+" are batches of different agents \(lookup and other\)\. Compare them by output names anyway\?$/,
    );
    assert.deepEqual(warning?.items, ['Compare Anyway']);

    ui.onMessage = (message) => (message.kind === 'warning' ? 'Compare Anyway' : undefined);
    const panel = await vscode.commands.executeCommand<ComparePanel>('agentWorkflows.batches.compare', items[0], items);
    assert.ok(panel, JSON.stringify(ui.messages));
    const posted = await waitFor(() => panel.lastPosted(), 'the forced comparison');
    assert.match(posted.notes.join(' '), /^The batches are of different agents \(.*\): compared by output names\./);
    panel.webviewPanel.dispose();
  });
});
