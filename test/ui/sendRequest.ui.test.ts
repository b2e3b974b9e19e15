// A person with API nodes: the packaged extension in VS Code, a real API on 127.0.0.1, a node sent
// from its Send Request code lens and its exchange read in the view beside the agent (status line
// and a response header); then an API's curl example put on the clipboard and pasted (Ctrl+V) into
// an agent file: it lands as an API node with its credential as a secret reference, offered for
// secret storage (never written), the paste widget offering plain text beside it. Screenshots for
// the README.
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

const TOKEN = 'ghp_uiPasteTest0123456789abcdefABCDEF';
const CURL_COMMAND = [
  'curl -L \\',
  '  -H "Accept: application/vnd.github+json" \\',
  `  -H "Authorization: Bearer ${TOKEN}" \\`,
  '  https://api.github.com/repos/OWNER/REPO/issues',
].join('\n');

describe('UI: API nodes: Send Request and Paste as API Node', function () {
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
    writeFileSync(join(agents.path, 'orders.agent.yaml'), orderStatusAgent('Order status', api.url));
    writeFileSync(
      join(agents.path, 'issues.agent.yaml'),
      ['version: 1', 'name: Open issues', 'nodes:', '  summary:', '    type: template', '    text: "No issues read yet"', ''].join('\n'),
    );
    workbench = await openWorkbench({
      extraFiles: {
        'orders.agent.yaml': join(agents.path, 'orders.agent.yaml'),
        'issues.agent.yaml': join(agents.path, 'issues.agent.yaml'),
      },
    });
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

  it('pastes a curl command as an API node with its token as a secret reference', async () => {
    const { page } = workbench;
    // One editor group again (the exchange view of the send opened a second).
    await runCommand(page, 'View: Close All Editor Groups');
    await openFile(page, 'issues.agent.yaml');
    const editor = page.locator('.editor-group-container .monaco-editor').first();
    // The extension is active (its code lenses are drawn), so its paste provider is known.
    await page.locator('.codelens-decoration a', { hasText: 'Run' }).first().waitFor({ timeout: 30_000 });

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    // In the page (a browser: the test's own types are Node's).
    type Clipboard = { navigator: { clipboard: { writeText(text: string): Promise<void> } } };
    await page.evaluate((text) => (globalThis as unknown as Clipboard).navigator.clipboard.writeText(text), CURL_COMMAND);
    // The cursor on the empty last line, then Ctrl+V as a person pastes.
    await editor.locator('.view-line').last().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Control+V');
    // A curl command's paste is the API node (plain text is the paste widget's other choice). The
    // credential is offered for secret storage in a modal that names it, never shows it.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    const asked = (await dialog.innerText()).replace(/\u00a0/g, ' ');
    assert.match(asked, /GITHUB_TOKEN \(from Authorization\)/);
    assert.doesNotMatch(asked, new RegExp(TOKEN));
    await dialog.locator('.monaco-button', { hasText: 'Store in Secret Storage' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
    await page.locator('.notifications-toasts', { hasText: 'Added API node "get_issues"' }).waitFor({ timeout: 15_000 });

    const text = (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /^\s*get_issues:$/m);
    assert.match(text, /type: api/);
    assert.match(text, /url: https:\/\/api\.github\.com\/repos\//);
    assert.match(text, /Authorization: Bearer \{\{ secrets\.GITHUB_TOKEN \}\}/);
    assert.doesNotMatch(text, new RegExp(TOKEN), 'no literal credential in the file');
    assert.doesNotMatch(text, /curl/, 'not pasted as plain text');

    // The paste widget's choices (Ctrl+.): Paste as API Node, taken, and plain text beside it.
    await page.locator('.post-edit-widget').waitFor({ timeout: 15_000 });
    await page.keyboard.press('Control+.');
    const choices = page.locator('.action-widget .monaco-list-row');
    await choices.filter({ hasText: 'Paste as API Node "get_issues"' }).waitFor({ timeout: 15_000 });
    const offered = (await page.locator('.action-widget').innerText()).replace(/\u00a0/g, ' ');
    assert.match(offered, /Insert Plain Text/);
    await takeScreenshot(page, 'paste-as-api-node.png');
    await page.keyboard.press('Escape');
    await runCommand(page, 'Notifications: Clear All Notifications');
  });
});
