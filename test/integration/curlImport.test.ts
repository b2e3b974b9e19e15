// cURL in, in the real extension host: Add API Node from cURL… and Paste as API Node put the node
// (and the inputs of its placeholders) into the open agent file, its token goes to secret storage
// after one confirmation that names it, never into the file, and Run Locally then sends it to a
// real API on 127.0.0.1. Set Deployment from URL… fills `deployment:` and stores a pasted key for
// its origin only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import type { AgentWorkflowsApi } from '../../src/extension';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { repoRoot } from '../support/paths';
import { workspaceFolder } from './userData';
import { waitFor } from './wait';

const TOKEN = `tok_${randomBytes(12).toString('hex')}`;
const KEY = `awk_${randomBytes(12).toString('hex')}`;

describe('cURL import', function () {
  this.timeout(60_000);
  let api: AgentWorkflowsApi;
  let apiServer: TestServer;
  let folder: string;
  let ui: ScriptedUi;

  async function openAgent(name: string, text: string): Promise<vscode.TextEditor> {
    const file = join(folder, name);
    writeFileSync(file, text);
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    return vscode.window.showTextDocument(document);
  }

  before(async () => {
    api = (await vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows')?.activate())!;
    apiServer = await startServer((request, response) =>
      json(response, 200, { id: request.url, auth: request.headers.authorization ?? null }),
    );
    folder = join(workspaceFolder(), 'curl-import');
    mkdirSync(folder, { recursive: true });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentWorkflows.clearSecret', 'API_TOKEN');
    await vscode.commands.executeCommand('agentWorkflows.clearSecret', 'API_KEY');
    await apiServer?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  beforeEach(() => {
    ui = new ScriptedUi();
  });

  afterEach(() => {
    ui.restore();
    assert.deepEqual(ui.unexpected, [], 'every prompt was answered');
    assert.equal(ui.leftover, 0, 'every scripted answer was used');
  });

  it('Add API Node from cURL… adds the node from the clipboard, stores its token once asked, and Run Locally sends it', async () => {
    const editor = await openAgent(
      'orders.agent.yaml',
      'version: 1\nname: Orders\n\noutputs:\n  order: { from: "{{ nodes.get_orders.body.id }}" }\n',
    );
    await vscode.env.clipboard.writeText(`curl -sSL -H "Authorization: Bearer ${TOKEN}" \\\n  "${apiServer.url}/v1/orders/{order_id}"`);
    ui.onMessage = (message) =>
      message.modal && message.items.includes('Store in Secret Storage') ? 'Store in Secret Storage' : undefined;

    assert.equal(await vscode.commands.executeCommand('agentWorkflows.addApiNodeFromCurl'), true);

    const text = editor.document.getText();
    assert.ok(!text.includes(TOKEN), 'the token is not in the file');
    assert.match(text, /^inputs:\n {2}order_id: \{ type: string, required: true \}\n/m);
    assert.match(text, /^nodes:\n {2}get_orders:\n {4}type: api\n {4}method: GET\n/m);
    assert.ok(text.includes(`url: ${apiServer.url}/v1/orders/{{ inputs.order_id }}`), text);
    assert.ok(text.includes('- "Authorization: Bearer {{ secrets.API_TOKEN }}"'), text);
    const confirmation = ui.messages.find((message) => message.modal);
    assert.match(confirmation?.text ?? '', /a credential: API_TOKEN \(from Authorization\)/);
    assert.ok(!JSON.stringify(ui.messages).includes(TOKEN), 'no message shows the token');
    const done = ui.messages.find((message) => message.kind === 'info');
    assert.match(
      done?.text ?? '',
      /Added API node "get_orders"\. It refers to secret API_TOKEN and input order_id\..*-s only changes how curl prints/,
    );
    await editor.document.save();

    ui.input('A-17');
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', editor.document.uri);
    assert.equal(record.state, 'finished', record.error);
    assert.deepEqual(record.outputs, { order: '/v1/orders/A-17' });
    assert.equal(apiServer.requests.at(-1)?.headers.authorization, `Bearer ${TOKEN}`);
  });

  it('a command it cannot read is said, and the file is left as it was', async () => {
    const before = 'version: 1\nname: Broken\n';
    const editor = await openAgent('broken.agent.yaml', before);
    await vscode.env.clipboard.writeText('curl -H "Accept: x https://api.example.com');
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.addApiNodeFromCurl'), false);
    assert.match(ui.messages.find((message) => message.kind === 'error')?.text ?? '', /a quote that is never closed/);
    assert.equal(editor.document.getText(), before);
  });

  it('Paste as API Node offers the node beside plain paste; taken, it asks about the credential once', async () => {
    const editor = await openAgent('pasted.agent.yaml', 'version: 1\nname: Pasted\nnodes:\n  first:\n    type: template\n    text: hi\n');
    const transfer = new vscode.DataTransfer();
    transfer.set(
      'text/plain',
      new vscode.DataTransferItem(`curl -X POST ${apiServer.url}/v1/notes -H "x-api-key: ${TOKEN}" --json '{"text":"hello"}'`),
    );
    const source = new vscode.CancellationTokenSource();
    const edits = await api.curlPaste.provideDocumentPasteEdits!(
      editor.document,
      [editor.selection],
      transfer,
      { only: undefined, triggerKind: vscode.DocumentPasteTriggerKind.Automatic },
      source.token,
    );
    assert.equal(edits?.length, 1);
    const [edit] = edits!;
    assert.equal(edit!.title, 'Paste as API Node "post_notes"');
    assert.equal(edit!.kind.value, 'text.agentWorkflows.apiNode');

    let asked = 0;
    ui.onMessage = (message) => {
      if (message.modal) asked++;
      return undefined;
    };
    assert.equal(await vscode.workspace.applyEdit(edit!.additionalEdit!), true);
    await waitFor(() => ui.messages.some((message) => message.kind === 'info'), 'the import to finish');
    assert.equal(asked, 1, 'asked once about the credential (and declined)');
    const text = editor.document.getText();
    assert.ok(!text.includes(TOKEN), 'the key is not in the file');
    assert.match(text, /\n {2}post_notes:\n {4}type: api\n {4}method: POST\n/);
    assert.ok(text.includes('- "x-api-key: {{ secrets.API_KEY }}"'), text);
    assert.ok(text.includes('text: hello'), text);

    // Plain text that is not a curl command is left to plain paste.
    const plain = new vscode.DataTransfer();
    plain.set('text/plain', new vscode.DataTransferItem('hello'));
    assert.equal(
      await api.curlPaste.provideDocumentPasteEdits!(
        editor.document,
        [editor.selection],
        plain,
        { only: undefined, triggerKind: vscode.DocumentPasteTriggerKind.Automatic },
        source.token,
      ),
      undefined,
    );
  });

  it('Add API Node from OpenAPI… lists the operations by tag and adds the one picked, typed inputs and all', async () => {
    copyFileSync(join(repoRoot, 'test', 'fixtures', 'openapi', 'petstore-3.0.yaml'), join(folder, 'petstore-openapi.yaml'));
    const editor = await openAgent('pets.agent.yaml', 'version: 1\nname: Pets\n');
    ui.pick((items) => items.find((item) => item.label.endsWith('petstore-openapi.yaml')));
    ui.pick((items) => {
      assert.deepEqual(
        items.map((item) => (item.kind === vscode.QuickPickItemKind.Separator ? `[${item.label}]` : item.label)),
        ['[pets]', 'GET /pets', 'POST /pets', 'GET /pets/{petId}', '[admin]', 'DELETE /pets/{petId}'],
      );
      return items.find((item) => item.label === 'GET /pets');
    });
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.addApiNodeFromOpenApi'), true);
    const text = editor.document.getText();
    assert.match(
      text,
      /^inputs:\n {2}status: \{ type: string, enum: \[ available, pending, sold \], required: true, description: The status of the pets to list \}\n/m,
    );
    // The secret is named after the host it goes to, never after the document's scheme.
    assert.ok(
      text.includes(
        'url: https://eu.petstore.example.com/v1/pets?status={{ inputs.status }}&api_key={{ secrets.API_KEY_FOR_EU_PETSTORE_EXAMPLE_COM }}',
      ),
      text,
    );
    assert.equal(
      ui.messages.find((message) => message.kind === 'info')?.text,
      'Added API node "list_pets" for GET /pets; it calls eu.petstore.example.com. It sends secrets API_KEY_FOR_EU_PETSTORE_EXAMPLE_COM to eu.petstore.example.com. Inputs: status. Set API_KEY_FOR_EU_PETSTORE_EXAMPLE_COM with Agent Workflows: Set Secret… before running it.',
    );
  });

  it("Set Deployment from URL… fills deployment: from the agent's execute URL, and stores a pasted key for its origin", async () => {
    const editor = await openAgent('deployed.agent.yaml', 'version: 1\nname: Deployed\ndeployment:\n  baseUrl: https://old.example.com\n');
    await vscode.env.clipboard.writeText('');
    ui.onMessage = (message) => (message.modal ? 'Store in Secret Storage' : undefined);
    ui.input(
      `curl -X POST https://agents.example.com/api/acme/agent/orders/execute -H "Authorization: Bearer ${KEY}" -d '{"inputs":{},"stream":false}'`,
    );
    try {
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setDeploymentFromUrl'), true);
      assert.equal(
        editor.document.getText(),
        'version: 1\nname: Deployed\ndeployment:\n  baseUrl: https://agents.example.com\n  account: acme\n  agent: orders\n',
      );
      assert.match(ui.messages.find((message) => message.modal)?.text ?? '', /as the key of https:\/\/agents\.example\.com\?/);
      assert.match(
        ui.messages.find((message) => message.kind === 'info')?.text ?? '',
        /Deployment set to https:\/\/agents\.example\.com, account acme, agent orders\./,
      );
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', 'https://agents.example.com');
    }
  });
});
