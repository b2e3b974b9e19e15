// A person running an agent over a dataset: the packaged extension in VS Code, an agent deployed on a
// real agent server on 127.0.0.1 calling a real API, "Run Agent on Dataset…" from the explorer's
// menu on a .jsonl file, the rows confirmed, the results table (a screenshot for the README), and a
// batch that goes on by itself across a window reload.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import { answerInput, openWorkbench, pickItem, runCommand, screenshotIfFailed, takeScreenshot } from './workbench';
import type { Workbench } from './workbench';

const KEY = `ui-batch-key-${Date.now().toString(36)}`;

const PEOPLE = ['Ada', 'Grace', 'Nobody', 'Alan', 'Barbara', 'Edsger', 'Margaret', 'Donald', 'Frances', 'John'];

describe('UI: datasets', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let server: AgentServer;
  let api: TestServer;
  let agents: TempDir;
  const held: (() => void)[] = [];
  let holding = false;

  before(async () => {
    api = await startServer((request, response) => {
      const who = decodeURIComponent(request.url?.split('/').pop() ?? '');
      const answer = (): void =>
        who === 'Nobody'
          ? json(response, 500, { error: 'no such person' })
          : json(response, 200, { title: `Dr ${who}`, years: who.length * 7 });
      if (holding && who === 'Held') held.push(answer);
      else answer();
    });
    agents = makeTempDir('agent-workflows-ui-batch-');
    server = await startAgentServer({ directory: agents.path, port: 0, apiKey: KEY, watch: false });
    const agent = [
      'version: 1',
      'name: Lookup',
      'deployment:',
      `  baseUrl: ${server.url}`,
      '  account: local',
      '  agent: lookup',
      'inputs:',
      '  who: { type: string, required: true }',
      'nodes:',
      '  person:',
      '    type: api',
      '    method: GET',
      `    url: ${api.url}/people/{{ inputs.who }}`,
      'outputs:',
      '  title: { from: "{{ nodes.person.body.title }}" }',
      '  years: { from: "{{ nodes.person.body.years }}" }',
      '',
    ].join('\n');
    writeFileSync(join(agents.path, 'lookup.agent.yaml'), agent);
    await server.rescan();
    writeFileSync(join(agents.path, 'people.jsonl'), `${PEOPLE.map((who) => JSON.stringify({ who })).join('\n')}\n{"whom":"Typo"}\n`);
    writeFileSync(join(agents.path, 'held.jsonl'), '{"who":"Ada"}\n{"who":"Held"}\n');
    workbench = await openWorkbench({
      extraFiles: Object.fromEntries(['lookup.agent.yaml', 'people.jsonl', 'held.jsonl'].map((name) => [name, join(agents.path, name)])),
    });
  });
  after(async () => {
    for (const answer of held.splice(0)) answer();
    await workbench?.close();
    await server?.close();
    await api?.close();
    agents?.remove();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  async function runOn(page: Page, dataFile: string, rows: number): Promise<void> {
    if (!(await page.locator('.explorer-viewlet').isVisible())) await runCommand(page, 'View: Show Explorer');
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: dataFile }).first().click({ button: 'right', timeout: 30_000 });
    // The workbench's context menu takes the item under the mouse on Enter (a click can land before it is ready).
    const item = page.locator('.context-view .action-label', { hasText: 'Run Agent on Dataset…' });
    await item.hover({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await pickItem(page, 'lookup.agent.yaml');
    await pickItem(page, 'On the deployment');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    assert.match(await dialog.innerText(), new RegExp(`Run "Lookup" on ${rows} rows of ${dataFile.replace('.', '\\.')}\\?`));
    await dialog.getByRole('button', { name: `Run ${rows} Rows` }).click();
  }

  it('runs an agent on a dataset from the explorer and shows the results table', async () => {
    const { page } = workbench;
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: 'lookup.agent.yaml' }).first().click({ timeout: 30_000 });
    await runCommand(page, 'Agent Workflows: Set API Key');
    await answerInput(page, KEY);
    await page.locator('.notification-toast', { hasText: `API key set for ${server.url}` }).waitFor({ timeout: 15_000 });
    await runOn(page, 'people.jsonl', 11);
    const done = page.locator('.notification-toast', { hasText: 'Batch Lookup: done' });
    await done.waitFor({ timeout: 60_000 });
    assert.match(await done.innerText(), /11\/11 · 1 failed · 1 skipped/);
    await done.getByRole('button', { name: 'Open Results' }).click();
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe');
    await frame.locator('#rows tr').first().waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('#rows tr').count(), 11);
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.mouse.move(0, 0);
    await takeScreenshot(page, 'dataset-results.png');
    // Filtered to the failed rows: one.
    await frame.locator('#status-filter').selectOption('failed');
    await page.waitForTimeout(300);
    assert.equal(await frame.locator('#rows tr').count(), 1);
  });

  it('goes on with a batch across a window reload', async () => {
    const { page } = workbench;
    holding = true;
    await runOn(page, 'held.jsonl', 2);
    await page.locator('.notification-toast', { hasText: 'Batch: Lookup' }).waitFor({ timeout: 30_000 });
    await runCommand(page, 'Developer: Reload Window');
    await page.waitForEvent('load', { timeout: 60_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The batch goes on by itself in the new window (its progress shows), then ends once released.
    await page.locator('.notification-toast', { hasText: 'Batch: Lookup' }).waitFor({ timeout: 60_000 });
    holding = false;
    for (const answer of held.splice(0)) answer();
    await page.locator('.notification-toast', { hasText: 'Batch Lookup: done' }).waitFor({ timeout: 60_000 });
    await runCommand(page, 'Agent Workflows: Focus on Agent Executions View');
    await page
      .locator('.monaco-list-row', { hasText: 'batch of held.jsonl' })
      .filter({ hasText: 'finished' })
      .first()
      .waitFor({ timeout: 15_000 });
  });
});
