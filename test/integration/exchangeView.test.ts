// The exchange view in the real extension host: a hand-made exchange opened through the command
// is a read-only document with the status, headers, the request (secrets by name) and the body
// by its type; Copy Body, Save Body, a binary body, a cut body, an image, a failure, and the sends
// of a node reopened from Show Recent Requests; a real send's view, sent again and pinned from
// its title actions.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange } from '../../src/core/exchange/exchange';
import { JSON_LINES_SHOWN } from '../../src/core/exchange/exchangeDocument';
import type { SendOutcome } from '../../src/core/exchange/sendNode';
import type { PinnedResult } from '../../src/core/nodeValues/pins';
import type { AgentWorkflowsApi } from '../../src/extension';
import { binaryBody, makeExchange, textBody } from '../support/exchanges';
import { json, startServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { workspaceFolder } from './userData';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const OPEN = 'agentWorkflows.openExchange';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

function withResponse(response: Partial<NonNullable<Exchange['response']>>): Exchange {
  const exchange = makeExchange();
  return { ...exchange, response: { ...exchange.response!, ...response } };
}

async function open(exchange: Exchange | string): Promise<vscode.TextDocument> {
  const document = await vscode.commands.executeCommand<vscode.TextDocument | undefined>(OPEN, exchange);
  assert.ok(document, 'the command returns the document');
  return document;
}

describe('exchange view', () => {
  let ui: ScriptedUi;
  let api: AgentWorkflowsApi;

  // Activated first: the command then runs in this host and returns the document itself.
  before(async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    api = await extension.activate();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    ui = new ScriptedUi();
  });

  afterEach(async () => {
    ui.restore();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.deepEqual(ui.unexpected, [], 'every prompt was answered');
    assert.equal(ui.leftover, 0, 'every scripted answer was used');
  });

  it('shows the status, headers, the request with secrets by name and the JSON body pretty', async () => {
    const document = await open(makeExchange());
    assert.equal(document.uri.scheme, 'agent-exchange');
    assert.equal(document.languageId, 'jsonc');
    const text = document.getText();
    assert.ok(text.startsWith('// 200 OK · 123 ms (first byte 46 ms) · 39 B\n'), text);
    assert.ok(text.includes('//   x-request-id: req-123\n'), text);
    assert.ok(text.includes('//   Authorization: Bearer {{ secrets.TOKEN }}\n'), text);
    assert.ok(text.includes('api_key={{ secrets.API_KEY }}'), text);
    assert.ok(text.endsWith('{\n  "id": 42,\n  "name": "Ada",\n  "tags": [\n    "a",\n    "b"\n  ]\n}'), text);
    await waitFor(
      () => vscode.window.visibleTextEditors.find((candidate) => candidate.document === document),
      'the exchange view to be visible',
    );
  });

  it('copies the body as it came, and the request as curl with secrets as shell variables', async () => {
    await open(makeExchange());
    await vscode.env.clipboard.writeText('');
    await vscode.commands.executeCommand('agentWorkflows.exchange.copyBody');
    assert.equal(await vscode.env.clipboard.readText(), '{"id":42,"name":"Ada","tags":["a","b"]}');
    await vscode.commands.executeCommand('agentWorkflows.exchange.copyAsCurl');
    const curl = await vscode.env.clipboard.readText();
    assert.ok(curl.startsWith('curl -sS "https://api.example.com/customers/42?api_key=${AGENT_SECRET_API_KEY}"'), curl);
    assert.ok(curl.includes('-H "Authorization: Bearer ${AGENT_SECRET_TOKEN}"'), curl);
    assert.ok(
      ui.messages.some(
        (message) =>
          message.text === 'Copied the curl command. Set AGENT_SECRET_API_KEY, AGENT_SECRET_TOKEN in the shell before running it.',
      ),
      JSON.stringify(ui.messages),
    );
  });

  it('shows a binary body as its size and saves its bytes to the chosen file', async () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe, 0x80]);
    const document = await open(withResponse({ contentType: 'application/pdf', body: binaryBody(bytes) }));
    assert.equal(document.languageId, 'plaintext');
    const text = document.getText();
    assert.ok(text.includes('// Response body: binary, application/pdf, 8 B (8 bytes): not shown as text. Save Body saves it.'), text);
    assert.ok(!text.includes('\ufffd'), 'no mojibake');
    const target = workspaceUri('saved-body.pdf');
    ui.saveFile(target);
    const saved = await vscode.commands.executeCommand<vscode.Uri | undefined>('agentWorkflows.exchange.saveBody', document.uri);
    try {
      assert.equal(saved?.toString(), target.toString());
      assert.equal(ui.saveDialogs[0]?.defaultUri?.path.endsWith('/lookup-response.pdf'), true);
      assert.deepEqual(Buffer.from(await vscode.workspace.fs.readFile(target)), bytes);
      ui.onMessage = () => undefined;
      await vscode.commands.executeCommand('agentWorkflows.exchange.copyBody', document.uri);
      assert.ok(
        ui.messages.some((message) => message.kind === 'error' && message.text.includes('binary data (application/pdf): use Save Body')),
        JSON.stringify(ui.messages),
      );
    } finally {
      await vscode.workspace.fs.delete(target).then(undefined, () => undefined);
    }
  });

  it('says the full size of a cut body', async () => {
    const document = await open(withResponse({ body: textBody('[1,2,', 25 * 1024 * 1024) }));
    const text = document.getText();
    assert.ok(text.includes('25.0 MB (26,214,400 bytes), cut: the first 5 B are kept'), text);
  });

  it('shows an image in the editor’s image preview, from the extension’s storage', async () => {
    const document = await open(withResponse({ contentType: 'image/png', body: binaryBody(PNG) }));
    assert.ok(document.getText().includes('image, image/png, 70 B (70 bytes): shown beside.'));
    const tab = await waitFor(
      () =>
        vscode.window.tabGroups.all
          .flatMap((group) => group.tabs)
          .find((candidate) => candidate.input instanceof vscode.TabInputCustom && candidate.input.uri.path.endsWith('.png')),
      'the image preview tab',
    );
    const image = (tab.input as vscode.TabInputCustom).uri;
    assert.ok(!image.path.startsWith(workspaceUri().path), `not in the workspace: ${image.path}`);
    assert.deepEqual(Buffer.from(await vscode.workspace.fs.readFile(image)), PNG);
  });

  it('says in words why no answer came, with the request', async () => {
    const { response, ...unanswered } = makeExchange();
    assert.ok(response);
    const document = await open({
      ...unanswered,
      timing: { totalMs: 4 },
      failure: { kind: 'refused', message: '127.0.0.1:9 refused the connection. Check that the service is running.' },
    });
    const text = document.getText();
    assert.ok(text.startsWith('// No answer · 4 ms\n// 127.0.0.1:9 refused the connection. Check that the service is running.\n'), text);
    assert.ok(text.includes('//   Authorization: Bearer {{ secrets.TOKEN }}'), text);
  });

  it('reopens a node’s recent sends, and offers Send Again and Pin only on them', async () => {
    const file = workspaceUri('hello.agent.yaml').toString();
    const first = makeExchange();
    const second = withResponse({ status: 404, statusText: 'Not Found' });
    api.exchanges.add({ exchange: first, file, node: 'lookup' });
    api.exchanges.add({ exchange: second, file, node: 'lookup' });
    ui.pick((items) => {
      assert.deepEqual(
        items.map((item) => item.label),
        ['lookup · 404 Not Found', 'lookup · 200 OK'],
      );
      return items[1];
    });
    const document = await vscode.commands.executeCommand<vscode.TextDocument | undefined>(
      'agentWorkflows.showRecentRequests',
      vscode.Uri.parse(file),
      'lookup',
    );
    assert.ok(document);
    assert.ok(document.uri.path.startsWith(`/send/${first.id}/`), document.uri.path);
    assert.ok(document.getText().startsWith('// 200 OK'));
    const byId = await open(second.id);
    assert.ok(byId.getText().startsWith('// 404 Not Found'));
    // Not from a send: no Send Again, no Pin (the menus' when-clauses look at the path).
    assert.ok((await open(makeExchange())).uri.path.startsWith('/run/'));
  });

  it('sends a send’s node again and pins its result from the view of its exchange', async function () {
    this.timeout(40_000);
    let served = 0;
    const server = await startServer((_request, response) => json(response, 200, { id: 42, served: ++served }));
    const folder = join(workspaceFolder(), 'exchange-view');
    mkdirSync(folder, { recursive: true });
    const agent = vscode.Uri.file(join(folder, 'lookup.agent.yaml'));
    writeFileSync(
      agent.fsPath,
      [
        'version: 1',
        'name: Lookup',
        'nodes:',
        '  lookup:',
        '    type: api',
        '    method: GET',
        `    url: ${server.url}/customers/42`,
        '',
      ].join('\n'),
    );
    try {
      const sent = await vscode.commands.executeCommand<SendOutcome>('agentWorkflows.sendRequest', agent, 'lookup');
      const view = await waitFor(
        () => vscode.window.visibleTextEditors.find((editor) => editor.document.uri.path.startsWith(`/send/${sent.exchange.id}/`)),
        'the view of the send',
      );
      assert.ok(view.document.getText().includes('"served": 1'), view.document.getText());
      const again = await vscode.commands.executeCommand<SendOutcome>('agentWorkflows.exchange.sendAgain', view.document.uri);
      assert.equal(served, 2);
      assert.notEqual(again.exchange.id, sent.exchange.id);
      const second = await waitFor(
        () => vscode.window.visibleTextEditors.find((editor) => editor.document.uri.path.startsWith(`/send/${again.exchange.id}/`)),
        'the view of the second send',
      );
      assert.ok(second.document.getText().includes('"served": 2'));
      const pinned = await vscode.commands.executeCommand<PinnedResult>('agentWorkflows.exchange.pin', second.document.uri);
      assert.equal(pinned.node, 'lookup');
      assert.deepEqual(pinned.result.body, { id: 42, served: 2 });
      // From the palette, the cursor inside the node in the agent's editor: that node's sends.
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(agent), vscode.ViewColumn.One);
      editor.selection = new vscode.Selection(4, 6, 4, 6);
      ui.pick((items, options) => {
        assert.equal(options?.title, 'Recent requests of lookup');
        assert.deepEqual(
          items.map((item) => item.label),
          ['lookup · 200 OK', 'lookup · 200 OK'],
        );
        return items[1];
      });
      const first = await vscode.commands.executeCommand<vscode.TextDocument>('agentWorkflows.showRecentRequests');
      assert.ok(first.uri.path.startsWith(`/send/${sent.exchange.id}/`), first.uri.path);
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.unpinNodeResult', agent, 'lookup');
      await server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('shows the first lines of a 10 MiB JSON body at once, and all of it from its Open Whole Body lens', async function () {
    this.timeout(120_000);
    const row = JSON.stringify({ id: 1, name: 'Customer "quoted" [x]', tags: ['a', 'b'], address: { city: 'Zürich', none: [] } });
    const body = `[${Array.from({ length: Math.ceil((10 * 1024 * 1024) / (row.length + 1)) }, () => row).join(',')}]`;
    const heapBefore = process.memoryUsage().heapUsed;
    const started = Date.now();
    const document = await open(withResponse({ body: textBody(body) }));
    const openedMs = Date.now() - started;
    const heapAfter = process.memoryUsage().heapUsed;
    assert.equal(document.languageId, 'jsonc');
    // Short enough for the editor to draw at once, and to fold (it does not past 300,000 lines).
    assert.ok(document.lineCount < JSON_LINES_SHOWN + 100, String(document.lineCount));
    console.log(
      `exchange view of ${(Buffer.byteLength(body) / 1024 / 1024).toFixed(1)} MiB of JSON: open ${openedMs} ms, ` +
        `${document.lineCount} lines, extension host heap ${((heapAfter - heapBefore) / Buffer.byteLength(body)).toFixed(2)}x the body (uncollected)`,
    );
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri);
    const wholeBody = lenses.filter((lens) => lens.command?.title === 'Open Whole Body');
    // The note is indented as the value it stands for (in a row, or between rows).
    assert.deepEqual(
      wholeBody.map((lens) =>
        document
          .lineAt(lens.range.start.line)
          .text.replace(/[\d.,]+ (MB|KB|bytes)/g, 'N $1')
          .trimStart(),
      ),
      [
        '// Response body: application/json, N MB (N bytes), shown below: its first N KB formatted. Open Whole Body shows all of it.',
        '// … the rest of the body, N MB, is not shown here. Open Whole Body shows all of it.',
      ],
    );
    const whole = await vscode.commands.executeCommand<vscode.TextDocument>(
      wholeBody[0]!.command!.command,
      ...(wholeBody[0]!.command!.arguments ?? []),
    );
    assert.equal(whole.uri.path, document.uri.path);
    assert.ok(whole.lineCount > 100_000, String(whole.lineCount));
    assert.equal(whole.lineAt(whole.lineCount - 1).text, ']');
    assert.deepEqual(await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', whole.uri), []);
  });

  it('says when an exchange id is no longer kept', async () => {
    ui.onMessage = () => undefined;
    assert.equal(await vscode.commands.executeCommand(OPEN, 'no-such-exchange'), undefined);
    assert.ok(
      ui.messages.some((message) => message.kind === 'error' && message.text.includes('no-such-exchange is no longer kept')),
      JSON.stringify(ui.messages),
    );
  });
});
