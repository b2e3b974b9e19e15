// A person trying one API node: the packaged extension in VS Code, a real API on 127.0.0.1, the
// node sent from its Send Request code lens, and its exchange read in the view beside the agent
// (status line and a response header), with a screenshot for the README.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import { openFile, openWorkbench, runCommand, screenshotIfFailed, takeScreenshot } from './workbench';
import type { Workbench } from './workbench';

describe('UI: Send Request on one node', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let api: TestServer;
  let agents: TempDir;

  before(async () => {
    api = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'ui-req-42' });
      response.end(JSON.stringify({ order: 7, status: 'shipped', items: [{ sku: 'A-1', quantity: 2 }] }));
    });
    agents = makeTempDir('agent-workflows-ui-send-');
    writeFileSync(
      join(agents.path, 'orders.agent.yaml'),
      [
        'version: 1',
        'name: Order status',
        'nodes:',
        '  lookup:',
        '    type: api',
        '    method: GET',
        `    url: ${api.url}/orders/7`,
        '    settings:',
        '      - "Accept: application/json"',
        '  summary:',
        '    type: template',
        '    text: "Order {{ nodes.lookup.body.order }} is {{ nodes.lookup.body.status }}"',
        'outputs:',
        '  summary: { from: "{{ nodes.summary.body }}" }',
        '',
      ].join('\n'),
    );
    workbench = await openWorkbench({ extraFiles: { 'orders.agent.yaml': join(agents.path, 'orders.agent.yaml') } });
  });
  after(async () => {
    await workbench?.close();
    await api?.close();
    agents?.remove();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('sends a node from its code lens and shows the status and headers in the exchange view', async () => {
    const { page } = workbench;
    await openFile(page, 'orders.agent.yaml');
    await page.locator('.codelens-decoration a', { hasText: 'Send Request' }).first().click({ timeout: 30_000 });
    // The exchange opens beside the agent, in a second editor group.
    const view = page.locator('.editor-group-container').nth(1).locator('.monaco-editor .view-lines');
    await view.filter({ hasText: '200 OK' }).waitFor({ timeout: 30_000 });
    const text = (await view.innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /^(\/\/ )?200 OK · /m);
    assert.match(text, /x-request-id: ui-req-42/i);
    assert.equal(api.requests.length, 1);
    assert.equal(api.requests[0]?.url, '/orders/7');
    assert.equal(api.requests[0]?.headers.accept, 'application/json');

    // A clean picture for the README: no toasts over the editors.
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.mouse.move(0, 0);
    await takeScreenshot(page, 'send-request.png');
  });
});
