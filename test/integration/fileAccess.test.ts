// Files named by a data file or a test file, in the real extension host: read only from that file's
// folder; a run that names another folder asks once "Allow files from <folder>?" before anything
// is read, keeps an Allow for this workspace (not asked again; never in the workspace's settings,
// whose own agentWorkflows.files.allowFrom is not followed), and a Cancel reads nothing outside (the
// rows skipped, the cases errored saying why). Forget Folders Allowed takes an Allow back.
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { BatchRecord } from '../../src/core/batch/batchRecord';
import type { AgentWorkflowsApi } from '../../src/extension';
import { ScriptedUi } from './scriptedUi';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const FOLDER = workspaceUri('file-access');
const PHOTO = vscode.Uri.joinPath(FOLDER, 'shared', 'photo.png');
const AGENT = vscode.Uri.joinPath(FOLDER, 'project', 'pics.agent.yaml');
const TEST_FILE = vscode.Uri.joinPath(FOLDER, 'project', 'pics.agent.test.yaml');
const DATA = vscode.Uri.joinPath(FOLDER, 'project', 'rows.jsonl');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

const AGENT_TEXT = `version: 1
name: Pics
inputs:
  id: { type: number, required: true }
  pic: { type: file, accept: [image/png] }
nodes:
  echo:
    type: template
    text: "{{ inputs.id }}"
outputs:
  id: { from: "{{ nodes.echo.body }}" }
`;

describe('files named by a data or test file', function () {
  this.timeout(60_000);
  let api: AgentWorkflowsApi;
  let ui: ScriptedUi;
  /** The folder the question names: the photo's real folder. */
  let shared: string;
  const questions = (): string[] =>
    ui.messages.filter((message) => message.modal && message.text.startsWith('Allow files')).map((m) => m.text);
  const allowFrom = (): string[] | undefined =>
    vscode.workspace.getConfiguration('agentWorkflows').inspect<string[]>('files.allowFrom')?.workspaceValue;

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    api = await extension.activate();
    await vscode.workspace.fs.writeFile(PHOTO, PNG);
    await vscode.workspace.fs.writeFile(AGENT, Buffer.from(AGENT_TEXT));
    await vscode.workspace.fs.writeFile(
      TEST_FILE,
      Buffer.from(
        `agent: pics.agent.yaml\ncases:\n  shared photo:\n    inputs: { id: 1 }\n    files: { pic: ../shared/photo.png }\n    expect: { outputs: { id: "1" } }\n`,
      ),
    );
    await vscode.workspace.fs.writeFile(DATA, Buffer.from('{"id":1,"pic":"../shared/photo.png"}\n'));
    shared = dirname(realpathSync(PHOTO.fsPath));
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('agentWorkflows.forgetAllowedFolders', [shared]);
    ui = new ScriptedUi();
  });

  afterEach(() => {
    ui.restore();
    assert.deepEqual(ui.unexpected, [], 'every prompt was answered');
  });

  after(async () => {
    await vscode.commands.executeCommand('agentWorkflows.forgetAllowedFolders', [shared]);
    for (const item of (await api.executionsTree.getChildren()) ?? [])
      if (String(item.contextValue).startsWith('batch-')) await vscode.commands.executeCommand('agentWorkflows.batches.remove', item);
    await vscode.workspace.fs.delete(FOLDER, { recursive: true }).then(undefined, () => undefined);
  });

  it('a test run asks once; Cancel reads nothing outside, Allow is kept for the workspace, not in its settings', async () => {
    await api.agentTests.refresh(TEST_FILE);
    const file = await waitFor(() => api.agentTests.controller.items.get(TEST_FILE.toString()), 'the test file item');
    const id = `${TEST_FILE.toString()}::shared photo`;

    ui.onMessage = () => undefined; // Cancel
    const cancelled = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.deepEqual(questions(), [`Allow files from ${shared}?`]);
    assert.equal(cancelled.get(id)?.state, 'errored');
    assert.match(String(cancelled.get(id)?.messages[0]?.message), /outside the test file's folder.*agentWorkflows\.files\.allowFrom/);
    assert.equal(allowFrom(), undefined);

    ui.onMessage = (message) => (message.modal ? 'Allow' : undefined);
    const allowed = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.equal(allowed.get(id)?.state, 'passed', JSON.stringify(allowed.get(id)));
    assert.equal(allowFrom(), undefined, 'nothing is written into the workspace settings');

    const again = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.equal(again.get(id)?.state, 'passed');
    assert.equal(questions().length, 2, 'not asked again once allowed');

    // Forgotten, the next run asks again.
    ui.onMessage = () => undefined;
    assert.deepEqual(await vscode.commands.executeCommand('agentWorkflows.forgetAllowedFolders', [shared]), [shared]);
    const forgotten = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.equal(forgotten.get(id)?.state, 'errored');
    assert.equal(questions().length, 3);
  });

  it("does not follow a workspace's own agentWorkflows.files.allowFrom: the run still asks", async () => {
    // As a cloned repository would ship it, in .vscode/settings.json.
    const settingsFile = workspaceUri('.vscode', 'settings.json');
    const before = await vscode.workspace.fs.readFile(settingsFile).then(
      (bytes) => Buffer.from(bytes).toString('utf8'),
      () => undefined,
    );
    const settings = before === undefined ? {} : (JSON.parse(before) as Record<string, unknown>);
    // With a setting VS Code does follow there, whose value shows when the file has been read.
    const marker = 123_457;
    await vscode.workspace.fs.writeFile(
      settingsFile,
      Buffer.from(
        JSON.stringify(
          { ...settings, 'agentWorkflows.files.allowFrom': [shared], 'agentWorkflows.results.maxOutputLength': marker },
          null,
          2,
        ),
      ),
    );
    try {
      const config = () => vscode.workspace.getConfiguration('agentWorkflows');
      await waitFor(
        () => (config().get('results.maxOutputLength') === marker ? true : undefined),
        'the workspace settings read by VS Code',
      );
      await api.agentTests.refresh(TEST_FILE);
      const file = await waitFor(() => api.agentTests.controller.items.get(TEST_FILE.toString()), 'the test file item');
      ui.onMessage = () => undefined; // Cancel
      const cancelled = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
      assert.deepEqual(questions(), [`Allow files from ${shared}?`]);
      assert.equal(cancelled.get(`${TEST_FILE.toString()}::shared photo`)?.state, 'errored');
    } finally {
      if (before === undefined) await vscode.workspace.fs.delete(settingsFile);
      else await vscode.workspace.fs.writeFile(settingsFile, Buffer.from(before));
    }
  });

  it('a batch asks once before any row is read; Cancel skips the row, Allow runs it', async () => {
    const runDataset = (answer: string | undefined): Thenable<BatchRecord | undefined> => {
      ui.openFile(DATA);
      ui.pick((items) => items.find((item) => item.label.includes('On this machine')));
      ui.onMessage = (message) => (!message.modal ? undefined : message.text.startsWith('Allow files') ? answer : 'Run 1 Row');
      return vscode.commands.executeCommand<BatchRecord | undefined>('agentWorkflows.runDataset', AGENT);
    };
    const cancelled = await runDataset(undefined);
    assert.deepEqual(questions(), [`Allow files from ${shared}?`]);
    assert.deepEqual([cancelled?.counts?.finished, cancelled?.counts?.skipped], [0, 1]);
    assert.equal(allowFrom(), undefined);

    const allowed = await runDataset('Allow');
    assert.equal(allowed?.state, 'finished', allowed?.error);
    assert.deepEqual([allowed?.counts?.finished, allowed?.counts?.skipped], [1, 0]);
    assert.equal(allowFrom(), undefined);
    assert.equal(questions().length, 2);
  });
});
