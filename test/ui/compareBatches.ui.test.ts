// A person comparing two batches: the packaged extension in VS Code, an agent run twice over the
// same data on this machine against a real API on 127.0.0.1 that changed between the runs (one row
// now fails, one is fixed, titles changed); the second batch's notification says how it compares,
// its Compare button opens the comparison table (a screenshot for the README), and a row of the
// table opens VS Code's diff editor on its two results. One workbench for all of it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import { openFile, openWorkbench, pickItem, runCommand, screenshotIfFailed, takeScreenshot } from './workbench';
import type { Workbench } from './workbench';

const PEOPLE = ['Ada', 'Grace', 'Nobody', 'Alan', 'Barbara', 'Edsger', 'Margaret', 'Donald'];

describe('UI: compare batches', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let api: TestServer;
  let files: TempDir;
  /** The API after the change: Alan lost, Nobody found, two people promoted. */
  let changed = false;

  before(async () => {
    api = await startServer((request, response) => {
      const who = decodeURIComponent(request.url?.split('/').pop() ?? '');
      if (!changed)
        return who === 'Nobody' ? json(response, 500, { error: 'no such person' }) : json(response, 200, { title: `Dr ${who}` });
      if (who === 'Alan') return json(response, 500, { error: 'lost' });
      return json(response, 200, { title: `${who === 'Grace' || who === 'Edsger' ? 'Prof' : 'Dr'} ${who}` });
    });
    files = makeTempDir('agent-workflows-ui-compare-');
    writeFileSync(
      join(files.path, 'lookup.agent.yaml'),
      [
        'version: 1',
        'name: Lookup',
        'inputs:',
        '  who: { type: string, required: true }',
        'nodes:',
        '  person:',
        '    type: api',
        '    method: GET',
        `    url: ${api.url}/people/{{ inputs.who }}`,
        'outputs:',
        '  title: { from: "{{ nodes.person.body.title }}" }',
        '',
      ].join('\n'),
    );
    writeFileSync(join(files.path, 'people.jsonl'), `${PEOPLE.map((who) => JSON.stringify({ who })).join('\n')}\n`);
    workbench = await openWorkbench({
      extraFiles: Object.fromEntries(['lookup.agent.yaml', 'people.jsonl'].map((name) => [name, join(files.path, name)])),
    });
  });
  after(async () => {
    await workbench?.close();
    await api?.close();
    files?.remove();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  /** Runs the agent over people.jsonl on this machine, from the explorer's menu, and waits for its notification. */
  async function runBatch(page: Page, done: string): Promise<void> {
    if (!(await page.locator('.explorer-viewlet').isVisible())) await runCommand(page, 'View: Show Explorer');
    await page
      .locator('.explorer-viewlet .monaco-list-row', { hasText: 'people.jsonl' })
      .first()
      .click({ button: 'right', timeout: 30_000 });
    const item = page.locator('.context-view .action-label', { hasText: 'Run Agent on Dataset…' });
    await item.hover({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await pickItem(page, 'lookup.agent.yaml');
    await pickItem(page, 'On this machine');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    await dialog.getByRole('button', { name: `Run ${PEOPLE.length} Rows` }).click();
    await page.locator('.notification-toast', { hasText: done }).waitFor({ timeout: 60_000 });
  }

  it('compares a batch with the previous one from its notification, and opens a row as a diff', async () => {
    const { page } = workbench;
    // The agent opened first: the extension is active (its menus ready) once its code lenses show.
    await openFile(page, 'lookup.agent.yaml');
    await page.locator('.codelens-decoration a').first().waitFor({ timeout: 30_000 });
    await runBatch(page, 'Batch Lookup: done');
    await runCommand(page, 'Notifications: Clear All Notifications');
    changed = true;
    await runBatch(page, 'Against the previous batch');
    const toast = page.locator('.notification-toast', { hasText: 'Against the previous batch' });
    assert.match(await toast.innerText(), /1 regression, 1 fix, 2 outputs changed/);
    await toast.getByRole('button', { name: 'Compare' }).click();

    const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe');
    await frame.locator('#rows tr').first().waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('#rows tr').count(), 4);
    assert.match(await frame.locator('#rows tr').first().innerText(), /regression\s+row 4\s+finished → failed/);
    assert.match(await frame.locator('#summary').innerText(), /failures\s+1\s+1/);
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.mouse.move(0, 0);
    await takeScreenshot(page, 'compare-batches.png');

    // The regression's row: its two results side by side.
    await frame.locator('#rows tr').first().click();
    await page.locator('.tab.active', { hasText: 'row 4 (regression)' }).waitFor({ timeout: 30_000 });
    // Its lines drawn: B's says the row failed (the editor draws spaces as non-breaking ones).
    await page.locator('.monaco-diff-editor .modified .view-lines', { hasText: /row\s4:\sfailed/ }).waitFor({ timeout: 15_000 });
    await page.locator('.monaco-diff-editor .original .view-lines', { hasText: /row\s4:\sfinished/ }).waitFor({ timeout: 15_000 });
  });
});
