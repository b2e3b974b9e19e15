// Datasets in the real extension host: "Run Agent on Dataset…" on an agent file of the workspace,
// its data file picked, the rows confirmed, run on a real local agent server on 127.0.0.1 whose
// agent calls a real API (one row fails there, one row is bad data and never sent); the batch in the
// Agent Executions view with its rows (their icons, a row's result opened), its results table with
// every row and a CSV export; a batch stopped halfway and resumed without starting any row twice;
// a row whose start is unknown restarted once confirmed; and the same data run on this machine.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { BatchRecord } from '../../src/core/batch/batchRecord';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import type { AgentWorkflowsApi } from '../../src/extension';
import { rowsAgent, startBatchService } from '../support/batchService';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const FOLDER = workspaceUri('datasets');
const AGENT = vscode.Uri.joinPath(FOLDER, 'lookup.agent.yaml');
const DATA = vscode.Uri.joinPath(FOLDER, 'people.jsonl');

const agentText = (api: string, server: string): string => `version: 1
name: Lookup
deployment:
  baseUrl: ${server}
  account: local
  agent: lookup
inputs:
  who: { type: string, required: true }
nodes:
  person:
    type: api
    method: GET
    url: ${api}/people/{{ inputs.who }}
outputs:
  title: { from: "{{ nodes.person.body.title }}" }
`;

describe('datasets', function () {
  this.timeout(60_000);
  let api: TestServer;
  let server: AgentServer;
  let served: string;
  let extensionApi: AgentWorkflowsApi;
  const key = `aw-batch-key-${randomBytes(8).toString('hex')}`;
  /** Executions the agent server ran. */
  let ended = 0;
  /** The people the API was asked about: one call per execution of a row. */
  const asked = (): string[] => api.requests.map((request) => decodeURIComponent(request.url.split('/').pop() ?? '')).sort();
  let ui: ScriptedUi;
  let delayMs = 0;

  const runDataset = async (where: 'deployment' | 'machine', rows: number): Promise<BatchRecord | undefined> => {
    ui.pick((items) => items.find((item) => item.label.includes(where === 'deployment' ? 'On the deployment' : 'On this machine')));
    ui.onMessage = (message) => (message.modal ? `Run ${rows} Rows` : undefined);
    return vscode.commands.executeCommand<BatchRecord | undefined>('agentWorkflows.runDataset', AGENT);
  };

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    extensionApi = await extension.activate();
    api = await startServer(async (request, response) => {
      const who = decodeURIComponent(request.url?.split('/').pop() ?? '');
      // The last row can be held, so a batch is stopped with it started but not ended.
      if (delayMs && who === 'Alan') await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (who === 'Nobody') json(response, 500, { error: 'no such person' });
      else json(response, 200, { title: `Dr ${who}` });
    });
    served = mkdtempSync(join(tmpdir(), 'aw-batch-'));
    mkdirSync(join(served, 'agents'));
    server = await startAgentServer({
      directory: join(served, 'agents'),
      port: 0,
      apiKey: key,
      watch: false,
      onEvent: (event) => {
        if (event.kind === 'execution-ended') ended++;
      },
    });
    writeFileSync(join(served, 'agents', 'lookup.agent.yaml'), agentText(api.url, server.url));
    await server.rescan();
    await vscode.workspace.fs.writeFile(AGENT, Buffer.from(agentText(api.url, server.url)));
    await vscode.workspace.fs.writeFile(
      DATA,
      Buffer.from(['{"who":"Ada"}', '{"who":"Grace"}', '{"who":"Nobody"}', '{"whom":"Typo"}', '{"who":"Alan"}', ''].join('\n')),
    );
    const setup = new ScriptedUi();
    try {
      setup.input(key);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', server.url), true);
    } finally {
      setup.restore();
    }
  });

  after(async () => {
    const cleanup = new ScriptedUi();
    try {
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', server.url);
      // Later suites expect a view without batches.
      for (const item of (await extensionApi.executionsTree.getChildren()) ?? [])
        if (String(item.contextValue).startsWith('batch-')) await vscode.commands.executeCommand('agentWorkflows.batches.remove', item);
    } finally {
      cleanup.restore();
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(FOLDER, { recursive: true }).then(undefined, () => undefined);
    await server?.close();
    await api?.close();
    rmSync(served, { recursive: true, force: true });
  });

  beforeEach(() => {
    ui = new ScriptedUi();
    ui.openFile(DATA);
  });

  afterEach(() => {
    ui.restore();
    assert.deepEqual(ui.unexpected, [], 'every prompt was answered');
  });

  it('runs an agent on a dataset: rows confirmed, bad data skipped, every row in the view and the table', async () => {
    const batch = await runDataset('deployment', 5);
    assert.ok(batch);
    assert.equal(batch.state, 'finished', batch.error);
    assert.equal(batch.mode, 'deployed');
    const confirm = ui.messages.find((message) => message.modal);
    assert.match(confirm?.text ?? '', /^Run "Lookup" on 5 rows of people\.jsonl\?$/);
    // A column that is not an input is said before anything is sent, with the input it may mean.
    assert.match(
      confirm?.detail ?? '',
      /Column "whom" is not an input of the agent: it is not sent, and kept in each row's result\. Rename a column that should be an input: "whom" \(did you mean the input "who"\?\)\./,
    );
    assert.deepEqual([batch.counts?.finished, batch.counts?.failed, batch.counts?.skipped], [3, 1, 1]);
    // The bad row never reached the service; each good row was started once.
    assert.equal(ended, 4);
    assert.deepEqual(asked(), ['Ada', 'Alan', 'Grace', 'Nobody']);

    const items = (await extensionApi.executionsTree.getChildren()) ?? [];
    const item = items.find((candidate) => candidate.contextValue === 'batch-finished');
    assert.ok(item, 'the batch in the view');
    assert.match(String(item.description), /^batch of people\.jsonl · finished · 5\/5 · 1 failed · 1 skipped/);
    const children = (await extensionApi.executionsTree.getChildren(item)) ?? [];
    assert.deepEqual(
      children.map((child) => `${String(child.label)}: ${String(child.description ?? '').split(' · ')[0]}`),
      ['Open Results Table: ', 'Row 1: finished', 'Row 2: finished', 'Row 3: failed', 'Row 4: skipped', 'Row 5: finished'],
    );
    // Each row's icon says how it ended; clicking a row opens its whole result.
    assert.deepEqual(
      children.slice(1).map((child) => (child.iconPath as vscode.ThemeIcon).id),
      ['pass', 'pass', 'error', 'circle-slash', 'pass'],
    );
    const failedRow = children[3]!;
    assert.equal(failedRow.command?.command, 'agentWorkflows.batches.openRow');
    const opened = await vscode.commands.executeCommand<vscode.TextEditor>(
      failedRow.command!.command,
      ...(failedRow.command!.arguments ?? []),
    );
    assert.equal(opened.document.languageId, 'json');
    const result = JSON.parse(opened.document.getText()) as { row: number; status: string; inputs: { who: string } };
    assert.deepEqual([result.row, result.status, result.inputs.who], [3, 'failed', 'Nobody']);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    const panel = await vscode.commands.executeCommand<{
      lastPosted(): { rows: { row: number; status: string }[]; total: number } | undefined;
      exportTo(uri: vscode.Uri, format: 'csv' | 'jsonl', filter: { status: string; text: string }): Promise<unknown>;
      webviewPanel: vscode.WebviewPanel;
    }>('agentWorkflows.batches.openResults', batch.key);
    const posted = await waitFor(() => panel.lastPosted(), 'the rows in the results table', 15_000);
    assert.equal(posted.total, 5);
    assert.deepEqual(
      posted.rows.map((row) => [row.row, row.status]).sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [1, 'finished'],
        [2, 'finished'],
        [3, 'failed'],
        [4, 'skipped'],
        [5, 'finished'],
      ],
    );
    const out = join(served, 'failed.csv');
    await panel.exportTo(vscode.Uri.file(out), 'csv', { status: 'failed', text: '' });
    const csv = readFileSync(out, 'utf8').trim().split(/\r?\n/);
    assert.equal(csv.length, 2, csv.join('\n'));
    assert.match(csv[0]!, /^row,status/);
    assert.match(csv[1]!, /^3,failed/);
    panel.webviewPanel.dispose();
  });

  it('stops a batch halfway and resumes it: no row started twice, none lost', async () => {
    api.requests.length = 0;
    ended = 0;
    delayMs = 2500;
    try {
      const running = runDataset('deployment', 5);
      const batch = await waitFor(
        () =>
          (extensionApi.executionsTree.getChildren() as Promise<vscode.TreeItem[]>).then((items) =>
            items.find((item) => item.contextValue === 'batch-running'),
          ),
        'the running batch',
      );
      await waitFor(() => ended >= 3, 'the rows before the held one to end');
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.batches.stop', batch), true);
      const stopped = await running;
      assert.equal(stopped?.state, 'stopped');
      const resumed = await vscode.commands.executeCommand<BatchRecord>('agentWorkflows.batches.resume', stopped!.key);
      assert.equal(resumed.state, 'finished', resumed.error);
      assert.deepEqual([resumed.counts?.finished, resumed.counts?.failed, resumed.counts?.skipped], [3, 1, 1]);
      // Each good row ran exactly once on the service, across the stop and the resume.
      assert.deepEqual(asked(), ['Ada', 'Alan', 'Grace', 'Nobody']);
      assert.equal(ended, 4);
    } finally {
      delayMs = 0;
    }
  });

  it('refuses to resume a batch whose data file changed, saying so without command-line flags', async () => {
    const batch = await runDataset('machine', 5);
    assert.equal(batch?.state, 'finished', batch?.error);
    const before = readFileSync(DATA.fsPath);
    try {
      // A row inserted at the start: every row number of the batch now means another row.
      await vscode.workspace.fs.writeFile(DATA, Buffer.concat([Buffer.from('{"who":"Eve"}\n'), before]));
      api.requests.length = 0;
      const refused = await vscode.commands.executeCommand<BatchRecord>('agentWorkflows.batches.resume', batch!.key);
      assert.equal(refused.state, 'stopped', 'left as it was, to resume once the file is back');
      assert.match(refused.error ?? '', /^Not resumed: the data file people\.jsonl changed since the batch started/);
      assert.doesNotMatch(refused.error ?? '', /--|\.state\b/, 'no command-line flag, no internal file');
      assert.deepEqual(asked(), [], 'no row ran');
      const shown = await waitFor(() => ui.messages.find((message) => /Not resumed/.test(message.text)), 'the refusal shown');
      assert.equal(shown.kind, 'warning');
    } finally {
      await vscode.workspace.fs.writeFile(DATA, before);
      await vscode.commands.executeCommand('agentWorkflows.batches.remove', batch!.key);
    }
  });

  it('gives up on a service that answers nothing but 429, leaving the rows to Resume Batch, which starts each once', async () => {
    let throttling = true;
    const throttled = await startBatchService({
      apiKey: key,
      durationMs: () => 0,
      throttle: () => (throttling ? { status: 429 } : undefined),
    });
    const agent = vscode.Uri.joinPath(FOLDER, 'rows.agent.yaml');
    const ids = vscode.Uri.joinPath(FOLDER, 'ids.jsonl');
    const config = vscode.workspace.getConfiguration('agentWorkflows');
    let batch: BatchRecord | undefined;
    try {
      await vscode.workspace.fs.writeFile(agent, Buffer.from(rowsAgent(throttled.url)));
      await vscode.workspace.fs.writeFile(ids, Buffer.from('{"id":1}\n{"id":2}\n{"id":3}\n'));
      await config.update('batch.giveUpAfter', 1, vscode.ConfigurationTarget.Workspace);
      ui.restore();
      ui = new ScriptedUi();
      ui.input(key);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', throttled.url), true);
      ui.openFile(ids);
      ui.pick((items) => items.find((item) => item.label.includes('On the deployment')));
      ui.onMessage = (message) => (message.modal ? 'Run 3 Rows' : undefined);
      batch = await vscode.commands.executeCommand<BatchRecord | undefined>('agentWorkflows.runDataset', agent);
      assert.equal(batch?.state, 'given-up', batch?.error);
      assert.match(batch.error ?? '', /^Given up: the service answered nothing but "slow down" \(429 or 503\) for \d+ s\. Resume Batch/);
      assert.equal(batch.counts?.ended, 0, 'no row ended');
      assert.equal(throttled.started.length, 0);
      const item = ((await extensionApi.executionsTree.getChildren()) ?? []).find((candidate) => candidate.id === `batch:${batch!.key}`);
      assert.equal(item?.contextValue, 'batch-given-up');
      assert.match(String(item?.description), /^batch of ids\.jsonl · given up · 0\/3/);

      throttling = false;
      // Resumed from its item in the view, as its inline action does.
      const resumed = await vscode.commands.executeCommand<BatchRecord>('agentWorkflows.batches.resume', item);
      assert.equal(resumed.state, 'finished', resumed.error);
      assert.equal(resumed.counts?.finished, 3);
      assert.deepEqual(throttled.started.map((execution) => Number(execution.inputs.id)).sort(), [1, 2, 3], 'each row started once');
    } finally {
      await config.update('batch.giveUpAfter', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', throttled.url);
      if (batch) await vscode.commands.executeCommand('agentWorkflows.batches.remove', batch.key);
      await throttled.close();
    }
  });

  it('restarts the rows whose start is unknown, after a confirmation that says they may run twice', async () => {
    let holding = true;
    // Row 2's start reaches the service, which starts it but never answers: stopped then, the batch
    // cannot know whether row 2 started.
    const service = await startBatchService({
      apiKey: key,
      durationMs: () => 0,
      holdStart: (inputs) => holding && Number(inputs.id) === 2,
    });
    const agent = vscode.Uri.joinPath(FOLDER, 'held.agent.yaml');
    const ids = vscode.Uri.joinPath(FOLDER, 'held.jsonl');
    const startedIds = (): number[] => service.started.map((execution) => Number(execution.inputs.id)).sort();
    const batchItem = async (batchKey: string): Promise<vscode.TreeItem | undefined> =>
      ((await extensionApi.executionsTree.getChildren()) ?? []).find((candidate) => candidate.id === `batch:${batchKey}`);
    let batch: BatchRecord | undefined;
    try {
      await vscode.workspace.fs.writeFile(agent, Buffer.from(rowsAgent(service.url)));
      await vscode.workspace.fs.writeFile(ids, Buffer.from('{"id":1}\n{"id":2}\n{"id":3}\n'));
      ui.restore();
      ui = new ScriptedUi();
      ui.input(key);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', service.url), true);
      ui.openFile(ids);
      ui.pick((items) => items.find((item) => item.label.includes('On the deployment')));
      ui.onMessage = (message) => (message.modal ? 'Run 3 Rows' : undefined);
      const running = vscode.commands.executeCommand<BatchRecord | undefined>('agentWorkflows.runDataset', agent);
      await waitFor(() => service.held === 1 && service.log.filter((entry) => entry.ended).length === 2, 'rows 1 and 3 ended, row 2 held');
      const item = await waitFor(
        async () =>
          ((await extensionApi.executionsTree.getChildren()) ?? []).find((candidate) => candidate.contextValue === 'batch-running'),
        'the running batch',
      );
      // The service logs an answer as it sends it: stopped only once the batch has written both ends
      // to its results file, or row 3 may be stopped before its end is read (and count as unknown).
      const { resultsPath } = (item as vscode.TreeItem & { readonly batch: BatchRecord }).batch;
      await waitFor(() => {
        try {
          return (
            readFileSync(resultsPath, 'utf8')
              .split('\n')
              .filter((line) => line.includes('"status":"finished"')).length === 2
          );
        } catch {
          return false;
        }
      }, 'the batch to write the ends of rows 1 and 3');
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.batches.stop', item), true);
      service.cutHeld();
      batch = await running;
      assert.equal(batch?.state, 'stopped', batch?.error);
      assert.deepEqual([batch.counts?.finished, batch.counts?.unknown], [2, 1]);
      // Only a batch with unknown rows offers the action.
      assert.equal((await batchItem(batch.key))?.contextValue, 'batch-stopped-unknown');
      assert.deepEqual(startedIds(), [1, 2, 3]);

      // Cancelled: nothing starts, the batch stays as it was.
      holding = false;
      ui.messages.length = 0;
      ui.onMessage = () => undefined;
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.batches.restartUnknown', await batchItem(batch.key)), undefined);
      const confirm = ui.messages.find((message) => message.modal);
      assert.equal(confirm?.text, 'Restart 1 row of "Rows" whose start is unknown?');
      assert.deepEqual(confirm.items, ['Restart 1 Row']);
      assert.match(confirm.detail ?? '', /may already have started on the service.*run twice/s);
      assert.deepEqual(startedIds(), [1, 2, 3], 'nothing started');
      assert.equal((await batchItem(batch.key))?.contextValue, 'batch-stopped-unknown');

      ui.onMessage = (message) => (message.modal ? 'Restart 1 Row' : undefined);
      const restarted = await vscode.commands.executeCommand<BatchRecord>('agentWorkflows.batches.restartUnknown', batch.key);
      assert.equal(restarted.state, 'finished', restarted.error);
      assert.deepEqual([restarted.counts?.finished, restarted.counts?.unknown], [3, 0]);
      // Row 2 started again (it had started the first time too), the others not.
      assert.deepEqual(startedIds(), [1, 2, 2, 3]);
      assert.equal((await batchItem(batch.key))?.contextValue, 'batch-finished');

      // With no unknown rows left, it says so and starts nothing.
      ui.messages.length = 0;
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.batches.restartUnknown', batch.key), undefined);
      assert.match(ui.messages[0]?.text ?? '', /has no rows whose start is unknown/);
      assert.equal(ui.messages[0]?.modal, false);
      assert.equal(service.started.length, 4);
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', service.url);
      if (batch) await vscode.commands.executeCommand('agentWorkflows.batches.remove', batch.key);
      await service.close();
    }
  });

  it('runs the dataset on this machine with the workflow engine, nothing sent to the service', async () => {
    api.requests.length = 0;
    ended = 0;
    const batch = await runDataset('machine', 5);
    assert.equal(batch?.state, 'finished', batch?.error);
    assert.equal(batch?.mode, 'local');
    assert.deepEqual([batch?.counts?.finished, batch?.counts?.failed, batch?.counts?.skipped], [3, 1, 1]);
    // The engine called the API itself; the agent server ran nothing.
    assert.equal(ended, 0);
    assert.deepEqual(asked(), ['Ada', 'Alan', 'Grace', 'Nobody']);
    const item = ((await extensionApi.executionsTree.getChildren()) ?? []).find((candidate) => candidate.id === `batch:${batch!.key}`);
    assert.match(String(item?.description), / · local$/);
    // "Clear Finished" takes ended batches too, with their files.
    const resultsPath = batch!.resultsPath;
    assert.ok((await vscode.commands.executeCommand<number>('agentWorkflows.executions.clearFinished')) >= 3);
    const left = ((await extensionApi.executionsTree.getChildren()) ?? []).filter((candidate) =>
      String(candidate.contextValue).startsWith('batch-'),
    );
    assert.deepEqual(left, []);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.file(resultsPath))));
  });
});
