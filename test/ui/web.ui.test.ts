// The browser build (package.json `browser`) in VS Code for the Web: the packaged extension installed
// in code-server and forced into the browser's web-worker extension host by the
// `remote.extensionKind` setting, used through Chromium as a person would. Checks that it runs there
// (the log line its activation writes from what it measures: a web worker, no Node), then a
// diagnostic with its code, a completion, a hover, a quick fix applied (in an agent file and in a
// test file), the graph drawn, and a command that needs Node saying why. The files are in a virtual
// file system, as github.dev's (vscode-vfs:) are: a test-only web extension serves memfs:/workspace
// from memory, and the workspace is that folder, so the extension can read them only through VS Code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { findRepoRoot, makeTempDir, removeDir } from '../host/common';
import { filesUnder, MEMFS_EXTENSION_ID, MEMFS_ROOT, writeMemfsExtension } from './memfsExtension';
import { openWorkbench, pickItem, runCommand, screenshotIfFailed, textOf } from './workbench';
import type { Workbench } from './workbench';

const EXTENSION_ID = 'agent-workflows.agent-workflows';

/** Opens a file of the explorer, its folders given before it. */
async function openFromExplorer(page: Page, ...path: string[]): Promise<void> {
  for (const name of path) {
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: name }).first().click({ timeout: 15_000 });
  }
  // The file's own tab (a graph's, "Graph: NAME", may be active in the other group).
  await page.locator(`.tab.active[data-resource-name="${path[path.length - 1]!}"]`).waitFor({ timeout: 15_000 });
}

/** What the virtual file system's extension reports: the active editor's URI and the files read. */
async function memfsReport(page: Page, expected: RegExp): Promise<string> {
  await runCommand(page, 'Memfs: Report');
  const toast = page.locator('.notification-toast', { hasText: 'memfs report' }).filter({ hasText: expected }).last();
  await toast.waitFor({ timeout: 15_000 });
  const text = (await toast.innerText()).replace(/\s+/g, ' ');
  await runCommand(page, 'Notifications: Clear All Notifications');
  return text;
}

/** Moves the cursor with Go to Line/Column (1-based line and column). */
async function goTo(page: Page, line: number, column: number): Promise<void> {
  await runCommand(page, 'Go to Line/Column...');
  const input = page.locator('.quick-input-widget input');
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

/** Takes the quick fix titled `title` at a line and column (1-based) from the Ctrl+. menu. */
async function applyQuickFix(page: Page, line: number, column: number, title: string): Promise<void> {
  await goTo(page, line, column);
  await page.keyboard.press('Control+.');
  const fix = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
  await fix.waitFor({ timeout: 30_000 });
  // The menu takes keys, not clicks (a pointer block covers it): move to the fix, then Enter.
  for (let moves = 0; !(await fix.getAttribute('class'))?.includes('focused'); moves++) {
    assert.ok(moves < 10, `the quick fix "${title}" can be selected`);
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
}

/** Shows the Problems panel (unless it is showing). */
async function showProblems(page: Page): Promise<void> {
  if (!(await page.locator('.markers-panel').isVisible())) await page.keyboard.press('Control+Shift+M');
  await page.locator('.markers-panel').waitFor({ timeout: 15_000 });
}

/** The text of the active editor, from its model (the DOM shows only what is in view). */
async function editorLine(page: Page, text: string): Promise<string> {
  const line = page.locator('.editor-group-container.active .monaco-editor .view-line', { hasText: text }).first();
  return ((await line.innerText()) ?? '').replace(/\u00a0/g, ' ');
}

describe('UI: the browser build in the web-worker extension host', function () {
  this.timeout(180_000);
  let workbench: Workbench;
  let memfsExtension: string;

  before(async () => {
    const fixtures = join(findRepoRoot(), 'test', 'fixtures');
    memfsExtension = makeTempDir('agent-workflows-ui-memfs-');
    writeMemfsExtension(memfsExtension, {
      ...filesUnder(join(fixtures, 'workspace')),
      'agent-tests/typo.agent.test.yaml': readFileSync(join(fixtures, 'web', 'typo.agent.test.yaml'), 'utf8'),
      // An environments file and an agent overriding one of its environments, for rename across files.
      'shop/agent-workflows.yaml':
        'default: staging\nenvironments:\n  staging:\n    baseUrl: https://staging.example.com\n    account: shop\n',
      'shop/orders.agent.yaml':
        'version: 1\nname: Orders\ndeployment:\n  agent: orders\n  environments:\n    staging: { agent: orders-staging }\nnodes:\n  hello: { type: template, text: hi }\noutputs:\n  greeting: { from: "{{ nodes.hello.body }}" }\n',
    });
    workbench = await openWorkbench({
      settings: { 'remote.extensionKind': { [EXTENSION_ID]: ['web'], [MEMFS_EXTENSION_ID]: ['web'] } },
      otherExtensions: [memfsExtension],
      folderUri: MEMFS_ROOT,
    });
  });
  after(async () => {
    await workbench?.close();
    if (memfsExtension) removeDir(memfsExtension);
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('runs in a web worker without Node and shows a problem with its code', async () => {
    const { page } = workbench;
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: 'broken.agent.yaml' }).click();
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60_000 });
    await page.keyboard.press('Control+Shift+M');
    const problems = page.locator('.markers-panel');
    await problems.locator('.monaco-list-row', { hasText: 'unknown-input' }).first().waitFor({ timeout: 15_000 });
    const text = await textOf(page, '.markers-panel');
    for (const code of ['unknown-http-method', 'basic-not-encoded', 'unknown-input']) assert.match(text, new RegExp(code));

    // Where it runs: the line its activation logs from what it measured.
    await runCommand(page, 'Output: Show Output Channels...');
    await pickItem(page, 'Agent Workflows Log');
    const output = page.locator('.part.panel .monaco-editor .view-lines');
    await output.filter({ hasText: 'activated (browser build' }).waitFor({ timeout: 15_000 });
    // The output wraps long lines.
    const log = (await textOf(page, '.part.panel .monaco-editor .view-lines')).replace(/\s+/g, ' ');
    assert.match(log, /activated \(browser build, in a web worker, without Node, UI web\)/);

    // The file is the virtual file system's, read through VS Code.
    await page.locator('.tab', { hasText: 'broken.agent.yaml' }).click();
    const report = await memfsReport(page, /broken\.agent\.yaml/);
    assert.match(report, /active memfs:\/workspace\/broken\.agent\.yaml/);
    assert.match(report, /node false/);
  });

  it('completes, explains on hover, applies a quick fix and goes to a definition', async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'broken.agent.yaml');
    // Completion: the inputs the agent declares, before "tiket" in {{ inputs.tiket }} (line 14).
    await goTo(page, 14, 24);
    await page.keyboard.press('Control+Space');
    const suggestion = page.locator('.suggest-widget .monaco-list-row', { hasText: 'ticket' }).first();
    await suggestion.waitFor({ timeout: 30_000 });
    // The extension's items, not the words of the file VS Code offers when no provider answers.
    assert.equal(await page.locator('.suggest-widget .monaco-list-row', { hasText: 'alice' }).count(), 0);
    await page.keyboard.press('Escape');

    // Hover on the `method` key (line 8).
    const key = page.locator('.monaco-editor .view-line span span', { hasText: 'method' }).first();
    const box = await key.boundingBox();
    assert.ok(box, 'the method key is visible');
    await page.mouse.move(box.x + 2, box.y + 2);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
    await page.locator('.monaco-hover-content', { hasText: 'The request method, in capitals.' }).first().waitFor({ timeout: 30_000 });
    await page.mouse.move(0, 0);

    // Quick fix: "tiket" becomes "ticket".
    await applyQuickFix(page, 14, 25, 'Change to "ticket"');
    await page.locator('.monaco-editor .view-line', { hasText: 'inputs.ticket' }).first().waitFor({ timeout: 15_000 });
    assert.match(await editorLine(page, 'inputs.'), /\{\{ inputs\.ticket \}\}/);
    // And its problem goes.
    await showProblems(page);
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'basic-not-encoded' }).first().waitFor({ timeout: 15_000 });
    await page
      .locator('.markers-panel .monaco-list-row', { hasText: 'unknown-input' })
      .first()
      .waitFor({ state: 'detached', timeout: 30_000 });

    // Go to Definition from the reference to the input's declaration (line 4).
    await goTo(page, 14, 27);
    await page.keyboard.press('F12');
    await page
      .locator('.statusbar-item', { hasText: /Ln 4, Col \d+/ })
      .first()
      .waitFor({ timeout: 15_000 });
  });

  it('draws the graph', async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'broken.agent.yaml');
    await runCommand(page, 'Agent Workflows: Show Graph');
    const graph = page.locator('iframe.webview.ready').first().contentFrame().locator('iframe#active-frame').contentFrame();
    await graph.locator('.gnode', { hasText: 'summarize' }).first().waitFor({ timeout: 60_000 });
  });

  it('encodes Basic credentials with their quick fix, and reads the encoded ones back', async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'broken.agent.yaml');
    // "Authorization: Basic alice:s3cret" (line 11): Base64 without Node's Buffer, in the web worker.
    await applyQuickFix(page, 11, 31, 'Encode the credentials as Base64');
    await page.locator('.monaco-editor .view-line', { hasText: 'Basic YWxpY2U6czNjcmV0' }).first().waitFor({ timeout: 15_000 });
    // Decoded to alice:s3cret: only that they are written in the file is said.
    await showProblems(page);
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'literal-credential' }).first().waitFor({ timeout: 30_000 });
    assert.doesNotMatch(await textOf(page, '.markers-panel'), /basic-not-encoded|basic-invalid-base64/);
  });

  it('checks a test file against its agent, and fixes the name with a quick fix', async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'agent-tests', 'typo.agent.test.yaml');
    await showProblems(page);
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'unknown-output' }).first();
    await row.waitFor({ timeout: 30_000 });
    assert.match((await row.innerText()).replace(/\s+/g, ' '), /no output "greting"\. Did you mean "greeting"\?/);
    // Its agent was read from the virtual file system.
    assert.match(await memfsReport(page, /typo/), /read [^|]*\/workspace\/agent-tests\/greeter\.agent\.yaml/);

    // Quick fix: "greting" (line 11) becomes "greeting".
    await applyQuickFix(page, 11, 11, 'Change to "greeting"');
    await page.locator('.monaco-editor .view-line', { hasText: 'greeting: Hello Countess Ada' }).first().waitFor({ timeout: 15_000 });
    await row.waitFor({ state: 'detached', timeout: 30_000 });
  });

  it('finds the references to an output in a test file that is not open', async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'greeter.agent.yaml');
    // `greeting` of outputs (line 17); greeter.agent.test.yaml expects it and was never opened.
    await goTo(page, 17, 4);
    await runCommand(page, 'References: Find All References');
    // VS Code cannot search this file system (its search never answers): the folder is walked.
    const tree = page.locator('[id="workbench.view.extension.references-view"]');
    await tree.locator('.monaco-list-row', { hasText: 'greeter.agent.test.yaml' }).first().waitFor({ timeout: 30_000 });
    await runCommand(page, 'View: Show Explorer');
  });

  it('completes the secret names the workspace uses, read from files that are not open', async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'hello.agent.yaml');
    // Before the closing quote of `text: "Hello {{ inputs.who }}"` (line 8).
    await goTo(page, 8, 34);
    await page.keyboard.type(' {{ secrets.');
    await page.keyboard.press('Control+Space');
    // PROFILE_TOKEN is used by agent-tests/greeter.agent.yaml only.
    await page.locator('.suggest-widget .monaco-list-row', { hasText: 'PROFILE_TOKEN' }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Escape');
    await runCommand(page, 'File: Revert File');
    await page.locator('.tab.active.dirty').waitFor({ state: 'detached', timeout: 15_000 });
  });

  it("renames an environment in the environments file and in an agent's override, a file not open", async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'shop', 'agent-workflows.yaml');
    // `staging` where it is declared (line 3).
    await goTo(page, 3, 4);
    await page.keyboard.press('F2');
    const input = page.locator('.rename-box input');
    await input.waitFor({ timeout: 15_000 });
    await input.fill('preview');
    await page.keyboard.press('Enter');
    await page.locator('.editor-group-container.active .view-line', { hasText: 'default: preview' }).waitFor({ timeout: 30_000 });
    await openFromExplorer(page, 'orders.agent.yaml');
    await page
      .locator('.editor-group-container.active .view-line', { hasText: 'preview: { agent: orders-staging }' })
      .waitFor({ timeout: 15_000 });
    await runCommand(page, 'File: Save All Files');
  });

  it('adds an API node from a curl command', async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'hello.agent.yaml');
    // The command reads the clipboard first (a copied curl command): let the page, as a person would.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    await runCommand(page, 'Agent Workflows: Add API Node from cURL');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 30_000 });
    await input.fill('curl https://api.example.com/v1/items');
    await page.keyboard.press('Enter');
    await page
      .locator('.editor-group-container.active .monaco-editor .view-line', { hasText: 'https://api.example.com/v1/items' })
      .first()
      .waitFor({ timeout: 30_000 });
  });

  it('says why a command that needs Node is absent', async () => {
    const { page } = workbench;
    await openFromExplorer(page, 'broken.agent.yaml');
    await runCommand(page, 'Agent Workflows: Start Local Agent Server');
    const toast = page.locator('.notification-toast', { hasText: 'needs the desktop VS Code' }).first();
    await toast.waitFor({ timeout: 30_000 });
    assert.match(await toast.innerText(), /Start Local Agent Server" needs the desktop VS Code: it starts the local agent server/);
  });
});
