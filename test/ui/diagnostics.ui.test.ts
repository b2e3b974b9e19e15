// A person's view: the packaged extension installed in VS Code shows problems of an agent file
// as squiggles, in a hover and in the Problems panel, and runs Validate Workspace Agents from the
// command palette. Takes the README's screenshot (out/screenshots/; `npm run screenshots` copies
// it to docs/images/).
import assert from 'node:assert/strict';
import { openWorkbench, runCommand, screenshotIfFailed, takeScreenshot, textOf } from './workbench';
import type { Workbench } from './workbench';

/** Moves the mouse over the plain Basic credentials and waits for the problem's hover. */
async function hoverCredentials({ page }: Workbench) {
  // The code lenses above `name:` move the lines down when they arrive: measure after them.
  await page.locator('.monaco-editor .codelens-decoration').first().waitFor({ timeout: 15_000 });
  const token = page.locator('.monaco-editor .view-line span span', { hasText: 'alice:s3cret' }).first();
  const box = await token.boundingBox();
  assert.ok(box, 'the Basic credentials are visible');
  await page.mouse.move(box.x + 4, box.y + 2);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
  const hover = page.locator('.monaco-hover-content', { hasText: 'plain user:password' }).first();
  await hover.waitFor({ timeout: 15_000 });
  return hover;
}

describe('UI: diagnostics in the editor', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async () => {
    workbench = await openWorkbench();
  });
  after(async () => {
    await workbench?.close();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('underlines the problems of an opened agent file and explains them on hover', async () => {
    const { page } = workbench;
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: 'broken.agent.yaml' }).click();
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30_000 });
    assert.ok((await page.locator('.monaco-editor .squiggly-error').count()) >= 3);
    // Hover the Basic credentials to show the message a user reads.
    const hover = await hoverCredentials(workbench);
    assert.match(await hover.innerText(), /basic-not-encoded/);
  });

  it('lists them in the Problems panel with their codes', async () => {
    const { page } = workbench;
    await page.keyboard.press('Control+Shift+M');
    const panel = page.locator('.markers-panel');
    await panel.locator('.monaco-list-row', { hasText: 'unknown-http-method' }).first().waitFor({ timeout: 15_000 });
    const text = await textOf(page, '.markers-panel');
    for (const code of ['unknown-http-method', 'basic-not-encoded', 'unknown-input']) assert.match(text, new RegExp(code));
    // Keep the hover in the picture: move back over the credentials.
    await hoverCredentials(workbench);
    await takeScreenshot(page, 'diagnostics.png');
  });

  it('runs Validate Workspace Agents from the command palette', async () => {
    const { page } = workbench;
    await runCommand(page, 'Agent Workflows: Validate Workspace Agents');
    const toast = page.locator('.notification-toast', { hasText: 'Checked' });
    await toast.first().waitFor({ timeout: 30_000 });
    assert.match(await toast.first().innerText(), /Checked 5 agent files: \d+ errors? in \d+ files?, \d+ warnings?\./);
  });
});
