// A person's run of an agent: the packaged extension in VS Code, a real agent server on 127.0.0.1,
// the API key typed into "Set API Key", an agent run from its code lens with its input typed in,
// the result in the Agent Executions view and the Agent Workflows output (screenshots for the
// README), and a run that keeps being watched across a window reload.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import { extensionLogs } from './extensionLog';
import { answerInput, openFile, openWorkbench, runCommand, screenshotIfFailed, takeScreenshot } from './workbench';
import type { Workbench } from './workbench';

const KEY = `ui-key-${Date.now().toString(36)}`;

/** Polls `find` until it gives a value (the UI's own waits poll the same way). */
async function waitUntil<T>(find: () => T | undefined, what: string, limitMs: number): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    assert.ok(Date.now() - started < limitMs, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('UI: running an agent', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let server: AgentServer;
  let front: TestServer;
  /** When each status read reached the agent server (through `front`). */
  const statusReads: number[] = [];
  let api: TestServer;
  let agents: TempDir;
  /** Answers the held requests of a path (/slow, /hold), and every later one at once. */
  let release: (path: string) => void = () => undefined;

  before(async () => {
    const released = new Set<string>();
    const waiting = new Map<string, (() => void)[]>();
    api = await startServer((request, response) => {
      const answer = (): void => json(response, 200, { summary: 'Three open tickets, one urgent.', count: 3 });
      const path = request.url ?? '';
      if ((path === '/slow' || path === '/hold') && !released.has(path)) waiting.set(path, [...(waiting.get(path) ?? []), answer]);
      else answer();
    });
    release = (path) => {
      released.add(path);
      for (const answer of waiting.get(path)?.splice(0) ?? []) answer();
    };
    agents = makeTempDir('agent-workflows-ui-agents-');
    const greet = [
      'version: 1',
      'name: Greet',
      'description: Says hello.',
      'inputs:',
      '  who: { type: string, required: true, description: Who to greet }',
      'nodes:',
      '  hello:',
      '    type: template',
      '    text: "Hello {{ inputs.who }}!"',
      'outputs:',
      '  greeting: { from: "{{ nodes.hello.body }}" }',
      '',
    ].join('\n');
    const tickets = [
      'version: 1',
      'name: Ticket digest',
      'nodes:',
      '  fetch:',
      '    type: api',
      '    method: GET',
      `    url: ${api.url}/slow`,
      'outputs:',
      '  summary: { from: "{{ nodes.fetch.body.summary }}" }',
      '  count: { from: "{{ nodes.fetch.body.count }}" }',
      '',
    ].join('\n');
    writeFileSync(join(agents.path, 'greet.agent.yaml'), greet);
    writeFileSync(join(agents.path, 'tickets.agent.yaml'), tickets);
    writeFileSync(
      join(agents.path, 'held.agent.yaml'),
      tickets.replace('name: Ticket digest', 'name: Held digest').replace(`${api.url}/slow`, `${api.url}/hold`),
    );
    // The held call waits out a window reload, which takes more than a node's usual 30 s on a busy machine.
    server = await startAgentServer({ directory: agents.path, port: 0, apiKey: KEY, watch: false, engine: { nodeTimeoutMs: 180_000 } });
    // In front of the agent server: a log of when each status read arrives (the reload test reads it).
    front = await startServer(async (request, response, body) => {
      if (/\/status$/.test(request.url ?? '')) statusReads.push(Date.now());
      const answer = await fetch(`${server.url}${request.url ?? ''}`, {
        method: request.method ?? 'GET',
        headers: Object.fromEntries(
          Object.entries(request.headers).filter(
            (entry): entry is [string, string] =>
              typeof entry[1] === 'string' &&
              !['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(entry[0]),
          ),
        ),
        ...(body.length ? { body } : {}),
      });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      response.end(Buffer.from(await answer.arrayBuffer()));
    });
    workbench = await openWorkbench({
      settings: { 'agentWorkflows.baseUrl': front.url, 'agentWorkflows.account': 'local' },
      extraFiles: Object.fromEntries(
        ['greet', 'tickets', 'held'].map((name) => [`${name}.agent.yaml`, join(agents.path, `${name}.agent.yaml`)]),
      ),
    });
  });
  after(async () => {
    await workbench?.close();
    await front?.close();
    await server?.close();
    await api?.close();
    agents?.remove();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('asks for the API key from the executions view welcome, in a password box', async () => {
    const { page } = workbench;
    // With no key stored, the executions view welcomes with a Set API Key button.
    await runCommand(page, 'Agent Workflows: Focus on Agent Executions View');
    const welcome = page.locator('.welcome-view-content');
    await welcome.filter({ hasText: 'No API key is set' }).waitFor({ timeout: 15_000 });
    await welcome.getByRole('button', { name: 'Set API Key' }).click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    assert.equal(await input.getAttribute('type'), 'password');
    await answerInput(page, KEY);
    await page.locator('.notification-toast', { hasText: `API key set for ${front.url}` }).waitFor({ timeout: 15_000 });
    // Now the view offers to run an agent instead.
    await welcome.filter({ hasText: 'No executions yet' }).waitFor({ timeout: 15_000 });
  });

  it('runs an agent from its code lens and shows the result in the view and the output', async () => {
    const { page } = workbench;
    await openFile(page, 'greet.agent.yaml');
    await page.locator('.codelens-decoration a', { hasText: 'Run agent' }).click({ timeout: 30_000 });
    await answerInput(page, 'Ada');
    await page.locator('.notification-toast', { hasText: 'Greet finished' }).waitFor({ timeout: 30_000 });

    // The results output shows the run.
    const output = page.locator('.part.panel .monaco-editor .view-lines');
    await output.filter({ hasText: 'Hello Ada!' }).waitFor({ timeout: 15_000 });
    // The panel is small: check what it shows of the end of the run.
    const text = (await output.innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /status: +finished after/);
    assert.match(text, /"greeting": "Hello Ada!"/);
    assert.doesNotMatch(text, new RegExp(KEY));

    // The executions view: the run with its state and outputs.
    await runCommand(page, 'Agent Workflows: Focus on Agent Executions View');
    const view = page.locator('.pane-body[aria-label*="Agent Executions" i], .pane', { hasText: 'Greet' }).first();
    const row = page.locator('.monaco-list-row', { hasText: 'Greet' }).filter({ hasText: 'finished' }).first();
    await row.waitFor({ timeout: 15_000 });
    await row.locator('.monaco-tl-twistie').click();
    await page.locator('.monaco-list-row', { hasText: 'greeting' }).first().waitFor({ timeout: 15_000 });
    assert.match(await view.innerText(), /Hello Ada!/);
    // A clean picture for the README: no toasts over the output.
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.locator('.notification-toast').first().waitFor({ state: 'hidden', timeout: 15_000 });
    await page.mouse.move(0, 0);
    await takeScreenshot(page, 'run.png');
  });

  it('stops watching when the progress notification is cancelled, and watches again from the view', async () => {
    const { page } = workbench;
    await openFile(page, 'held.agent.yaml');
    await page.locator('.codelens-decoration a', { hasText: 'Run agent' }).click({ timeout: 30_000 });
    const progress = page.locator('.notification-toast', { hasText: 'Running: Held digest' });
    await progress.waitFor({ timeout: 30_000 });
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.notification-toast', { hasText: 'Stopped watching Held digest' }).waitFor({ timeout: 15_000 });

    await runCommand(page, 'Agent Workflows: Focus on Agent Executions View');
    const row = page.locator('.part.sidebar .monaco-list-row', { hasText: 'Held digest' }).filter({ hasText: 'stopped watching' }).first();
    await row.waitFor({ timeout: 15_000 });
    release('/hold');
    await row.click({ button: 'right' });
    // The menu takes the highlighted item on Enter (a click can land before it is ready).
    await page.locator('.context-view .action-label', { hasText: 'Watch Again' }).hover({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    // Watched again to its end: the view says finished (its toast may already be in the notification
    // center when another one holds the corner, so the view is what is checked).
    await page
      .locator('.part.sidebar .monaco-list-row', { hasText: 'Held digest' })
      .filter({ hasText: 'finished' })
      .first()
      .waitFor({ timeout: 30_000 });
  });

  it('starts the local agent server from the command palette, shows it in the status bar, and stops it', async () => {
    const { page } = workbench;
    await runCommand(page, 'Agent Workflows: Start Local Agent Server');
    const status = page.locator('.statusbar-item', { hasText: /Local agents :\d+/ });
    await status.waitFor({ timeout: 30_000 });
    // What it serves: the workspace's 8 agent files (agent-tests/greeter.agent.yaml among them); broken.agent.yaml and authoring.agent.yaml (its plain Basic value) cannot run.
    await runCommand(page, 'Notifications: Show Notifications');
    await page
      .locator('.notifications-center .notification-list-item-message', {
        hasText: /Local agent server on http:\/\/127\.0\.0\.1:\d+: 8 agent files \(2 with errors\)/,
      })
      .waitFor({ timeout: 15_000 });
    await runCommand(page, 'Notifications: Clear All Notifications');
    // Clicked only once the palette has closed and the notifications are gone, so the click lands
    // on the item and its notification is the only one.
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    await page.locator('.notification-list-item').first().waitFor({ state: 'hidden', timeout: 15_000 });
    // The notification shows as a toast, or in the notification center when that is still open.
    // A click right after the palette closes is sometimes taken as focus only; click again then.
    const stop = page
      .locator('.notification-list-item', { hasText: 'Local agent server on http://127.0.0.1:' })
      .filter({ visible: true })
      .first()
      .getByRole('button', { name: 'Stop' });
    for (let attempt = 1; ; attempt++) {
      await status.click();
      const appeared = await stop.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      );
      if (appeared) break;
      assert.ok(attempt < 3, 'a click on the status bar item shows the server with Stop');
    }
    await stop.click();
    await status.waitFor({ state: 'hidden', timeout: 15_000 });
  });

  it('keeps watching a running execution across a window reload', async () => {
    const { page } = workbench;
    await openFile(page, 'tickets.agent.yaml');
    await page.locator('.codelens-decoration a', { hasText: 'Run agent' }).click({ timeout: 30_000 });
    // Run on its own, no key is set yet (the first test of the file sets it).
    const running = page.locator('.statusbar-item', { hasText: 'Ticket digest running' });
    const askedForKey = page.locator('.monaco-dialog-box', { hasText: 'No API key is set' });
    await running.or(askedForKey).first().waitFor({ timeout: 30_000 });
    if (await askedForKey.isVisible()) {
      await askedForKey.getByRole('button', { name: 'Set API Key' }).click();
      await answerInput(page, KEY);
    }
    await running.waitFor({ timeout: 30_000 });
    // As a person reloads: the workbench shuts the extension host down and starts a new one.
    await runCommand(page, 'Developer: Reload Window');
    await page.waitForEvent('load', { timeout: 60_000 });
    const reloadedAt = Date.now();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // Watched again after the reload (the status bar says so), then it finishes.
    await page.locator('.statusbar-item', { hasText: 'Ticket digest running' }).waitFor({ timeout: 60_000 });
    // The new window reads the status as soon as it is up, not after waiting out a schedule.
    const firstRead = await waitUntil(() => statusReads.find((at) => at >= reloadedAt), 'a status read after the reload', 60_000);
    // Measured: 6 to 22 s on a shared 2-core machine, most of it the workbench and the extension host
    // starting (the issue saw 33 s before the watch read at once): shown, not bounded, as it is VS Code's.
    console.log(`      first status read ${firstRead - reloadedAt} ms after the reloaded page loaded`);
    // The extension's own share of that wait, from its log: from the start of activation to the first
    // status read, less the time it waited for VS Code to hand over the API key (VS Code's start,
    // before activation, is not in it). It loads the commands' code and reads the key at once.
    const resumed = await waitUntil(
      () => {
        for (const log of extensionLogs(workbench.userDataDir).reverse())
          for (const { message } of log) {
            const match =
              /^Status of \S+ read (\d+) ms after activation began, (\d+) ms of it waiting for its API key from VS Code\.$/.exec(message);
            if (match) return { readMs: Number(match[1]), keyWaitMs: Number(match[2]) };
          }
        return undefined;
      },
      "the extension's log of the first status read after the reload",
      30_000,
    );
    console.log(
      `      the extension read the status ${resumed.readMs} ms after its activation began (${resumed.keyWaitMs} ms of it waiting for VS Code's secret storage)`,
    );
    assert.ok(
      resumed.readMs - resumed.keyWaitMs <= 1000,
      `the extension took ${resumed.readMs - resumed.keyWaitMs} ms of its own from activation to the first status read`,
    );
    release('/slow');
    await page.locator('.notification-toast', { hasText: 'Ticket digest finished' }).waitFor({ timeout: 60_000 });
    await runCommand(page, 'Agent Workflows: Focus on Agent Executions View');
    await page
      .locator('.monaco-list-row', { hasText: 'Ticket digest' })
      .filter({ hasText: 'finished' })
      .first()
      .waitFor({ timeout: 15_000 });
  });
});
