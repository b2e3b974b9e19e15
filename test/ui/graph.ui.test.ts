// A person's view of the workflow graph: the packaged extension in VS Code, an example agent opened,
// "Agent Workflows: Show Graph" run from the command palette, the graph drawn beside the editor,
// and a click on a node selecting it in the YAML. Takes the README's screenshot (out/screenshots/;
// `npm run screenshots` copies it to docs/images/).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { findRepoRoot } from '../host/common';
import { openWorkbench, runCommand, screenshotIfFailed, takeScreenshot, textOf } from './workbench';
import type { Workbench } from './workbench';

const repoRoot = findRepoRoot();

/** The graph's page: webviews live in an iframe (the host) holding another (the content). */
function graphFrame(page: Page): FrameLocator {
  return page.locator('iframe.webview.ready').first().contentFrame().locator('iframe#active-frame').contentFrame();
}

describe('UI: workflow graph', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async () => {
    workbench = await openWorkbench({ extraFiles: { 'customer-360.agent.yaml': join(repoRoot, 'examples', 'customer-360.agent.yaml') } });
  });
  after(async () => {
    await workbench?.close();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('draws the graph of an agent beside it from the command palette', async () => {
    const { page } = workbench;
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: 'customer-360.agent.yaml' }).click({ timeout: 30_000 });
    await page.locator('.monaco-editor .view-line', { hasText: 'Customer 360' }).first().waitFor();
    // More room for the graph: hide the side bar.
    await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
    await page.locator('.explorer-viewlet').waitFor({ state: 'hidden' });

    await runCommand(page, 'Agent Workflows: Show Graph');
    await page.locator('.tab', { hasText: 'Graph: customer-360.agent.yaml' }).waitFor({ timeout: 30_000 });
    const graph = graphFrame(page);
    await graph.locator('.gnode').first().waitFor({ timeout: 30_000 });

    assert.equal(await graph.locator('.gnode').count(), 8);
    assert.equal(await graph.locator('path.gedge').count(), 9);
    for (const name of ['customer_id', 'profile', 'invoices', 'tickets', 'summary']) {
      assert.ok((await graph.locator('.gnode-name', { hasText: name }).count()) >= 1, name);
    }
    const node = (key: string) => graph.locator(`.gnode[data-key="${key}"]`);
    assert.match(await node('node:profile').innerText(), /API\s+profile\s+GET\s+crm\.example\.com\s+Bearer/);
    assert.match(await node('node:invoices').innerText(), /POST\s+billing\.example\.com\s+Basic/);
    assert.match(await node('node:tickets').innerText(), /GET\s+support\.example\.com\s+API key in URL/);
    assert.match(await node('node:summary').innerText(), /TEXT\s+summary/);
    assert.equal((await graph.locator('#status').innerText()).trim(), 'No problems');
    // Themed: the page takes its colours from VS Code's variables (Dark Modern here).
    // (Runs in the page; the tests are type-checked without the DOM library.)
    const background = await graph
      .locator('body')
      .evaluate(
        (body) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(body).backgroundColor,
      );
    assert.equal(background, 'rgb(31, 31, 31)');
  });

  it('selects a clicked node in the YAML editor', async () => {
    const { page } = workbench;
    const graph = graphFrame(page);
    await graph.locator('.gnode[data-key="node:invoices"]').click();
    // "invoices" (8 characters, columns 3 to 11) on line 20 of the example is selected; the status bar shows the cursor at its end.
    const selection = page.locator('.statusbar-item[id="status.editor.selection"]');
    await selection.filter({ hasText: /Ln 20, Col 11 \(8 selected\)/ }).waitFor({ timeout: 15_000 });
    assert.match(await textOf(page, '.statusbar-item[id="status.editor.selection"]'), /Ln 20, Col 11 \(8 selected\)/);
    await page.locator('.monaco-editor.focused').waitFor();

    // Keep the pointer on the node so its edges stay lit in the picture.
    await graph.locator('.gnode[data-key="node:invoices"]').hover();
    await takeScreenshot(page, 'graph.png');
  });
});
