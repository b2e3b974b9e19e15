// Copy Node as cURL in the real extension host: the API node under the cursor (or the one picked
// from the palette) goes to the clipboard as a curl command, secrets as $AGENT_SECRET_NAME, and the
// message names the variables to export. `import curl` of the copy gives the node back.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { apiNodeFromCurl } from '../../src/core/import/apiNodeFromCurl';
import { CurlCommandError, parseCurlCommand } from '../../src/core/import/curlCommand';
import { ScriptedUi } from './scriptedUi';
import { workspaceFolder } from './userData';

const AGENT = `version: 1
name: Orders
inputs:
  order_id: { type: string, required: true }
nodes:
  get_order:
    type: api
    method: GET
    url: https://shop.example.com/v1/orders/{{ inputs.order_id }}
    settings:
      - "Authorization: Bearer {{ secrets.SHOP_TOKEN }}"
  add_note:
    type: api
    method: POST
    url: https://notes.example.com/api/notes?key={{ secrets.NOTES_KEY }}
    settings:
      - "Content-Type: application/json"
    body:
      order: "{{ inputs.order_id }}"
      text: "it's {{ nodes.get_order.body.status }}"
`;

describe('Copy Node as cURL', function () {
  this.timeout(60_000);
  let folder: string;
  let ui: ScriptedUi;
  let editor: vscode.TextEditor;

  before(async () => {
    await vscode.extensions.getExtension('agent-workflows.agent-workflows')?.activate();
    folder = join(workspaceFolder(), 'copy-node-as-curl');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'orders.agent.yaml');
    writeFileSync(file, AGENT);
    editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(file)));
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
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

  it('copies the node under the cursor, secrets as shell variables, and names them', async () => {
    await vscode.env.clipboard.writeText('something else');
    const inBody = editor.document.positionAt(AGENT.indexOf('text: "it'));
    editor.selection = new vscode.Selection(inBody, inBody);

    await vscode.commands.executeCommand('agentWorkflows.copyNodeAsCurl');

    const copied = await vscode.env.clipboard.readText();
    assert.equal(
      copied,
      [
        'curl -sS -X POST "https://notes.example.com/api/notes?key=${AGENT_SECRET_NOTES_KEY}" \\',
        "  -H 'Content-Type: application/json' \\",
        `  --data-raw '{"order":"{{ inputs.order_id }}","text":"it'\\''s {{ nodes.get_order.body.status }}"}'`,
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      ui.messages.map((message) => message.text),
      ['Copied the node "add_note" as a curl command. Export AGENT_SECRET_NOTES_KEY in the shell before running it.'],
    );
    // What was copied holds the node's own expressions in its body: imported back, that text is
    // data, never a template, so the import refuses it rather than write live expressions.
    assert.throws(
      () => apiNodeFromCurl(parseCurlCommand(copied)),
      (error: unknown) => error instanceof CurlCommandError && error.code === 'template',
    );
  });

  it('from the palette with the cursor in no node, copies the node picked', async () => {
    const top = new vscode.Position(0, 0);
    editor.selection = new vscode.Selection(top, top);
    ui.pick('get_order');

    await vscode.commands.executeCommand('agentWorkflows.copyNodeAsCurl');

    assert.deepEqual(
      ui.quickPicks[0]?.items.map((item) => item.label),
      ['get_order', 'add_note'],
    );
    assert.equal(
      await vscode.env.clipboard.readText(),
      "curl -sS -g 'https://shop.example.com/v1/orders/{order_id}' \\\n" + '  -H "Authorization: Bearer ${AGENT_SECRET_SHOP_TOKEN}"\n',
    );
    assert.deepEqual(
      ui.messages.map((message) => message.text),
      [
        'Copied the node "get_order" as a curl command. Export AGENT_SECRET_SHOP_TOKEN in the shell before running it. Fill in its {placeholders} first.',
      ],
    );
  });
});
