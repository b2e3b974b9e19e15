// Agent tests in the real extension host: the Test Explorer's items for a test file of the fixture
// workspace (at their lines), a run through the controller with the engine and mocks (a failed
// expectation at its own line with expected and actual values), items and diagnostics that follow
// edits (unsaved text) and files created and deleted on disk, the "Run tests" code lens and its
// command, continuous runs, completion and hovers in a test file, "New Test Case from This
// Execution" on a local run of the executions view, and deployed cases sent to a real local agent
// server with the key of its origin.
import { FileAllowances } from '../../src/runs/fileAllowances';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { startAgentServer } from '../../src/core/server/agentServer';
import { json, startServer } from '../support/httpServer';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import type { AgentWorkflowsApi } from '../../src/extension';
import type { Exchange } from '../../src/core/exchange/exchange';
import { FixableProblems } from '../../src/language/fixableProblems';
import { AgentTestController } from '../../src/testing/agentTestController';
import type { ItemOutcome } from '../../src/testing/agentTestController';
import { ScriptedUi } from './scriptedUi';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const TEST_FILE = workspaceUri('agent-tests', 'greeter.agent.test.yaml');
const AGENT_FILE = workspaceUri('agent-tests', 'greeter.agent.yaml');

async function lineOf(uri: vscode.Uri, needle: string): Promise<number> {
  const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
  const index = text.indexOf(needle);
  assert.notEqual(index, -1, needle);
  return text.slice(0, index).split('\n').length - 1;
}

function childrenOf(item: vscode.TestItem): vscode.TestItem[] {
  const children: vscode.TestItem[] = [];
  item.children.forEach((child) => children.push(child));
  return children.sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''));
}

describe('agent tests in VS Code', () => {
  let api: AgentWorkflowsApi;
  const created: vscode.Uri[] = [];

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    api = await extension.activate();
  });

  afterEach(async () => {
    // Every unsaved edit undone, not only the active editor's: a later test reads unsaved agent texts.
    for (const document of vscode.workspace.textDocuments.filter((open) => open.isDirty)) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert').then(undefined, () => undefined);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const uri of created.splice(0)) await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
  });

  it('discovers the test files of the workspace, a test item per case at its line', async () => {
    const controller = api.agentTests.controller;
    assert.equal(controller.label, 'Agent Tests');
    // The longest extension wins: a test file is agent-test-yaml, not agent-yaml.
    assert.equal((await vscode.workspace.openTextDocument(TEST_FILE)).languageId, 'agent-test-yaml');
    assert.equal((await vscode.workspace.openTextDocument(AGENT_FILE)).languageId, 'agent-yaml');
    await controller.resolveHandler?.(undefined);
    const file = await waitFor(() => controller.items.get(TEST_FILE.toString()), 'the test file item');
    assert.equal(file.uri?.toString(), TEST_FILE.toString());
    assert.equal(file.error, undefined);
    const cases = childrenOf(file);
    assert.deepEqual(
      cases.map((item) => [item.label, item.range?.start.line]),
      [
        ['known person', await lineOf(TEST_FILE, 'known person:')],
        ['wrong title', await lineOf(TEST_FILE, 'wrong title:')],
      ],
    );
  });

  it('runs a test file: a pass, and a failure as a message at the expectation with expected and actual', async () => {
    const file = await waitFor(() => api.agentTests.controller.items.get(TEST_FILE.toString()), 'the test file item');
    const outcomes = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    const passed = outcomes.get(`${TEST_FILE.toString()}::known person`);
    assert.equal(passed?.state, 'passed', JSON.stringify(passed));
    assert.ok((passed?.durationMs ?? -1) >= 0);
    const failed = outcomes.get(`${TEST_FILE.toString()}::wrong title`);
    assert.equal(failed?.state, 'failed');
    assert.deepEqual(failed?.messages, [
      {
        message: 'outputs.greeting: expected "Hello Dr Alan", got "Hello Mr Alan"',
        line: await lineOf(TEST_FILE, 'greeting: Hello Dr Alan'),
        expected: 'Hello Dr Alan',
        actual: 'Hello Mr Alan',
      },
    ]);
  });

  it('runs the whole file when it is chosen beside one of its cases, in either order', async () => {
    await api.agentTests.refresh(TEST_FILE);
    const file = await waitFor(() => api.agentTests.controller.items.get(TEST_FILE.toString()), 'the test file item');
    const knownPerson = file.children.get(`${TEST_FILE.toString()}::known person`);
    assert.ok(knownPerson);
    for (const include of [
      [file, knownPerson],
      [knownPerson, file],
    ]) {
      const outcomes = await api.agentTests.runTests(new vscode.TestRunRequest(include));
      assert.deepEqual([...outcomes.keys()].map((id) => id.split('::')[1]).sort(), ['known person', 'wrong title']);
    }
  });

  it('runs only the chosen case, with the unsaved text of its editor, and follows edits', async () => {
    const document = await vscode.workspace.openTextDocument(TEST_FILE);
    const editor = await vscode.window.showTextDocument(document);
    const at = document.positionAt(document.getText().indexOf('Hello Dr Alan'));
    await editor.edit((edit) => edit.replace(new vscode.Range(at, at.translate(0, 'Hello Dr Alan'.length)), 'Hello Mr Alan'));
    await editor.edit((edit) =>
      edit.insert(
        document.positionAt(document.getText().length),
        '\n  added case:\n    inputs: { who: Grace }\n    secrets: { PROFILE_TOKEN: test-token }\n    mocks: { profile: { body: { title: Admiral } } }\n    expect: { outputs: { greeting: { $contains: Admiral } } }\n',
      ),
    );
    assert.ok(document.isDirty);
    const file = api.agentTests.controller.items.get(TEST_FILE.toString())!;
    const added = await waitFor(() => file.children.get(`${TEST_FILE.toString()}::added case`), 'the item of a case added in the editor');
    assert.equal(added.range?.start.line, document.getText().split('\n').indexOf('  added case:'));
    const wrongTitle = file.children.get(`${TEST_FILE.toString()}::wrong title`)!;
    const outcomes = await api.agentTests.runTests(new vscode.TestRunRequest([added, wrongTitle]));
    assert.deepEqual([...outcomes.entries()].map(([id, outcome]) => [id.split('::')[1], outcome.state]).sort(), [
      ['added case', 'passed'],
      ['wrong title', 'passed'],
    ]);

    // A name the agent does not have: a diagnostic, an errored file item, and an errored run.
    const input = document.positionAt(document.getText().indexOf('{ who: Grace }') + 2);
    await editor.edit((edit) => edit.replace(new vscode.Range(input, input.translate(0, 3)), 'wha'));
    const diagnostic = await waitFor(
      () => vscode.languages.getDiagnostics(TEST_FILE).find((entry) => /no input "wha"/.test(entry.message)),
      'a diagnostic for the unknown input',
    );
    assert.equal(diagnostic.range.start.line, input.line);
    assert.match(diagnostic.message, /Did you mean "who"\?/);
    await waitFor(() => file.error !== undefined, 'the file item to be errored');
    const errored = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.equal(errored.get(TEST_FILE.toString())?.state, 'errored');
    assert.equal(errored.get(TEST_FILE.toString())?.messages[0]?.line, input.line);

    // Closing without saving: back to the file on disk.
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitFor(
      () =>
        !file.children.get(`${TEST_FILE.toString()}::added case`) &&
        file.error === undefined &&
        vscode.languages.getDiagnostics(TEST_FILE).length === 0,
      'the items and diagnostics of the saved file',
    );
  });

  it('completes and explains a test file with the names of the agent it names', async () => {
    const uri = workspaceUri('agent-tests', 'authoring.agent.test.yaml');
    created.push(uri);
    const text = [
      'agent: greeter.agent.yaml',
      'defaults:',
      '  secrets: { PROFILE_TOKEN: test-token }',
      'cases:',
      '  one:',
      '    inputs: { who: Ada }',
      '    mocks:',
      '      ',
      '    expect:',
      '      outputs:',
      '        greeting: { $ }',
      '',
    ].join('\n');
    await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
    const document = await vscode.workspace.openTextDocument(uri);
    assert.equal(document.languageId, 'agent-test-yaml');
    const labels = async (position: vscode.Position): Promise<string[]> => {
      const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, position);
      return list.items
        .filter((item) => item.kind !== vscode.CompletionItemKind.Snippet && item.kind !== vscode.CompletionItemKind.Text)
        .map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
    };
    // Under mocks: the agent's API node, not its template node.
    assert.deepEqual(await labels(new vscode.Position(7, 6)), ['profile']);
    const operators = await labels(new vscode.Position(10, 21));
    assert.ok(operators.includes('$contains') && operators.includes('$match'), operators.join(', '));

    const hoverText = async (position: vscode.Position): Promise<string> => {
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, position);
      return hovers
        .flatMap((hover) =>
          hover.contents.map((content) => (typeof content === 'string' ? content : (content as vscode.MarkdownString).value)),
        )
        .join('\n');
    };
    assert.match(await hoverText(new vscode.Position(5, 15)), /\*\*Input `who`\*\*: type `string`, required/);
    assert.match(await hoverText(new vscode.Position(2, 16)), /\*\*Secret `PROFILE_TOKEN`\*\*, used by node `profile`/);
    assert.match(await hoverText(new vscode.Position(1, 2)), /Defaults of every case/);
  });

  it('runs continuously: each change of a test file or its agent runs that file again, until stopped', async () => {
    const uri = workspaceUri('agent-tests', 'auto.agent.test.yaml');
    created.push(uri);
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        'agent: greeter.agent.yaml\ndefaults:\n  secrets: { PROFILE_TOKEN: test-token }\ncases:\n  auto:\n    inputs: { who: Ada }\n    mocks: { profile: { body: { title: Dr } } }\n    expect: { outputs: { greeting: Hello Dr Ada } }\n',
      ),
    );
    await api.agentTests.refresh(uri);
    const file = api.agentTests.controller.items.get(uri.toString());
    assert.ok(file);
    const caseId = `${uri.toString()}::auto`;
    // The first run to end with the case in that state. Only the edit below can bring it: the watcher's
    // late report of the file's creation may start a run of the text as written, which still passes.
    const runEndingIn = (state: ItemOutcome['state']): Promise<ItemOutcome | undefined> =>
      new Promise((resolve) => {
        const listening = api.agentTests.onDidEndRun((outcomes) => {
          if (outcomes.get(caseId)?.state !== state) return;
          listening.dispose();
          resolve(outcomes.get(caseId));
        });
      });
    const profile = api.agentTests.localProfile;
    assert.equal(profile.supportsContinuousRun, true);
    const stop = new vscode.CancellationTokenSource();
    const watching = Promise.resolve(profile.runHandler(new vscode.TestRunRequest([file], undefined, profile, true), stop.token));

    // An edit of the test file, unsaved: the case runs against the new expectation.
    const testDocument = await vscode.workspace.openTextDocument(uri);
    const testEditor = await vscode.window.showTextDocument(testDocument);
    let ran = runEndingIn('failed');
    const expected = testDocument.positionAt(testDocument.getText().indexOf('Hello Dr Ada'));
    await testEditor.edit((edit) => edit.replace(new vscode.Range(expected, expected.translate(0, 'Hello Dr Ada'.length)), 'Hi Dr Ada'));
    assert.equal((await ran)?.state, 'failed');

    // An edit of the agent under test: its test file runs again.
    const agentDocument = await vscode.workspace.openTextDocument(AGENT_FILE);
    const agentEditor = await vscode.window.showTextDocument(agentDocument);
    ran = runEndingIn('passed');
    const hello = agentDocument.positionAt(agentDocument.getText().indexOf('"Hello '));
    await agentEditor.edit((edit) => edit.replace(new vscode.Range(hello, hello.translate(0, '"Hello'.length)), '"Hi'));
    assert.equal((await ran)?.state, 'passed');
    await vscode.commands.executeCommand('workbench.action.files.revert');

    stop.cancel();
    await watching;
    // Stopped: a change runs nothing. A continuous run starts its run as the change is announced, so
    // once the change is announced, no run started means none will.
    let started = 0;
    const listening = api.agentTests.onDidStartRun(() => started++);
    const announced = new Promise<void>((resolve) => {
      const seen = api.agentTests.onDidChangeTestContent((changed) => {
        if (changed.toString() !== uri.toString()) return;
        seen.dispose();
        resolve();
      });
    });
    const reopened = await vscode.window.showTextDocument(testDocument);
    await reopened.edit((edit) => edit.insert(new vscode.Position(0, 0), '# edited\n'));
    await announced;
    listening.dispose();
    assert.equal(started, 0, 'no run after the continuous run was stopped');
  });

  it('runs continuously only what stays on this machine: deployed and live cases wait for an explicit run', async () => {
    // One server is both the real API of the agent's node and its deployment: any request it gets left the machine.
    const server = await startServer((_request, response) => json(response, 200, { title: 'Dr' }));
    const ui = new ScriptedUi();
    try {
      const agentFile = workspaceUri('agent-tests', 'lookup.agent.yaml');
      const testFile = workspaceUri('agent-tests', 'lookup.agent.test.yaml');
      created.push(agentFile, testFile);
      await vscode.workspace.fs.writeFile(
        agentFile,
        Buffer.from(
          `version: 1\nname: Lookup\ndeployment:\n  baseUrl: ${server.url}\n  account: local\n  agent: lookup\ninputs:\n  who: { type: string, required: true }\nnodes:\n  profile:\n    type: api\n    method: GET\n    url: ${server.url}/people/{{ inputs.who }}\n  greet:\n    type: template\n    text: "Hello {{ nodes.profile.body.title }} {{ inputs.who }}"\noutputs:\n  greeting: { from: "{{ nodes.greet.body }}" }\n`,
        ),
      );
      await vscode.workspace.fs.writeFile(
        testFile,
        Buffer.from(
          'cases:\n  mocked:\n    inputs: { who: Ada }\n    mocks: { profile: { body: { title: Dr } } }\n    expect: { outputs: { greeting: Hello Dr Ada } }\n  for real:\n    live: true\n    inputs: { who: Bo }\n    expect: { outputs: { greeting: Hello Dr Bo } }\n  on the service:\n    deployed: true\n    inputs: { who: Cy }\n    expect: { outputs: { greeting: Hello Dr Cy } }\n',
        ),
      );
      const file = await waitFor(
        async () => (await api.agentTests.refresh(testFile), api.agentTests.controller.items.get(testFile.toString())),
        'the test file item',
      );
      const id = (name: string): string => `${testFile.toString()}::${name}`;
      const nextRun = new Promise<Map<string, ItemOutcome>>((resolve) => {
        const listening = api.agentTests.onDidEndRun((outcomes) => {
          if (!outcomes.has(id('mocked'))) return;
          listening.dispose();
          resolve(outcomes);
        });
      });
      const profile = api.agentTests.localProfile;
      const stop = new vscode.CancellationTokenSource();
      const watching = Promise.resolve(profile.runHandler(new vscode.TestRunRequest([file], undefined, profile, true), stop.token));
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(testFile));
      await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), '# edited\n'));
      const outcomes = await nextRun;
      stop.cancel();
      await watching;
      stop.dispose();
      assert.deepEqual([...outcomes.entries()].map(([itemId, outcome]) => [itemId.split('::')[1], outcome.state]).sort(), [
        ['for real', 'skipped'],
        ['mocked', 'passed'],
        ['on the service', 'skipped'],
      ]);
      assert.match(outcomes.get(id('on the service'))!.notes?.join() ?? '', /runs on the deployment.*Run it to send it/);
      assert.match(outcomes.get(id('for real'))!.notes?.join() ?? '', /calls real APIs \(live: true\).*Run it to call them/);
      assert.deepEqual(ui.messages, [], 'no prompt for a deployment key');
      assert.equal(server.requests.length, 0, 'nothing left the machine');

      // Run explicitly, the live case calls its API.
      const live = await api.agentTests.runTests(new vscode.TestRunRequest([file.children.get(id('for real'))!]));
      assert.equal(live.get(id('for real'))?.state, 'passed');
      assert.deepEqual(
        server.requests.map((request) => request.url),
        ['/people/Bo'],
      );
    } finally {
      ui.restore();
      await server.close();
    }
  });

  it('shows what an operator asked for beside what came, for the Compare view', async () => {
    const uri = workspaceUri('agent-tests', 'operator.agent.test.yaml');
    created.push(uri);
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        'agent: greeter.agent.yaml\ncases:\n  title:\n    inputs: { who: Ada }\n    secrets: { PROFILE_TOKEN: t }\n    mocks: { profile: { body: { title: Dr } } }\n    expect:\n      outputs:\n        greeting: { $contains: Professor }\n',
      ),
    );
    await api.agentTests.refresh(uri);
    const file = api.agentTests.controller.items.get(uri.toString());
    assert.ok(file);
    const outcomes = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.deepEqual(outcomes.get(`${uri.toString()}::title`)?.messages, [
      {
        message: 'outputs.greeting: expected text containing "Professor", got "Hello Dr Ada"',
        line: 8,
        expected: 'text containing "Professor"',
        actual: 'Hello Dr Ada',
      },
    ]);
  });

  it("links a case that failed at a node to that node's exchange, the secret by name", async () => {
    const uri = workspaceUri('agent-tests', 'exchange.agent.test.yaml');
    created.push(uri);
    const token = `profile-token-${randomBytes(6).toString('hex')}`;
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        `agent: greeter.agent.yaml\ncases:\n  down:\n    inputs: { who: Ada }\n    secrets: { PROFILE_TOKEN: ${token} }\n    mocks: { profile: { status: 503, body: { error: resting } } }\n    expect:\n      outputs:\n        greeting: Hello Dr Ada\n`,
      ),
    );
    await api.agentTests.refresh(uri);
    const file = api.agentTests.controller.items.get(uri.toString());
    assert.ok(file);
    const outcomes = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    const messages = outcomes.get(`${uri.toString()}::down`)?.messages ?? [];
    const link = messages
      .map((message) => /\[Open Exchange\]\(command:agentWorkflows\.openExchange\?([^ )]+)/.exec(message.message))
      .find(Boolean);
    assert.ok(link, JSON.stringify(messages));
    assert.match(
      messages.at(-1)!.message,
      /^Exchange of node `profile`: `GET https:\/\/profiles\.example\.com\/v1\/people\/Ada → 503 Service Unavailable · 19 B · \d+ ms` \[Open Exchange\]/,
    );
    const [exchange] = JSON.parse(decodeURIComponent(link[1]!)) as [Exchange];
    assert.equal(exchange.node, 'profile');
    assert.equal(exchange.response?.status, 503);
    assert.ok(
      exchange.request.headers.some(
        (header) => /^authorization$/i.test(header.name) && header.value === 'Bearer {{ secrets.PROFILE_TOKEN }}',
      ),
      JSON.stringify(exchange.request.headers),
    );
    assert.doesNotMatch(JSON.stringify(messages), new RegExp(token));
  });

  it('underlines a misspelt agent: at its value, suggesting the agent file beside it', async () => {
    const uri = workspaceUri('agent-tests', 'misspelt.agent.test.yaml');
    created.push(uri);
    await vscode.workspace.fs.writeFile(uri, Buffer.from('agent: greeter.agent.yml\ncases:\n  one:\n    inputs: { who: Ada }\n'));
    await api.agentTests.refresh(uri);
    const diagnostic = await waitFor(
      () => vscode.languages.getDiagnostics(uri).find((entry) => typeof entry.code === 'object' && entry.code.value === 'unknown-agent'),
      'a diagnostic for the agent that cannot be read',
    );
    assert.deepEqual(
      [diagnostic.range.start.line, diagnostic.range.start.character, diagnostic.range.end.character, diagnostic.severity],
      [0, 7, 24, vscode.DiagnosticSeverity.Error],
    );
    assert.match(
      diagnostic.message,
      /"greeter\.agent\.yml", cannot be read: .*: no such file or directory\. Did you mean "greeter\.agent\.yaml"\?/,
    );
    const file = api.agentTests.controller.items.get(uri.toString());
    assert.ok(file);
    const outcomes = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.equal(outcomes.get(uri.toString())?.state, 'errored');
    assert.equal(outcomes.get(uri.toString())?.messages[0]?.line, 0);
  });

  it('bounds the message, expected and actual values of a failure against a long answer', async () => {
    const uri = workspaceUri('agent-tests', 'long.agent.test.yaml');
    created.push(uri);
    const title = 'T'.repeat(300_000);
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        `agent: greeter.agent.yaml\ncases:\n  long:\n    inputs: { who: Ada }\n    secrets: { PROFILE_TOKEN: t }\n    mocks: { profile: { body: { title: ${title} } } }\n    expect:\n      outputs:\n        greeting: Hello Dr Ada\n`,
      ),
    );
    await api.agentTests.refresh(uri);
    const file = api.agentTests.controller.items.get(uri.toString());
    assert.ok(file);
    const outcomes = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    const [message, ...others] = outcomes.get(`${uri.toString()}::long`)?.messages ?? [];
    assert.equal(others.length, 0);
    assert.ok(message?.expected !== undefined && message.actual !== undefined, 'a diff for the Compare view');
    assert.equal(message.expected, 'Hello Dr Ada');
    assert.match(message.actual, /^Hello T+… \(300010 characters\)$/);
    for (const text of [message.message, message.actual]) assert.ok(text.length < 2100, `${text.length} characters`);
  });

  it('stops a run when it is cancelled: the unfinished cases are skipped', async () => {
    const uri = workspaceUri('agent-tests', 'slow.agent.test.yaml');
    created.push(uri);
    const slowCase = (name: string): string =>
      `  ${name}:\n    inputs: { who: Ada }\n    secrets: { PROFILE_TOKEN: test-token }\n    mocks: { profile: { body: { title: Dr }, delay_ms: 8000 } }\n    expect: { outputs: { greeting: Hello Dr Ada } }\n`;
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(`agent: greeter.agent.yaml\ncases:\n${slowCase('slow one')}${slowCase('slow two')}`),
    );
    await api.agentTests.refresh(uri);
    const file = api.agentTests.controller.items.get(uri.toString());
    assert.ok(file);
    const cancel = new vscode.CancellationTokenSource();
    const started = Date.now();
    // Cancelled once the run has started (its cases are then under way), on that event: no guess of
    // how long starting takes.
    const whenStarted = api.agentTests.onDidStartRun(() => setImmediate(() => cancel.cancel()));
    const running = api.agentTests.runTests(new vscode.TestRunRequest([file]), cancel.token);
    const outcomes = await running.finally(() => whenStarted.dispose());
    assert.ok(cancel.token.isCancellationRequested, 'the run was cancelled after it started');
    assert.ok(Date.now() - started < 4000, `the run ended ${Date.now() - started} ms after it started`);
    assert.deepEqual(
      [...outcomes.values()].map((outcome) => outcome.state),
      ['skipped', 'skipped'],
    );
    cancel.dispose();
  });

  it('stops a run from the Test Results: Cancel Test Run stops a run the Run Tests command started', async () => {
    const uri = workspaceUri('agent-tests', 'stoppable.agent.test.yaml');
    created.push(uri);
    const slowCase = (name: string): string =>
      `  ${name}:\n    inputs: { who: Ada }\n    secrets: { PROFILE_TOKEN: test-token }\n    mocks: { profile: { body: { title: Dr }, delay_ms: 8000 } }\n    expect: { outputs: { greeting: Hello Dr Ada } }\n`;
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(`agent: greeter.agent.yaml\ncases:\n${slowCase('slow one')}${slowCase('slow two')}`),
    );
    await api.agentTests.refresh(uri);
    const started = Date.now();
    // The code lens's command: nothing but the TestRun's own token can stop it.
    const running = Promise.resolve(vscode.commands.executeCommand<Record<string, ItemOutcome>>('agentWorkflows.runAgentTests', uri));
    let ended = false;
    void running.finally(() => (ended = true));
    // What the Stop button of the Test Results does (the run is known there once the extension said it started).
    while (!ended && Date.now() - started < 4000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (!ended) await vscode.commands.executeCommand('testing.cancelRun');
    }
    const outcomes = await running;
    assert.ok(Date.now() - started < 4000, `the run ended ${Date.now() - started} ms after it started`);
    assert.deepEqual(
      Object.entries(outcomes)
        .map(([id, outcome]) => [id.split('::')[1], outcome.state])
        .sort(),
      [
        ['slow one', 'skipped'],
        ['slow two', 'skipped'],
      ],
    );
  });

  it('adds and removes the items of test files created and deleted on disk', async () => {
    const uri = workspaceUri('agent-tests', 'on-disk.agent.test.yaml');
    created.push(uri);
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from('agent: greeter.agent.yaml\ncases:\n  from disk:\n    inputs: { who: Ada }\n    live: true\n'),
    );
    const item = await waitFor(() => api.agentTests.controller.items.get(uri.toString()), 'the item of a new test file', 15_000);
    assert.deepEqual(
      childrenOf(item).map((child) => child.label),
      ['from disk'],
    );
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from('agent: greeter.agent.yaml\ncases:\n  renamed:\n    inputs: { who: Ada }\n    live: true\n'),
    );
    await waitFor(() => item.children.get(`${uri.toString()}::renamed`), 'the item of a case renamed on disk', 15_000);
    await vscode.workspace.fs.delete(uri);
    await waitFor(() => !api.agentTests.controller.items.get(uri.toString()), 'the item of a deleted test file to go', 15_000);
  });

  it("writes a snapshot case's outputs with Update Snapshot on its failure; the case then passes", async () => {
    const uri = workspaceUri('agent-tests', 'snap.agent.test.yaml');
    created.push(uri);
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        'agent: greeter.agent.yaml\ncases:\n  snap:\n    snapshot: true\n    inputs: { who: Ada }\n    secrets: { PROFILE_TOKEN: test-token }\n    mocks: { profile: { body: { title: Dr } } }\n',
      ),
    );
    await api.agentTests.refresh(uri);
    const file = api.agentTests.controller.items.get(uri.toString());
    const snap = file?.children.get(`${uri.toString()}::snap`);
    assert.ok(file && snap);
    const before = (await api.agentTests.runTests(new vscode.TestRunRequest([file]))).get(snap.id);
    assert.equal(before?.state, 'failed');
    assert.deepEqual(
      before.messages.map(({ message, updatesSnapshot }) => ({ message, updatesSnapshot })),
      [{ message: 'No snapshot of the outputs yet.', updatesSnapshot: true }],
    );
    // The message's button: a testing/message menu entry for messages of that context.
    const extension = vscode.extensions.getExtension('agent-workflows.agent-workflows');
    assert.ok(extension);
    const menus = (extension.packageJSON as { contributes: { menus: Record<string, Array<{ command: string; when?: string }>> } })
      .contributes.menus;
    assert.ok(
      menus['testing/message/content']?.some(
        (entry) => entry.command === 'agentWorkflows.updateSnapshot' && entry.when?.includes('testMessage == agentWorkflows.snapshot'),
      ),
    );

    // What VS Code passes the command from that menu: the test item and the message.
    const updated = await vscode.commands.executeCommand<Record<string, ItemOutcome>>('agentWorkflows.updateSnapshot', {
      test: snap,
      message: new vscode.TestMessage('No snapshot of the outputs yet.'),
    });
    assert.equal(updated[snap.id]?.state, 'passed');
    const written = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
    assert.match(written, /\n {4}expect:\n {6}outputs:\n {8}greeting: Hello Dr Ada\n/);
    assert.match(written, /^agent: greeter.agent.yaml\ncases:\n  snap:\n    snapshot: true\n/, 'the rest of the file as it was');
    const after = (await api.agentTests.runTests(new vscode.TestRunRequest([file]))).get(snap.id);
    assert.equal(after?.state, 'passed');
  });

  it('forgets a test file deleted while its editor has unsaved edits: its cases are not run', async () => {
    const uri = workspaceUri('agent-tests', 'unsaved-gone.agent.test.yaml');
    created.push(uri);
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        'agent: greeter.agent.yaml\ncases:\n  ghost:\n    inputs: { who: Ada }\n    mocks: { profile: { body: { title: Dr } } }\n',
      ),
    );
    await api.agentTests.refresh(uri);
    assert.ok(api.agentTests.controller.items.get(uri.toString()), 'the item of the test file');
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), '# unsaved\n'));
    assert.ok(editor.document.isDirty);
    await vscode.workspace.fs.delete(uri);
    // Read again (what an edit or a late watcher report does): the editor's text is no file.
    await api.agentTests.refresh(uri);
    assert.equal(api.agentTests.controller.items.get(uri.toString()), undefined, 'the item of the deleted file');
    const outcomes = await vscode.commands.executeCommand<Record<string, ItemOutcome>>('agentWorkflows.runAgentTests', AGENT_FILE);
    assert.deepEqual(
      Object.keys(outcomes).filter((id) => id.startsWith(uri.toString())),
      [],
    );
  });

  it('removes the items of the test files of a folder moved away on disk', async () => {
    const folder = workspaceUri('agent-tests', 'doomed');
    const moved = vscode.Uri.file(mkdtempSync(join(tmpdir(), 'aw-moved-')));
    created.push(folder);
    const uri = vscode.Uri.joinPath(folder, 'inner', 'gone.agent.test.yaml');
    // The folder's creation is reported before it moves: the file watcher drops a creation and a
    // deletion of the same path that fall in one batch, and then nothing would report the move.
    const creations = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(workspaceUri('agent-tests'), '*'),
      false,
      true,
      true,
    );
    let folderCreated = false;
    creations.onDidCreate((created) => (folderCreated ||= created.toString() === folder.toString()));
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder, 'inner'));
    // It names an agent of its own: the greeter's test files stay the fixture's.
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from('agent: ../../elsewhere.agent.yaml\ncases:\n  c:\n    inputs: { who: Ada }\n    live: true\n'),
    );
    // Listed by a read of its own: the watcher's report of a file in a new folder may come late, or
    // (in code-server) not at all. Whichever report comes after the move (the folder's deletion,
    // or that late one, whose read finds the file gone), the item must go.
    await api.agentTests.refresh(uri);
    assert.ok(api.agentTests.controller.items.get(uri.toString()), 'the item of the test file');
    try {
      await waitFor(() => folderCreated, "the watcher's report of the new folder", 15_000);
      // Moved out of the workspace: the watcher reports the folder only (from its parent, watched
      // since the start), not the test file in it.
      await vscode.workspace.fs.rename(folder, vscode.Uri.joinPath(moved, 'doomed'));
      await waitFor(() => !api.agentTests.controller.items.get(uri.toString()), 'the item of a test file in a moved folder to go', 15_000);
    } finally {
      creations.dispose();
      rmSync(moved.fsPath, { recursive: true, force: true });
    }
  });

  it('follows the test files of a folder renamed in the editor', async () => {
    const folder = workspaceUri('agent-tests', 'before-rename');
    const renamed = workspaceUri('agent-tests', 'after-rename');
    created.push(folder, renamed);
    const uri = vscode.Uri.joinPath(folder, 'moving.agent.test.yaml');
    const movedUri = vscode.Uri.joinPath(renamed, 'moving.agent.test.yaml');
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from('agent: ../elsewhere.agent.yaml\ncases:\n  c:\n    inputs: { who: Ada }\n    live: true\n'),
    );
    await api.agentTests.refresh(uri);
    assert.ok(api.agentTests.controller.items.get(uri.toString()), 'the item of the test file');
    const edit = new vscode.WorkspaceEdit();
    edit.renameFile(folder, renamed);
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitFor(() => !api.agentTests.controller.items.get(uri.toString()), 'the item under the old name to go', 15_000);
    const moved = await waitFor(() => api.agentTests.controller.items.get(movedUri.toString()), 'the item under the new name', 15_000);
    assert.deepEqual(
      childrenOf(moved).map((child) => child.label),
      ['c'],
    );
    // Not left for later tests (afterEach deletes files, not folders).
    await vscode.workspace.fs.delete(renamed, { recursive: true, useTrash: false });
  });

  it('errors the item of a test file grown too large to read, and Run Tests says why nothing ran', async () => {
    const uri = workspaceUri('agent-tests', 'grown.agent.test.yaml');
    created.push(uri);
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from('agent: greeter.agent.yaml\ncases:\n  small:\n    inputs: { who: Ada }\n    live: true\n'),
    );
    await api.agentTests.refresh(uri);
    const item = api.agentTests.controller.items.get(uri.toString());
    assert.ok(item && item.children.size === 1 && item.error === undefined, String(item?.error));
    // Past the 768 KB a test file is read up to: its old cases must not stay listed as if runnable.
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(`agent: greeter.agent.yaml\ncases:\n  small:\n    inputs: { who: Ada }\n    live: true\n${'#'.repeat(800_000)}\n`),
    );
    await api.agentTests.refresh(uri);
    assert.equal(item.children.size, 0);
    assert.match(String(item.error), /grown\.agent\.test\.yaml cannot be read, so its cases are not listed: .*768 KB/);
    const diagnostics = vscode.languages.getDiagnostics(uri);
    assert.equal(diagnostics.length, 1);
    assert.match(diagnostics[0]!.message, /cannot be read.*768 KB/);

    const ui = new ScriptedUi();
    try {
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.runAgentTests', uri), undefined);
      assert.ok(
        ui.messages.some((message) => message.kind === 'warning' && /Run Tests: .*cannot be read.*768 KB/.test(message.text)),
        JSON.stringify(ui.messages),
      );
    } finally {
      ui.restore();
    }
  });

  it('does not run a test file the language worker gave up on, nor read it here: the run says why, as its item', async () => {
    const extension = vscode.extensions.getExtension('agent-workflows.agent-workflows');
    assert.ok(extension);
    const logger = vscode.window.createOutputChannel('Agent Tests (reads given up)', { log: true });
    // A second controller whose worker gives up on every read: its time limit is shorter than any read.
    const tests = new AgentTestController({
      logger,
      docsUri: vscode.Uri.joinPath(extension.extensionUri, 'docs', 'testing-agents.md'),
      deployedTarget: () => Promise.resolve(undefined),
      fileAllowances: new FileAllowances(memoryState()),
      fixableProblems: new FixableProblems(),
      workerPath: vscode.Uri.joinPath(extension.extensionUri, 'dist', 'validationWorker.js').fsPath,
      readTimeLimitMs: 1,
      controllerId: 'agentWorkflows.agentTests.readsGivenUp',
    });
    const never = new vscode.CancellationTokenSource();
    try {
      assert.equal(await tests.update(TEST_FILE), false);
      const file = tests.fileItem(TEST_FILE);
      assert.ok(file);
      const listed = String(file.error);
      assert.match(listed, /greeter\.agent\.test\.yaml cannot be read, so its cases are not listed: Reading it was stopped after 1 ms/);
      const outcomes = await tests.runTests(new vscode.TestRunRequest([file]), never.token);
      assert.deepEqual([...outcomes.entries()], [[file.id, { state: 'errored', messages: [{ message: listed }] }]]);
      // Read on this thread, its cases would be listed (and run) now.
      assert.equal(file.children.size, 0);
    } finally {
      never.dispose();
      tests.dispose();
      logger.dispose();
    }
  });

  it('shows "Run tests" on an agent file that has a test file, and its command runs that file', async () => {
    const document = await vscode.workspace.openTextDocument(AGENT_FILE);
    await vscode.window.showTextDocument(document);
    const lenses = await waitFor(async () => {
      const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', AGENT_FILE);
      const found = all.filter((lens) => lens.command?.command === 'agentWorkflows.runAgentTests');
      return found.length ? found : undefined;
    }, 'the Run tests code lens');
    assert.equal(lenses.length, 1);
    assert.match(lenses[0]!.command!.title, /Run tests/);
    assert.equal(lenses[0]!.range.start.line, await lineOf(AGENT_FILE, 'name: Greeter'));
    const outcomes = await vscode.commands.executeCommand<Record<string, ItemOutcome>>(
      lenses[0]!.command!.command,
      ...(lenses[0]!.command!.arguments ?? []),
    );
    assert.deepEqual(
      Object.entries(outcomes)
        .map(([id, outcome]) => [id.split('::')[1], outcome.state])
        .sort(),
      [
        ['known person', 'passed'],
        ['wrong title', 'failed'],
      ],
    );
    // No test file, no lens (the provider command needs the document open).
    await vscode.workspace.openTextDocument(workspaceUri('hello.agent.yaml'));
    const hello = await vscode.commands.executeCommand<vscode.CodeLens[]>(
      'vscode.executeCodeLensProvider',
      workspaceUri('hello.agent.yaml'),
    );
    assert.ok(!hello.some((lens) => lens.command?.command === 'agentWorkflows.runAgentTests'));
  });

  it('makes a test case of an execution, writes it beside the agent and opens it; the case passes', async () => {
    const testFile = workspaceUri('hello.agent.test.yaml');
    created.push(testFile);
    const ui = new ScriptedUi();
    let record: ExecutionRecord;
    try {
      ui.input('Grace');
      record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', workspaceUri('hello.agent.yaml'));
    } finally {
      ui.restore();
    }
    assert.equal(record.state, 'finished', record.error);
    const top = ((await api.executionsTree.getChildren()) ?? []).find(
      (item) => (item as unknown as { record: ExecutionRecord }).record.key === record.key,
    );
    assert.ok(top, 'the execution in the view');
    const written = await vscode.commands.executeCommand<{ testFile: vscode.Uri; caseName: string }>(
      'agentWorkflows.executions.newTestCase',
      top,
    );
    assert.equal(written.testFile.toString(), testFile.toString());
    const text = Buffer.from(await vscode.workspace.fs.readFile(testFile)).toString('utf8');
    assert.match(text, /^agent: "?hello\.agent\.yaml"?$/m);
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.toString(), testFile.toString());
    assert.equal(editor?.selection.start.line, await lineOf(testFile, `${written.caseName}:`));
    const file = await waitFor(
      async () => (await api.agentTests.refresh(testFile), api.agentTests.controller.items.get(testFile.toString())),
      'the new test file item',
    );
    const outcomes = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.deepEqual(
      [...outcomes.values()].map((outcome) => outcome.state),
      ['passed'],
    );
    assert.deepEqual(Object.keys(record.outputs as object), ['greeting']);
    assert.ok(
      text.includes(JSON.stringify((record.outputs as { greeting: string }).greeting)) ||
        text.includes((record.outputs as { greeting: string }).greeting),
    );
  });

  it('sends deployed cases to the deployment: marked ones in a local run, every one with "Run on Deployment"', async () => {
    const key = `aw-deployed-key-${randomBytes(12).toString('hex')}`;
    const served = mkdtempSync(join(tmpdir(), 'aw-served-'));
    // The deployed agent answers differently from the local file, so each result says where it ran.
    writeFileSync(
      join(served, 'echo.agent.yaml'),
      'version: 1\nname: Echo\ninputs:\n  who: { type: string, required: true }\nnodes:\n  say:\n    type: template\n    text: "Served {{ inputs.who }}"\noutputs:\n  said: { from: "{{ nodes.say.body }}" }\n',
    );
    const server = await startAgentServer({ directory: served, port: 0, apiKey: key, watch: false });
    const ui = new ScriptedUi();
    try {
      const agentFile = workspaceUri('agent-tests', 'echo.agent.yaml');
      const testFile = workspaceUri('agent-tests', 'echo.agent.test.yaml');
      created.push(agentFile, testFile);
      await vscode.workspace.fs.writeFile(
        agentFile,
        Buffer.from(
          `version: 1\nname: Echo\ndeployment:\n  baseUrl: ${server.url}\n  account: local\n  agent: echo\ninputs:\n  who: { type: string, required: true }\nnodes:\n  say:\n    type: template\n    text: "Local {{ inputs.who }}"\noutputs:\n  said: { from: "{{ nodes.say.body }}" }\n`,
        ),
      );
      await vscode.workspace.fs.writeFile(
        testFile,
        Buffer.from(
          'cases:\n  locally:\n    inputs: { who: Ada }\n    expect: { outputs: { said: Local Ada } }\n  on the service:\n    deployed: true\n    inputs: { who: Bo }\n    expect: { outputs: { said: Served Bo }, nodes: { say: { body: Served Bo } } }\n',
        ),
      );
      const file = await waitFor(
        async () => (await api.agentTests.refresh(testFile), api.agentTests.controller.items.get(testFile.toString())),
        'the test file item',
      );
      const id = (name: string): string => `${testFile.toString()}::${name}`;
      const states = (outcomes: Map<string, ItemOutcome>): [string, string][] =>
        [...outcomes.entries()].map(([itemId, outcome]): [string, string] => [itemId.split('::')[1]!, outcome.state]).sort();

      // No key for the deployment's origin and the prompt declined: the deployed case errors saying why, the local one runs.
      const withoutKey = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
      assert.deepEqual(states(withoutKey), [
        ['locally', 'passed'],
        ['on the service', 'errored'],
      ]);
      assert.match(
        withoutKey.get(id('on the service'))!.messages[0]!.message,
        /runs on the deployment.*not confirmed, or no API key was given/,
      );
      // At the case's line, like any other failure of it.
      assert.equal(withoutKey.get(id('on the service'))!.messages[0]!.line, file.children.get(id('on the service'))!.range?.start.line);
      assert.ok(ui.messages.some((message) => message.modal && message.text.includes(`No API key is set for ${server.url}`)));

      ui.input(key);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', server.url), true);
      const local = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
      assert.deepEqual(states(local), [
        ['locally', 'passed'],
        ['on the service', 'passed'],
      ]);
      // What a deployment leaves out is said in the run's output.
      assert.deepEqual(local.get(id('on the service'))!.notes, [
        'Not used against a deployment: expect.nodes. The service calls the real APIs.',
      ]);

      // "Run on Deployment": every case goes to the service, so the local expectation sees its answer.
      const deployed = await api.agentTests.runTests(new vscode.TestRunRequest([file], undefined, api.agentTests.deployedProfile));
      assert.deepEqual(states(deployed), [
        ['locally', 'failed'],
        ['on the service', 'passed'],
      ]);
      assert.deepEqual(
        deployed.get(id('locally'))!.messages.map((message) => [message.expected, message.actual]),
        [['Local Ada', 'Served Ada']],
      );
      assert.equal(ui.unexpected.length, 0, ui.unexpected.join(', '));
    } finally {
      // Later suites expect no key they did not set.
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', server.url);
      ui.restore();
      await server.close();
      rmSync(served, { recursive: true, force: true });
    }
  });
});

/** Workspace state kept in memory, for a controller made by a test. */
function memoryState(): vscode.Memento {
  const values = new Map<string, unknown>();
  return {
    keys: () => [...values.keys()],
    get: (key: string, fallback?: unknown) => (values.has(key) ? values.get(key) : fallback),
    update: async (key: string, value: unknown) => {
      values.set(key, value);
    },
  } as vscode.Memento;
}
