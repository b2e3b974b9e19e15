// A person switching environments: the packaged extension in VS Code, a workspace whose
// agent-workflows.yaml names two real agent servers on 127.0.0.1 (dev, the default, and a protected
// prod), the active environment in the status bar, switched with its picker (a screenshot for the
// README), and a run on prod that asks first, naming it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import { openFile, openWorkbench, screenshotIfFailed, takeScreenshot } from './workbench';
import type { Workbench } from './workbench';

describe('UI: environments', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let dev: AgentServer;
  let prod: AgentServer;
  let agents: TempDir;

  before(async () => {
    agents = makeTempDir('agent-workflows-ui-envs-');
    const greet = [
      'version: 1',
      'name: Greet',
      'inputs:',
      '  who: { type: string, required: true }',
      'nodes:',
      '  hello:',
      '    type: template',
      '    text: "Hello {{ inputs.who }}!"',
      'outputs:',
      '  greeting: { from: "{{ nodes.hello.body }}" }',
      '',
    ].join('\n');
    writeFileSync(join(agents.path, 'greet.agent.yaml'), greet);
    dev = await startAgentServer({ directory: agents.path, port: 0, apiKey: 'ui-dev-key-0123456789', watch: false });
    prod = await startAgentServer({
      directory: agents.path,
      port: 0,
      apiKey: 'ui-prod-key-0123456789',
      watch: false,
    });
    writeFileSync(
      join(agents.path, 'agent-workflows.yaml'),
      [
        'default: dev',
        'environments:',
        '  dev:',
        `    baseUrl: ${dev.url}`,
        '    account: local',
        '  prod:',
        `    baseUrl: ${prod.url}`,
        '    account: local',
        '    protected: true',
        '',
      ].join('\n'),
    );
    workbench = await openWorkbench({
      extraFiles: {
        'greet.agent.yaml': join(agents.path, 'greet.agent.yaml'),
        'agent-workflows.yaml': join(agents.path, 'agent-workflows.yaml'),
      },
    });
  });
  after(async () => {
    await workbench?.close();
    await dev?.close();
    await prod?.close();
    agents?.remove();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('shows the environment in the status bar and switches it with the picker', async () => {
    const { page } = workbench;
    await openFile(page, 'greet.agent.yaml');
    const status = page.locator('.statusbar-item', { hasText: 'dev' }).first();
    await status.waitFor({ timeout: 30_000 });
    await page.locator('.codelens-decoration a', { hasText: 'Run agent (dev)' }).waitFor({ timeout: 30_000 });
    await status.click();
    const picker = page.locator('.quick-input-widget');
    await picker.waitFor({ timeout: 15_000 });
    const rows = picker.locator('.monaco-list-row');
    await rows.filter({ hasText: 'prod' }).waitFor({ timeout: 15_000 });
    const text = (await picker.innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, new RegExp(`dev[\\s\\S]*${dev.url.replace(/[.:/]/g, '\\$&')} · local`));
    assert.match(text, /prod[\s\S]*protected: every run asks first/);
    await page.mouse.move(0, 0);
    await takeScreenshot(page, 'environments.png');
    await rows.filter({ hasText: 'prod' }).first().click();
    await page.locator('.statusbar-item', { hasText: 'prod' }).first().waitFor({ timeout: 15_000 });
    await page.locator('.codelens-decoration a', { hasText: 'Run agent (prod)' }).waitFor({ timeout: 30_000 });
  });

  it('asks before a run on the protected environment, naming it; declined, nothing runs', async () => {
    const { page } = workbench;
    await page.locator('.codelens-decoration a', { hasText: 'Run agent (prod)' }).click({ timeout: 30_000 });
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    const text = await dialog.innerText();
    assert.match(text, /Run "Greet" on the protected environment "prod"\?/);
    assert.match(text, new RegExp(`${prod.url.replace(/[.:/]/g, '\\$&')}, account local`));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
    // That a declined run asks nothing more and sends nothing is proven where the command's end can
    // be awaited: test/integration/environments.test.ts ("switches with the picker…"). Here no
    // signal tells when it ended, and a wait of a fixed time would prove nothing.
  });
});
