// A person debugging an agent: the packaged extension in VS Code, a real API on 127.0.0.1,
// breakpoints clicked in the gutter beside two nodes, F5 (no launch.json), the editor stopped on the
// API node with its request (built, not sent) in the Variables view (a screenshot for the README),
// Continue to the next node with the API node's body in Variables, and Continue to the end.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../support/httpServer';
import { orderStatusAgent } from './orderStatusAgent';
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
    writeFileSync(join(agents.path, 'shipping.agent.yaml'), orderStatusAgent('Shipping status', api.url));
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

  it("stops at gutter breakpoints after F5: the request held, then the node's body in Variables; continues to the end", async () => {
    const { page } = workbench;
    await openFile(page, 'shipping.agent.yaml');
    const editor = page.locator('.editor-group-container .monaco-editor').first();
    // The extension's code lenses are up: its debugger is known to the workbench, which lets the
    // gutter take breakpoints in agent files only then.
    await page.locator('.codelens-decoration a', { hasText: 'Debug' }).first().waitFor({ timeout: 30_000 });
    // Breakpoints as a person sets them: a click in the gutter beside the API node and the template node.
    await editor.locator('.view-line').first().waitFor({ timeout: 30_000 });
    const glyphMargin = (await editor.locator('.glyph-margin').boundingBox())!;
    for (const [index, line] of [/^\s*lookup:\s*$/, /^\s*summary:\s*$/].entries()) {
      const lineOfNode = editor.locator('.view-line', { hasText: line }).first();
      await lineOfNode.waitFor({ timeout: 30_000 });
      const box = (await lineOfNode.boundingBox())!;
      await page.mouse.click(glyphMargin.x + glyphMargin.width / 2, box.y + box.height / 2);
      await editor.locator('.codicon-debug-breakpoint').nth(index).waitFor({ timeout: 15_000 });
    }

    // F5 on the agent file: no launch.json, the agent's debugger is chosen by the file's language.
    await editor.locator('.view-line', { hasText: /^name:/ }).click();
    await page.keyboard.press('F5');
    // Stopped at the API node: the debug toolbar, its line the current frame, its request in Variables.
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

    // Continue: the request goes; stopped at the template node, the API node's body is in Variables.
    await page.locator('.debug-toolbar .codicon-debug-continue').click();
    // Stopped at the template node: it holds no request, so the Request scope goes.
    await variables.locator('.monaco-list-row', { hasText: /^Request$/ }).waitFor({ state: 'detached', timeout: 30_000 });
    await variables.locator('.monaco-list-row', { hasText: /^Nodes$/ }).waitFor({ timeout: 30_000 });
    assert.equal(api.requests.length, 1);
    assert.equal(api.requests[0]?.url, '/orders/7');
    const row = (name: RegExp) => variables.locator('.monaco-list-row', { hasText: name }).first();
    if ((await row(/^lookup/).count()) === 0) await row(/^Nodes$/).click();
    await row(/^lookup/).click({ timeout: 15_000 });
    await row(/^body/).click({ timeout: 15_000 });
    // Its first value (the pane is short: the list shows only the rows that fit).
    await variables.locator('.monaco-list-row', { hasText: /^order\s*=\s*7$/ }).waitFor({ timeout: 15_000 });

    await page.locator('.debug-toolbar .codicon-debug-continue').click();
    await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    assert.equal(api.requests.length, 1, 'sent once');
  });
});
