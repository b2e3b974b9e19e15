// A person's view: the packaged extension installed in VS Code shows problems of an agent file
// as squiggles, in a hover and in the Problems panel, and runs Validate Workspace Agents from the
// command palette. Takes the README's screenshot (out/screenshots/; `npm run screenshots` copies
// it to docs/images/).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from '../host/common';
import { openWorkbench, runCommand, textOf } from './workbench';
import type { Workbench } from './workbench';

const repoRoot = findRepoRoot();
const screenshots = join(repoRoot, 'out', 'screenshots');

describe('UI: diagnostics in the editor', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async () => {
    workbench = await openWorkbench();
  });
  after(async () => {
    await workbench?.close();
  });

  it('underlines the problems of an opened agent file and explains them on hover', async () => {
    const { page } = workbench;
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: 'broken.agent.yaml' }).click();
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30_000 });
    assert.ok((await page.locator('.monaco-editor .squiggly-error').count()) >= 3);
    // Hover the Basic credentials to show the message a user reads.
    const line = page.locator('.monaco-editor .view-line', { hasText: 'Authorization: Basic alice:s3cret' });
    const box = await line.boundingBox();
    assert.ok(box, 'the Authorization line is visible');
    const text = await line.innerText();
    const column = text.indexOf('alice');
    await page.mouse.move(box.x + ((column + 4) / text.length) * box.width, box.y + box.height / 2);
    const hover = page.locator('.monaco-hover-content', { hasText: 'plain user:password' });
    await hover.first().waitFor({ timeout: 15_000 });
    assert.match(await hover.first().innerText(), /basic-not-encoded/);
  });

  it('lists them in the Problems panel with their codes', async () => {
    const { page } = workbench;
    await page.keyboard.press('Control+Shift+M');
    const panel = page.locator('.markers-panel');
    await panel.locator('.monaco-list-row', { hasText: 'unknown-http-method' }).first().waitFor({ timeout: 15_000 });
    const text = await textOf(page, '.markers-panel');
    for (const code of ['unknown-http-method', 'basic-not-encoded', 'unknown-input']) assert.match(text, new RegExp(code));
    // Keep the hover in the picture: move back over the credentials.
    const line = page.locator('.monaco-editor .view-line', { hasText: 'Authorization: Basic alice:s3cret' });
    const box = (await line.boundingBox())!;
    const lineText = await line.innerText();
    await page.mouse.move(box.x + ((lineText.indexOf('alice') + 4) / lineText.length) * box.width, box.y + box.height / 2);
    await page.locator('.monaco-hover-content', { hasText: 'plain user:password' }).first().waitFor({ timeout: 15_000 });
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, 'diagnostics.png') });
    if (process.env.AGENT_WORKFLOWS_UPDATE_SCREENSHOTS) {
      mkdirSync(join(repoRoot, 'docs', 'images'), { recursive: true });
      copyFileSync(join(screenshots, 'diagnostics.png'), join(repoRoot, 'docs', 'images', 'diagnostics.png'));
    }
  });

  it('runs Validate Workspace Agents from the command palette', async () => {
    const { page } = workbench;
    await runCommand(page, 'Agent Workflows: Validate Workspace Agents');
    const toast = page.locator('.notification-toast', { hasText: 'agent files' });
    await toast.first().waitFor({ timeout: 30_000 });
    assert.match(await toast.first().innerText(), /Checked 3 agent files: \d+ errors? in \d+ files?, \d+ warnings?\./);
  });
});
