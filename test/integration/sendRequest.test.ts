// Send Request, Render and pins in the real extension host, against a real API on 127.0.0.1: the
// per-node code lenses, one node sent with a secret from secret storage (what arrived), upstream
// values from a previous Run Locally, typed as JSON or run first, pins used by Run Locally and Send
// Request and shown by their lens until unpinned, agent tests that ignore pins, and a file with
// errors that sends nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { SendOutcome } from '../../src/core/exchange/sendNode';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import type { PinnedResult } from '../../src/core/nodeValues/pins';
import type { ItemOutcome } from '../../src/testing/agentTestController';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { workspaceFolder } from './userData';
import { waitFor } from './wait';

const TOKEN = `aw-send-token-${randomBytes(12).toString('hex')}`;
const SECRET = 'SEND_TOKEN';

function chainAgent(api: string): string {
  return [
    'version: 1',
    'name: Chain',
    'inputs:',
    '  who: { type: string, required: true }',
    'nodes:',
    '  login:',
    '    type: api',
    '    method: POST',
    `    url: ${api}/login`,
    `    settings: ["Authorization: Bearer {{ secrets.${SECRET} }}"]`,
    '  order:',
    '    type: api',
    '    method: GET',
    `    url: "${api}/order?who={{ inputs.who }}"`,
    '    settings: ["X-Session: {{ nodes.login.body.session }}"]',
    '  note:',
    '    type: template',
    '    text: "Order for {{ inputs.who }}: {{ nodes.order.body.item }}"',
    'outputs:',
    '  note: { from: "{{ nodes.note.body }}" }',
    '',
  ].join('\n');
}

async function lensesOf(uri: vscode.Uri, command: string): Promise<vscode.CodeLens[]> {
  const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
  return all.filter((lens) => lens.command?.command === command);
}

function lineOf(text: string, needle: string): number {
  const index = text.indexOf(needle);
  assert.notEqual(index, -1, needle);
  return text.slice(0, index).split('\n').length - 1;
}

describe('Send Request, Render and pins', function () {
  this.timeout(60_000);
  let api: TestServer;
  let folder: string;
  let ui: ScriptedUi;
  let sessions = 0;
  const uriOf = (name: string): vscode.Uri => vscode.Uri.file(join(folder, name));
  const logins = (): number => api.requests.filter((request) => request.url === '/login').length;
  const lastOrder = () => api.requests.filter((request) => request.url.startsWith('/order')).at(-1);

  /** Writes a copy of the chain agent under its own name: each has its own remembered values and pins. */
  const agentFile = (name: string): vscode.Uri => {
    writeFileSync(join(folder, name), chainAgent(api.url));
    return uriOf(name);
  };

  before(async () => {
    const extension = vscode.extensions.getExtension('agent-workflows.agent-workflows');
    assert.ok(extension);
    await extension.activate();
    api = await startServer((request, response) => {
      if (request.url === '/login') json(response, 200, { session: `session-${++sessions}` });
      else if (request.url?.startsWith('/profile')) json(response, 200, { title: 'Pinned' });
      else json(response, 200, { item: 'book', session: request.headers['x-session'] ?? null });
    });
    folder = join(workspaceFolder(), 'send');
    mkdirSync(folder, { recursive: true });
    // Set here, so that each test runs alone too; the secret test clears it first.
    const setup = new ScriptedUi().input(TOKEN);
    try {
      await vscode.commands.executeCommand('agentWorkflows.setSecret', SECRET);
    } finally {
      setup.restore();
    }
  });

  beforeEach(() => {
    ui = new ScriptedUi();
  });

  afterEach(async () => {
    ui.restore();
    assert.deepEqual(ui.unexpected, [], 'every prompt was scripted');
    assert.equal(ui.leftover, 0, 'every scripted answer was used');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    await vscode.commands.executeCommand('agentWorkflows.clearSecret', SECRET);
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('shows Send Request above each API node and Render above each template node', async () => {
    const uri = agentFile('lenses.agent.yaml');
    const text = chainAgent(api.url);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const sends = await waitFor(async () => {
      const found = await lensesOf(uri, 'agentWorkflows.sendRequest');
      return found.length ? found : undefined;
    }, 'the Send Request lenses');
    assert.deepEqual(
      sends.map((lens) => [lens.range.start.line, lens.command?.title, lens.command?.arguments?.[1]]),
      [
        [lineOf(text, '  login:'), '$(send) Send Request', 'login'],
        [lineOf(text, '  order:'), '$(send) Send Request', 'order'],
      ],
    );
    const renders = await lensesOf(uri, 'agentWorkflows.renderTemplate');
    assert.deepEqual(
      renders.map((lens) => [lens.range.start.line, lens.command?.arguments?.[1]]),
      [[lineOf(text, '  note:'), 'note']],
    );
    assert.deepEqual(await lensesOf(uri, 'agentWorkflows.unpinNodeResult'), []);
  });

  it('sends one node from its lens with a secret from secret storage, asked for when missing', async () => {
    const uri = agentFile('secret.agent.yaml');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const lens = await waitFor(async () => (await lensesOf(uri, 'agentWorkflows.sendRequest'))[0], 'the lens');
    await vscode.commands.executeCommand('agentWorkflows.clearSecret', SECRET);
    ui.onMessage = (message) => (message.modal && message.items.includes('Set Secret') ? 'Set Secret' : undefined);
    ui.input((options) => {
      assert.equal(options.password, true);
      assert.match(options.title ?? '', new RegExp(SECRET));
      return TOKEN;
    });
    const before = logins();
    const outcome = await vscode.commands.executeCommand<SendOutcome>(lens.command!.command, ...(lens.command!.arguments ?? []));
    assert.equal(logins(), before + 1);
    const arrived = api.requests.filter((request) => request.url === '/login').at(-1)!;
    assert.equal(arrived.method, 'POST');
    assert.equal(arrived.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(outcome.exchange.response?.status, 200);
    assert.equal(
      outcome.exchange.request.headers.find((header) => header.name.toLowerCase() === 'authorization')?.value,
      `Bearer {{ secrets.${SECRET} }}`,
    );
    assert.ok(!JSON.stringify(outcome.exchange).includes(TOKEN), 'the exchange never holds the secret');
    assert.deepEqual(outcome.result?.body, { session: `session-${sessions}` });
  });

  it('sends the node under the cursor when called without arguments (the context menu, the palette)', async () => {
    const uri = agentFile('cursor.agent.yaml');
    const text = chainAgent(api.url);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const inside = new vscode.Position(lineOf(text, `    url: ${api.url}/login`), 6);
    editor.selection = new vscode.Selection(inside, inside);
    const before = logins();
    const outcome = await vscode.commands.executeCommand<SendOutcome>('agentWorkflows.sendRequest');
    assert.equal(outcome.exchange.node, 'login');
    assert.equal(logins(), before + 1);

    // Outside every node: the API nodes to choose from.
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    ui.pick((items) => {
      assert.deepEqual(
        items.map((item) => item.label),
        ['login', 'order'],
      );
      return undefined;
    });
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.sendRequest'), undefined);
  });

  it('takes upstream values from the last Run Locally of the file in this window', async () => {
    const uri = agentFile('upstream.agent.yaml');
    ui.input('Ada');
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', uri);
    assert.equal(record.state, 'finished', record.error);
    const session = `session-${sessions}`;
    // The input is asked again, as Run Locally asks it, the last value offered.
    ui.input((options) => {
      assert.equal(options.value, 'Ada');
      return 'Ada';
    });
    const before = logins();
    const outcome = await vscode.commands.executeCommand<SendOutcome>('agentWorkflows.sendRequest', uri, 'order');
    assert.equal(logins(), before, 'login is not called again');
    assert.equal(lastOrder()?.headers['x-session'], session);
    assert.equal(lastOrder()?.url, '/order?who=Ada');
    assert.deepEqual(outcome.result?.body, { item: 'book', session });
    // Sent to the window as JSON (a code lens click), the answer is the exchange's id and status, not its bodies.
    assert.deepEqual(JSON.parse(JSON.stringify(outcome)), { exchangeId: outcome.exchange.id, status: 200 });
  });

  it('offers to type a missing upstream value as JSON, checked, or to run the upstream nodes first', async () => {
    const uri = agentFile('typed.agent.yaml');
    ui.pick((items) => items.find((item) => item.label.includes('Type the value as JSON')));
    ui.input((options) => {
      assert.match(String(options.validateInput?.('{session: 1}')), /^Not JSON: .*double quotes/);
      return '{"session": "typed-session"}';
    });
    ui.input('Grace');
    await vscode.commands.executeCommand<SendOutcome>('agentWorkflows.sendRequest', uri, 'order');
    assert.equal(lastOrder()?.headers['x-session'], 'typed-session');

    const fresh = agentFile('run-first.agent.yaml');
    ui.pick((items) => items.find((item) => item.label.includes('Run the upstream nodes first')));
    ui.input('Grace');
    const before = logins();
    await vscode.commands.executeCommand<SendOutcome>('agentWorkflows.sendRequest', fresh, 'order');
    assert.equal(logins(), before + 1, 'login ran first');
    assert.equal(lastOrder()?.headers['x-session'], `session-${sessions}`);
  });

  it('pins a result: Run Locally and Send Request use it, its lens shows it, Unpin calls the node again', async () => {
    const uri = agentFile('pins.agent.yaml');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const sent = await vscode.commands.executeCommand<SendOutcome>('agentWorkflows.sendRequest', uri, 'login');
    const pinnedSession = (sent.result?.body as { session: string }).session;
    // The exchange view's Pin passes the exchange id.
    const pin = await vscode.commands.executeCommand<PinnedResult>('agentWorkflows.pinNodeResult', sent.exchange.id);
    assert.equal(pin.node, 'login');
    assert.equal(pin.source, 'send');
    assert.equal(pin.exchangeId, sent.exchange.id);
    const lens = await waitFor(async () => (await lensesOf(uri, 'agentWorkflows.unpinNodeResult'))[0], 'the pinned lens');
    assert.match(lens.command?.title ?? '', /^\$\(pinned\) pinned \d\d:\d\d · Unpin$/);
    assert.equal(lens.range.start.line, lineOf(chainAgent(api.url), '  login:'));

    const before = logins();
    ui.input('Lin');
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', uri);
    assert.equal(record.state, 'finished', record.error);
    assert.equal(logins(), before, 'the pinned node is not called');
    assert.equal(lastOrder()?.headers['x-session'], pinnedSession);
    const login = record.trace?.find((entry) => entry.node === 'login');
    assert.deepEqual([login?.status, login?.detail], ['succeeded', 'pinned (not called)']);

    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    await waitFor(async () => (await lensesOf(uri, 'agentWorkflows.unpinNodeResult')).length === 0, 'the pinned lens to go');
    ui.input('Lin');
    const again = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', uri);
    assert.equal(again.state, 'finished', again.error);
    assert.equal(logins(), before + 1, 'unpinned, the node is called again');
  });

  it('renders a template node with the current values, in a read-only document, sending nothing', async () => {
    const uri = agentFile('render.agent.yaml');
    ui.input('Ada');
    await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', uri);
    const requests = api.requests.length;
    ui.input('Bo');
    const text = await vscode.commands.executeCommand<string>('agentWorkflows.renderTemplate', uri, 'note');
    assert.equal(text, 'Order for Bo: book');
    assert.equal(api.requests.length, requests, 'nothing was sent');
    const shown = await waitFor(
      () => vscode.window.visibleTextEditors.find((editor) => editor.document.uri.scheme === 'agent-render'),
      'the rendered text',
    );
    assert.equal(shown.document.getText(), 'Order for Bo: book');
  });

  it('sends nothing from a file with errors, and names the nodes for an unknown id', async () => {
    const uri = uriOf('broken.agent.yaml');
    writeFileSync(join(folder, 'broken.agent.yaml'), chainAgent(api.url).replace('method: POST', 'method: PUSH'));
    const requests = api.requests.length;
    await vscode.commands.executeCommand('agentWorkflows.sendRequest', uri, 'login');
    assert.equal(api.requests.length, requests);
    assert.match(
      ui.messages.at(-1)?.text ?? '',
      /broken\.agent\.yaml has 1 error and cannot run until it is fixed: line 8: "PUSH" is not an HTTP method/,
    );
    assert.deepEqual(ui.messages.at(-1)?.items, ['Show Problems', 'Open File']);

    await vscode.commands.executeCommand('agentWorkflows.sendRequest', agentFile('unknown.agent.yaml'), 'shipping');
    assert.equal(ui.messages.at(-1)?.text, 'unknown.agent.yaml has no node "shipping". Its API nodes: "login", "order".');
    await vscode.commands.executeCommand('agentWorkflows.sendRequest', uriOf('unknown.agent.yaml'), 'note');
    assert.match(ui.messages.at(-1)?.text ?? '', /^Node "note" is a template node: it sends no request\. Use Render/);
    assert.equal(api.requests.length, requests);
  });

  it('never uses pins in agent tests', async () => {
    const folderUri = vscode.workspace.workspaceFolders![0]!.uri;
    const agent = vscode.Uri.joinPath(folderUri, 'agent-tests', 'greeter.agent.yaml');
    // A result of "profile" for the agent file, from a local run of its text pointed at the API.
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(agent));
    const original = editor.document.getText();
    await editor.edit((edit) =>
      edit.replace(
        new vscode.Range(0, 0, editor.document.lineCount, 0),
        original
          .replace('https://profiles.example.com/v1/people/{{ inputs.who }}', `${api.url}/profile?who={{ inputs.who }}`)
          .replace('    settings:\n      - "Authorization: Bearer {{ secrets.PROFILE_TOKEN }}"\n', ''),
      ),
    );
    try {
      ui.input('Ada');
      const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', agent);
      assert.equal(record.state, 'finished', record.error);
      const pin = await vscode.commands.executeCommand<PinnedResult>('agentWorkflows.pinNodeResult', agent, 'profile');
      assert.equal(pin.source, 'run');
    } finally {
      // The agent's own editor, whichever editor the run left active.
      await vscode.window.showTextDocument(editor.document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    assert.equal(editor.document.isDirty, false, 'the agent file as saved');
    try {
      const outcomes = await vscode.commands.executeCommand<Record<string, ItemOutcome>>('agentWorkflows.runAgentTests', agent);
      const known = Object.entries(outcomes).find(([id]) => id.endsWith('::known person'));
      assert.equal(known?.[1].state, 'passed', 'the case got its mock, not the pinned result');
    } finally {
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.unpinNodeResult', agent, 'profile'), true);
    }
  });
});
