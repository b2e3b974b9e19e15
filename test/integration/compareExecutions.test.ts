// Compare in the Agent Executions view, in the real extension host: two executions of an agent run
// on this machine (the agent changed between them), both selected, Compare opens VS Code's diff
// editor on two read-only documents of the agent-compare: scheme, their outputs first (JSON
// normalized: keys sorted, pretty), then their inputs and trace; one execution alone is refused.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import type { AgentWorkflowsApi } from '../../src/extension';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const AGENT = workspaceUri('compare-executions', 'greet.agent.yaml');

/** The agent: a greeting, and a profile from a real API (its version: v2 answers its keys in another order). */
const agentText = (greeting: string, api: string): string => `version: 1
name: Greet
inputs:
  who: { type: string, required: true }
nodes:
  say:
    type: template
    text: "${greeting} {{ inputs.who }}"
  profile:
    type: api
    method: GET
    url: ${api}/{{ inputs.who }}
outputs:
  greeting: { from: "{{ nodes.say.body }}" }
  profile: { from: "{{ nodes.profile.body }}" }
`;

describe('compare two executions', function () {
  this.timeout(60_000);
  let api: AgentWorkflowsApi;
  let ui: ScriptedUi;
  let profiles: TestServer;

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    api = await extension.activate();
    // The same profile, its keys in another order from v2: not a change once normalized.
    profiles = await startServer((request, response) =>
      request.url?.startsWith('/v2/') ? json(response, 200, { z: 1, a: 2 }) : json(response, 200, { a: 2, z: 1 }),
    );
  });

  beforeEach(() => {
    ui = new ScriptedUi();
  });

  afterEach(() => {
    ui.restore();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(workspaceUri('compare-executions'), { recursive: true }).then(undefined, () => undefined);
    await profiles?.close();
  });

  const run = async (text: string): Promise<ExecutionRecord> => {
    await vscode.workspace.fs.writeFile(AGENT, Buffer.from(text));
    // The run reads the agent's document: once it has the text written (the editor catches up with the file).
    await waitFor(async () => (await vscode.workspace.openTextDocument(AGENT)).getText() === text, 'the agent document to hold the change');
    ui.input('Ada');
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', AGENT);
    assert.ok(record, JSON.stringify(ui.messages));
    assert.equal(record.state, 'finished', record.error);
    return record;
  };

  it('opens the diff editor on the outputs of the two selected executions, JSON normalized', async () => {
    const before = await run(agentText('Hello', `${profiles.url}/v1`));
    const after = await run(agentText('Hi', `${profiles.url}/v2`));
    const items = ((await api.executionsTree.getChildren()) ?? []).filter((item) =>
      [before.key, after.key].includes((item as { record?: ExecutionRecord }).record?.key ?? ''),
    );
    assert.equal(items.length, 2, 'both executions in the view');
    const opened = await vscode.commands.executeCommand<{ left: vscode.Uri; right: vscode.Uri }>(
      'agentWorkflows.executions.compare',
      items[0],
      items,
    );
    assert.ok(opened, 'the comparison opened');
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, 'a diff editor is active');
    assert.equal(tab.input.original.scheme, 'agent-compare');
    assert.equal(tab.input.original.toString(), opened.left.toString());
    assert.equal(tab.input.modified.toString(), opened.right.toString());
    const left = (await vscode.workspace.openTextDocument(tab.input.original)).getText();
    const right = (await vscode.workspace.openTextDocument(tab.input.modified)).getText();
    // The earlier execution on the left; keys sorted on both sides, so only the greeting differs.
    assert.match(
      left,
      /^\/\/ Greet: finished\n\{\n {2}"outputs": \{\n {4}"greeting": "Hello Ada",\n {4}"profile": \{\n {6}"a": 2,\n {6}"z": 1\n {4}\}\n {2}\},\n/,
    );
    assert.equal(right, left.replace('Hello Ada', 'Hi Ada'), 'only the greeting differs: the profile is the same, its keys sorted');
    // One JSONC object (comments aside, JSON), so the JSON language marks no problem in the diff.
    const parsed = JSON.parse(left.replace(/^\s*\/\/.*$/gm, '')) as { inputs: unknown; trace: string[] };
    assert.deepEqual(parsed.inputs, { who: 'Ada' });
    assert.ok(
      parsed.trace.some((line) => /^(say|profile): succeeded/.test(line)),
      parsed.trace.join(', '),
    );
  });

  it('says to select two executions when given one', async () => {
    const one = ((await api.executionsTree.getChildren()) ?? []).find((item) => String(item.contextValue).startsWith('execution-'));
    assert.ok(one, 'an execution in the view');
    const result = await vscode.commands.executeCommand('agentWorkflows.executions.compare', one, [one]);
    assert.equal(result, undefined);
    assert.ok(
      ui.messages.some((message) =>
        /Select two executions in the Agent Executions view to compare them \(1 selected\)\./.test(message.text),
      ),
      JSON.stringify(ui.messages),
    );
  });
});
