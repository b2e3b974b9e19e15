// A person debugging an agent: the packaged extension in VS Code, a real API on 127.0.0.1, a
// breakpoint set on an API node's line, Debug from the code lens, the editor stopped on
// that node with its request (built, not sent) in the Variables view, a screenshot for the README,
// then Continue to the end.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import { openFile, openWorkbench, runCommand, screenshotIfFailed, takeScreenshot } from './workbench';
import type { Workbench } from './workbench';

describe('UI: Debug Agent stops at a breakpoint', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let api: TestServer;
  let agents: TempDir;

  before(async () => {
    api = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ order: 7, status: 'shipped' }));
    });
    agents = makeTempDir('agent-workflows-ui-debug-');
    writeFileSync(
      join(agents.path, 'shipping.agent.yaml'),
      [
        'version: 1',
        'name: Shipping status',
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
    workbench = await openWorkbench({ extraFiles: { 'shipping.agent.yaml': join(agents.path, 'shipping.agent.yaml') } });
  });
  after(async () => {
    await workbench?.close();
    await api?.close();
    agents?.remove();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('stops before the API node sends, shows its request in Variables, and continues to the end', async () => {
    const { page } = workbench;
    await openFile(page, 'shipping.agent.yaml');
    const editor = page.locator('.editor-group-container .monaco-editor').first();
    // A breakpoint on the API node: the cursor on its line, then Debug: Toggle Breakpoint (F9's command).
    await editor.locator('.view-line', { hasText: /^\s*lookup:\s*$/ }).click({ timeout: 30_000 });
    await runCommand(page, 'Debug: Toggle Breakpoint');
    await editor.locator('.codicon-debug-breakpoint').first().waitFor({ timeout: 15_000 });

    await page.locator('.codelens-decoration a', { hasText: 'Debug' }).first().click({ timeout: 30_000 });
    // Stopped: the debug toolbar, the node's line marked as the current frame, the request in Variables.
    await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
    await editor.locator('.codicon-debug-stackframe').first().waitFor({ timeout: 30_000 });
    const variables = page.locator('.debug-variables');
    await variables.locator('.monaco-list-row', { hasText: /^Request$/ }).click({ timeout: 15_000 });
    await variables.locator('.monaco-list-row', { hasText: 'method' }).filter({ hasText: 'GET' }).waitFor({ timeout: 15_000 });
    const shown = (await variables.innerText()).replace(/\u00a0/g, ' ');
    assert.match(shown, new RegExp(`url\\s*[:=]?\\s*"?${api.url.replace(/[.]/g, '\\.')}/orders/7`));
    assert.equal(api.requests.length, 0, 'held before it is sent');
    await variables.locator('.monaco-list-row', { hasText: 'headers' }).click();
    await variables.locator('.monaco-list-row', { hasText: 'application/json' }).waitFor({ timeout: 15_000 });

    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.mouse.move(0, 0);
    await takeScreenshot(page, 'debugger.png');

    await page.locator('.debug-toolbar .codicon-debug-continue').click();
    await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    assert.equal(api.requests.length, 1);
    assert.equal(api.requests[0]?.url, '/orders/7');
  });
});
