// Restricted Mode (Workspace Trust on, the folder not trusted): the extension still validates,
// but running, watching and the local server are refused with an explanation before anything is
// asked or sent; so are the language model tools that run anything.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentWorkflowsApi } from '../../src/extension';
import { ScriptedUi } from '../integration/scriptedUi';
import { waitFor } from '../integration/wait';

describe('restricted mode', function () {
  this.timeout(60_000);
  let ui: ScriptedUi;
  const folder = (): vscode.Uri => {
    const first = vscode.workspace.workspaceFolders?.[0];
    assert.ok(first);
    return first.uri;
  };

  before(async () => {
    await vscode.extensions.getExtension('agent-workflows.agent-workflows')?.activate();
  });
  beforeEach(() => {
    ui = new ScriptedUi();
  });
  afterEach(() => {
    ui.restore();
    assert.deepEqual(ui.unexpected, []);
  });

  it('runs in an untrusted workspace', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('still validates agent files', async () => {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder(), 'broken.agent.yaml'));
    await vscode.window.showTextDocument(document);
    const problems = await waitFor(() => {
      const found = vscode.languages.getDiagnostics(document.uri);
      return found.length > 0 ? found : undefined;
    }, 'diagnostics of broken.agent.yaml');
    assert.ok(problems.some((problem) => problem.code !== undefined));
  });

  for (const [command, argument] of [
    ['agentWorkflows.runAgent', 'hello.agent.yaml'],
    ['agentWorkflows.runLocally', 'hello.agent.yaml'],
    ['agentWorkflows.pollExecution', undefined],
    ['agentWorkflows.startLocalServer', undefined],
    // Guarded before the execution is looked up: without the guard, the empty history's note shows instead.
    ['agentWorkflows.executions.runAgain', undefined],
    ['agentWorkflows.executions.watchAgain', undefined],
    ['agentWorkflows.executions.debugAgain', undefined],
  ] as const) {
    it(`refuses ${command} with an explanation, before asking anything`, async () => {
      const result = await vscode.commands.executeCommand(command, argument ? vscode.Uri.joinPath(folder(), argument) : undefined);
      assert.equal(result, undefined);
      const warning = ui.messages.find((message) => message.kind === 'warning');
      assert.ok(warning, JSON.stringify(ui.messages));
      assert.match(warning.text, /disabled in Restricted Mode/);
      assert.deepEqual(warning.items, ['Manage Workspace Trust']);
      assert.equal(ui.inputBoxes.length + ui.quickPicks.length, 0, 'nothing was asked');
    });
  }

  it('answers the running language model tools with the trust they need, and still validates and lists', async () => {
    const texts = async (name: string, input: object): Promise<string> => {
      const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
      return result.content.map((part) => String((part as { value?: unknown }).value)).join('\n');
    };
    for (const [name, input] of [
      ['agentWorkflows_runAgent', { path: 'hello.agent.yaml', inputs: {} }],
      ['agentWorkflows_sendNode', { path: 'hello.agent.yaml', node: 'greet' }],
      ['agentWorkflows_runTests', { path: 'hello.agent.test.yaml' }],
      ['agentWorkflows_executionStatus', { executionId: 'x' }],
    ] as const)
      assert.match(await texts(name, input), /^Error: agentWorkflows_\w+ runs nothing in Restricted Mode: .*Trust the workspace/, name);
    assert.match(
      await texts('agentWorkflows_validate', { path: 'broken.agent.yaml' }),
      /^broken\.agent\.yaml: \d+ problems?, [1-9]\d* errors?/,
    );
    assert.match(await texts('agentWorkflows_listAgents', {}), /hello\.agent\.yaml/);
    assert.equal(ui.messages.length + ui.inputBoxes.length + ui.quickPicks.length, 0, 'nothing was asked');
  });

  it('reads the environments file for validation only: its problems show, no environment is offered', async () => {
    const api = (await vscode.extensions.getExtension('agent-workflows.agent-workflows')?.activate()) as AgentWorkflowsApi;
    const envs = vscode.Uri.joinPath(folder(), 'restricted-envs');
    const file = vscode.Uri.joinPath(envs, 'agent-workflows.yaml');
    const agent = vscode.Uri.joinPath(envs, 'hello.agent.yaml');
    try {
      await vscode.workspace.fs.writeFile(file, Buffer.from('environments:\n  dev:\n    baseUrl: http://127.0.0.1:9\n'));
      await vscode.workspace.fs.copy(vscode.Uri.joinPath(folder(), 'hello.agent.yaml'), agent, { overwrite: true });
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
      const problems = await waitFor(() => {
        const found = vscode.languages.getDiagnostics(file);
        return found.length > 0 ? found : undefined;
      }, 'diagnostics of agent-workflows.yaml');
      assert.match(problems.map((problem) => problem.message).join('\n'), /account/);
      await vscode.window.showTextDocument(agent);
      assert.equal((await api.environmentStatus()).visible, false);
    } finally {
      await vscode.workspace.fs.delete(envs, { recursive: true }).then(undefined, () => undefined);
    }
  });

  it('offers only Show graph as a code lens', async () => {
    const uri = vscode.Uri.joinPath(folder(), 'hello.agent.yaml');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const lenses = await waitFor(async () => {
      const found = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      return found?.length ? found : undefined;
    }, 'code lenses');
    assert.deepEqual(
      lenses.map((lens) => lens.command?.command),
      ['agentWorkflows.showGraph'],
    );
  });
});
