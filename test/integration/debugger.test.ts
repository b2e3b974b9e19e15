// The agent debugger in the real extension host: the inline adapter (debug type agent-workflow)
// started by VS Code's debug service, a breakpoint set in the editor's breakpoint model, a secret
// from secret storage, the Variables of a node's body read through the session, Continue; and F5
// on an agent file with no launch.json, asking for the inputs as Run Locally does.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import type { AgentWorkflowsApi } from '../../src/extension';
import { ScriptedUi } from './scriptedUi';
import { workspaceFolder } from './userData';
import { waitFor } from './wait';

const TOKEN = `aw-debug-token-${randomBytes(12).toString('hex')}`;
const SECRET = 'DEBUG_TOKEN';

function lookupAgent(api: string): string {
  return [
    'version: 1',
    'name: Debugged',
    'inputs:',
    '  who: { type: string, required: true }',
    'nodes:',
    '  lookup:',
    '    type: api',
    '    method: GET',
    `    url: "${api}/people/{{ inputs.who }}"`,
    `    settings: ["Authorization: Bearer {{ secrets.${SECRET} }}"]`,
    '  greet:',
    '    type: template',
    '    text: "Hello {{ nodes.lookup.body.name }}"',
    'outputs:',
    '  greeting: { from: "{{ nodes.greet.body }}" }',
    '',
  ].join('\n');
}

describe('agent debugger (inline adapter)', function () {
  this.timeout(60_000);
  let api: TestServer;
  let folder: string;
  /** Every message the adapter sent, by session id. */
  const sent = new Map<string, { type: string; event?: string; body?: Record<string, unknown> }[]>();
  let tracker: vscode.Disposable;

  before(async () => {
    const extension = vscode.extensions.getExtension('agent-workflows.agent-workflows');
    assert.ok(extension);
    await extension.activate();
    api = await startServer((request, response) =>
      json(response, 200, { name: `Person ${request.url?.split('/').pop() ?? ''}`, auth: request.headers.authorization ?? null }),
    );
    folder = join(workspaceFolder(), 'debugging');
    mkdirSync(folder, { recursive: true });
    const setup = new ScriptedUi().input(TOKEN);
    try {
      await vscode.commands.executeCommand('agentWorkflows.setSecret', SECRET);
    } finally {
      setup.restore();
    }
    tracker = vscode.debug.registerDebugAdapterTrackerFactory('agent-workflow', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (message: { type: string; event?: string; body?: Record<string, unknown> }) =>
          sent.set(session.id, [...(sent.get(session.id) ?? []), message]),
      }),
    });
  });

  after(async () => {
    tracker.dispose();
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    await vscode.commands.executeCommand('agentWorkflows.clearSecret', SECRET);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** The session's next "stopped" event after `seen` of them. */
  async function stoppedOf(session: vscode.DebugSession, seen: number): Promise<{ threadId: number; reason: string }> {
    const stops = await waitFor(() => {
      const found = (sent.get(session.id) ?? []).filter((message) => message.type === 'event' && message.event === 'stopped');
      return found.length > seen ? found : undefined;
    }, 'a stop');
    return stops[seen]!.body as { threadId: number; reason: string };
  }

  /** The next debug session to start. */
  function nextSession(): Promise<vscode.DebugSession> {
    return new Promise<vscode.DebugSession>((resolve) => {
      const listener = vscode.debug.onDidStartDebugSession((session) => {
        listener.dispose();
        resolve(session);
      });
    });
  }

  /** The Inputs variables of a stopped thread's top frame, as [name, value]. */
  async function inputsAt(session: vscode.DebugSession, threadId: number): Promise<[string, string][]> {
    const frames = (await session.customRequest('stackTrace', { threadId })) as { stackFrames: { id: number }[] };
    const scopes = (await session.customRequest('scopes', { frameId: frames.stackFrames[0]!.id })) as {
      scopes: { name: string; variablesReference: number }[];
    };
    const inputs = scopes.scopes.find((scope) => scope.name === 'Inputs');
    assert.ok(inputs, `an Inputs scope among ${scopes.scopes.map((scope) => scope.name).join(', ')}`);
    const shown = (await session.customRequest('variables', { variablesReference: inputs.variablesReference })) as {
      variables: { name: string; value: string }[];
    };
    return shown.variables.map((variable) => [variable.name, variable.value]);
  }

  function outputOf(session: vscode.DebugSession): string {
    return (sent.get(session.id) ?? [])
      .filter((message) => message.event === 'output')
      .map((message) => String(message.body?.output))
      .join('');
  }

  async function ended(session: vscode.DebugSession): Promise<void> {
    await waitFor(() => (vscode.debug.activeDebugSession?.id === session.id ? undefined : true), 'the session to end');
  }

  it('stops at a breakpoint on a node, shows its upstream node body, and continues to the end', async () => {
    const program = join(folder, 'debugged.agent.yaml');
    writeFileSync(program, lookupAgent(api.url));
    const uri = vscode.Uri.file(program);
    // Line 12 of the file (0-based 11) is greet's id.
    vscode.debug.addBreakpoints([new vscode.SourceBreakpoint(new vscode.Location(uri, new vscode.Position(12, 4)))]);
    const started = new Promise<vscode.DebugSession>((resolve) => {
      const listener = vscode.debug.onDidStartDebugSession((session) => {
        listener.dispose();
        resolve(session);
      });
    });
    assert.ok(
      await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], {
        type: 'agent-workflow',
        request: 'launch',
        name: 'Debug in the test',
        program,
        inputs: { who: 'Ann' },
      }),
    );
    const session = await started;
    const stop = await stoppedOf(session, 0);
    assert.equal(stop.reason, 'breakpoint');
    const frames = (await session.customRequest('stackTrace', { threadId: stop.threadId })) as {
      stackFrames: { id: number; name: string; line: number }[];
    };
    assert.deepEqual(
      frames.stackFrames.map((frame) => [frame.name, frame.line]),
      [
        ['greet (before it runs)', 11],
        ['lookup (used by greet)', 6],
      ],
    );
    const scopes = (await session.customRequest('scopes', { frameId: frames.stackFrames[0]!.id })) as {
      scopes: { name: string; variablesReference: number }[];
    };
    const nodesScope = scopes.scopes.find((scope) => scope.name === 'Nodes')!;
    type Variables = { variables: { name: string; value: string; variablesReference: number }[] };
    const nodes = (await session.customRequest('variables', { variablesReference: nodesScope.variablesReference })) as Variables;
    const lookup = nodes.variables.find((variable) => variable.name === 'lookup')!;
    const fields = (await session.customRequest('variables', { variablesReference: lookup.variablesReference })) as Variables;
    const body = fields.variables.find((variable) => variable.name === 'body')!;
    const bodyFields = (await session.customRequest('variables', { variablesReference: body.variablesReference })) as Variables;
    assert.deepEqual(
      bodyFields.variables.map((variable) => [variable.name, variable.value]),
      [
        ['name', '"Person Ann"'],
        ['auth', `"Bearer {{ secrets.${SECRET} }}"`],
      ],
    );
    assert.equal(api.requests.at(-1)?.headers.authorization, `Bearer ${TOKEN}`, 'the secret came from secret storage');
    await session.customRequest('continue', { threadId: stop.threadId });
    await ended(session);
    const output = (sent.get(session.id) ?? [])
      .filter((message) => message.event === 'output')
      .map((message) => String(message.body?.output))
      .join('');
    assert.match(output, /Hello Person Ann/);
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
  });

  it('F5 on an agent file with no launch.json asks for its inputs as Run Locally does, and runs it', async () => {
    const program = join(folder, 'pressed.agent.yaml');
    writeFileSync(program, lookupAgent(api.url));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(program)));
    const ui = new ScriptedUi().input('Bea');
    try {
      const started = new Promise<vscode.DebugSession>((resolve) => {
        const listener = vscode.debug.onDidStartDebugSession((session) => {
          listener.dispose();
          resolve(session);
        });
      });
      // What F5 does with no launch.json: a configuration with nothing in it, completed by the provider.
      assert.ok(
        await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], { type: 'agent-workflow', request: '', name: '' }),
      );
      const session = await started;
      await ended(session);
      assert.equal(api.requests.at(-1)?.url, '/people/Bea');
    } finally {
      ui.restore();
    }
    assert.deepEqual(ui.unexpected, [], 'every prompt was scripted');
  });

  it('shows Debug beside Run locally; its command debugs the file, asking for the inputs', async () => {
    const program = join(folder, 'lens.agent.yaml');
    writeFileSync(program, lookupAgent(api.url));
    const uri = vscode.Uri.file(program);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const lens = await waitFor(async () => {
      const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      const local = all.findIndex((candidate) => candidate.command?.command === 'agentWorkflows.runLocally');
      const debug = all[local + 1];
      return debug?.command?.command === 'agentWorkflows.debugAgent' ? debug : undefined;
    }, 'the Debug lens after Run locally');
    assert.match(lens.command!.title, /Debug/);
    const ui = new ScriptedUi().input('Cid');
    try {
      const started = new Promise<vscode.DebugSession>((resolve) => {
        const listener = vscode.debug.onDidStartDebugSession((session) => {
          listener.dispose();
          resolve(session);
        });
      });
      await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
      const session = await started;
      assert.equal(session.type, 'agent-workflow');
      await ended(session);
      assert.equal(api.requests.at(-1)?.url, '/people/Cid');
    } finally {
      ui.restore();
    }
    assert.deepEqual(ui.unexpected, [], 'every prompt was scripted');
  });

  it("debugs test cases from the Test Explorer's Debug profile, with their mocks: each ends as it would run", async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows')!;
    const tests = (await extension.activate()).agentTests;
    const testFile = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, 'agent-tests', 'greeter.agent.test.yaml');
    await tests.controller.resolveHandler?.(undefined);
    const file = await waitFor(() => tests.controller.items.get(testFile.toString()), 'the test file item');
    const cases = await waitFor(() => {
      const found = ['known person', 'wrong title'].map((name) => file.children.get(`${testFile.toString()}::${name}`));
      return found.every(Boolean) ? (found as vscode.TestItem[]) : undefined;
    }, 'the case items');
    const sessions = new Map<string, string>();
    const listener = vscode.debug.onDidStartDebugSession((session) => sessions.set(session.name, session.id));
    const cancel = new vscode.CancellationTokenSource();
    try {
      await tests.debugProfile.runHandler(new vscode.TestRunRequest(cases, [], tests.debugProfile), cancel.token);
    } finally {
      listener.dispose();
      cancel.dispose();
    }
    const exitOf = (name: string): unknown => {
      const id = sessions.get(`Debug ${name}`);
      assert.ok(id, `a session for ${name} among ${[...sessions.keys()].join(', ')}`);
      return (sent.get(id) ?? []).find((message) => message.event === 'exited')?.body?.exitCode;
    };
    assert.equal(exitOf('known person'), 0);
    assert.equal(exitOf('wrong title'), 1);
  });

  it("debugs a test case as the editor has it: the test file's and the agent's unsaved text", async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows')!;
    const tests = (await extension.activate()).agentTests;
    const agentPath = join(folder, 'edited.agent.yaml');
    const testPath = join(folder, 'edited.agent.test.yaml');
    writeFileSync(
      agentPath,
      [
        'version: 1',
        'name: Edited',
        'inputs:',
        '  who: { type: string, required: true }',
        'nodes:',
        '  profile:',
        '    type: api',
        '    method: GET',
        '    url: https://profiles.example.com/v1/people/{{ inputs.who }}',
        '  greet:',
        '    type: template',
        '    text: "Hello {{ nodes.profile.body.title }} {{ inputs.who }}"',
        'outputs:',
        '  greeting: { from: "{{ nodes.greet.body }}" }',
        '',
      ].join('\n'),
    );
    writeFileSync(
      testPath,
      [
        'cases:',
        '  edited:',
        '    inputs: { who: Ada }',
        '    mocks:',
        '      profile: { body: { title: Countess } }',
        '    expect:',
        '      outputs:',
        '        greeting: Hi Countess Eve',
        '',
      ].join('\n'),
    );
    const agentUri = vscode.Uri.file(agentPath);
    const testUri = vscode.Uri.file(testPath);
    const agentDocument = await vscode.workspace.openTextDocument(agentUri);
    const testDocument = await vscode.workspace.openTextDocument(testUri);
    try {
      // Unsaved edits of both: the case's input, the agent's greeting.
      const edit = new vscode.WorkspaceEdit();
      edit.replace(testUri, testDocument.lineAt(2).range, '    inputs: { who: Eve }');
      edit.replace(agentUri, agentDocument.lineAt(11).range, '    text: "Hi {{ nodes.profile.body.title }} {{ inputs.who }}"');
      assert.ok(await vscode.workspace.applyEdit(edit));
      assert.ok(testDocument.isDirty && agentDocument.isDirty);
      // Line 10 (0-based 9) is greet's id.
      vscode.debug.addBreakpoints([new vscode.SourceBreakpoint(new vscode.Location(agentUri, new vscode.Position(9, 2)))]);
      const item = await waitFor(
        async () => (
          await tests.refresh(testUri),
          tests.controller.items.get(testUri.toString())?.children.get(`${testUri.toString()}::edited`)
        ),
        'the case item',
      );
      const started = nextSession();
      const cancel = new vscode.CancellationTokenSource();
      const run = Promise.resolve(tests.debugProfile.runHandler(new vscode.TestRunRequest([item], [], tests.debugProfile), cancel.token));
      try {
        const session = await Promise.race([started, run.then(() => Promise.reject(new Error('The run ended without a debug session.')))]);
        const stop = await stoppedOf(session, 0);
        assert.deepEqual(await inputsAt(session, stop.threadId), [['who', '"Eve"']]);
        await session.customRequest('continue', { threadId: stop.threadId });
        await run;
        assert.equal((sent.get(session.id) ?? []).find((message) => message.event === 'exited')?.body?.exitCode, 0, outputOf(session));
      } finally {
        // A failed check leaves no session paused for the tests after it.
        if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
        await run;
        cancel.dispose();
      }
    } finally {
      vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
      for (const document of [testDocument, agentDocument]) {
        await vscode.window.showTextDocument(document);
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
      rmSync(testPath, { force: true });
      rmSync(agentPath, { force: true });
    }
  });

  it('Debug Again on a local execution debugs its agent with its inputs; says when the file changed or is gone', async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows')!;
    const executions = (await extension.activate()).executionsTree;
    const program = join(folder, 'again.agent.yaml');
    writeFileSync(program, lookupAgent(api.url));
    const uri = vscode.Uri.file(program);
    const runUi = new ScriptedUi().input('Dee');
    let record: ExecutionRecord;
    try {
      record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', uri);
    } finally {
      runUi.restore();
    }
    assert.equal(record.state, 'finished', record.error);
    const item = ((await executions.getChildren()) ?? []).find(
      (candidate) => (candidate as unknown as { record?: ExecutionRecord }).record?.key === record.key,
    );
    assert.ok(item, 'the execution in the view');
    assert.match(String(item.contextValue), /^execution-finished-local-/);
    try {
      // Line 13 (0-based 12) is greet's id: stopped there, the session shows the execution's inputs.
      vscode.debug.addBreakpoints([new vscode.SourceBreakpoint(new vscode.Location(uri, new vscode.Position(12, 4)))]);
      const ui = new ScriptedUi();
      try {
        const started = nextSession();
        assert.ok(await vscode.commands.executeCommand('agentWorkflows.executions.debugAgain', item));
        const session = await started;
        assert.equal(session.type, 'agent-workflow');
        const stop = await stoppedOf(session, 0);
        assert.deepEqual(await inputsAt(session, stop.threadId), [['who', '"Dee"']]);
        await session.customRequest('continue', { threadId: stop.threadId });
        await ended(session);
        assert.match(outputOf(session), /Hello Person Dee/);
      } finally {
        ui.restore();
        vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
      }
      assert.deepEqual(ui.unexpected, [], "no prompt: the inputs are the execution's");
      assert.deepEqual(ui.messages, []);

      // Changed since it ran: debugged as it is now, with a note.
      writeFileSync(program, lookupAgent(api.url).replace('"Hello ', '"Hi '));
      const changed = new ScriptedUi();
      try {
        const started = nextSession();
        assert.ok(await vscode.commands.executeCommand('agentWorkflows.executions.debugAgain', item));
        const session = await started;
        await ended(session);
        assert.match(outputOf(session), /Hi Person Dee/);
      } finally {
        changed.restore();
      }
      assert.deepEqual(
        changed.messages.map((message) => [message.kind, message.text]),
        [['warning', "again.agent.yaml changed since this execution ran: it is debugged as it is now, with the execution's inputs."]],
      );

      // Gone: said, nothing started.
      rmSync(program);
      const gone = new ScriptedUi();
      try {
        assert.equal(await vscode.commands.executeCommand('agentWorkflows.executions.debugAgain', item), undefined);
      } finally {
        gone.restore();
      }
      assert.equal(gone.messages.length, 1);
      assert.match(gone.messages[0]!.text, /again\.agent\.yaml no longer exists: this execution cannot be debugged again/);
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.executions.remove', item);
      rmSync(program, { force: true });
    }
  });
});
