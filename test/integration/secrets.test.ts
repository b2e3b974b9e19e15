// The workflow secrets commands in the real extension host: Set Secret… offers the names the
// workspace's agent files use and stores the value typed in a password box; Run Locally and the
// local agent server then send it to a real API on 127.0.0.1 without asking. Clear Secret… removes
// it: the next run asks again, and nothing is sent. A name typed by hand is checked, and no value
// reaches a log, output, setting or file.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { leaksOf, workspaceFolder } from './userData';
import { waitFor } from './wait';

const NAME = 'AW_CMD_TOKEN';
const TYPED_NAME = 'AW_TYPED_TOKEN';
const VALUE = `aw-cmd-secret-${randomBytes(12).toString('hex')}`;
const TYPED_VALUE = `aw-typed-secret-${randomBytes(12).toString('hex')}`;
const ANOTHER_NAME = '$(add) Another name…';

describe('workflow secrets commands', function () {
  this.timeout(60_000);
  let apiServer: TestServer;
  let folder: string;
  let ui: ScriptedUi;
  const agentFile = (): vscode.Uri => vscode.Uri.file(join(folder, 'token-echo.agent.yaml'));
  const echoes = (): string[] =>
    apiServer.requests.filter((request) => request.url === '/echo').map((request) => String(request.headers.authorization));

  before(async () => {
    await vscode.extensions.getExtension('agent-workflows.agent-workflows')?.activate();
    apiServer = await startServer((request, response) =>
      json(response, 200, { authorization: request.headers.authorization ? 'present' : 'absent' }),
    );
    folder = join(workspaceFolder(), 'secrets-cmds');
    mkdirSync(folder, { recursive: true });
    // The names offered are read once and again after an agent file changes: wait until the
    // workspace's watchers have seen this one, so the picker cannot show names read before it.
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '*.agent.yaml'));
    let seen = false;
    watcher.onDidCreate(() => {
      seen = true;
    });
    watcher.onDidChange(() => {
      seen = true;
    });
    try {
      // A file in a folder created a moment before can be missed by the watchers: written again
      // (a change they see) until they have seen it.
      for (let attempt = 0; attempt < 5 && !seen; attempt++) {
        writeFileSync(
          agentFile().fsPath,
          [
            'version: 1',
            'name: Token Echo',
            'nodes:',
            '  call:',
            '    type: api',
            '    method: GET',
            `    url: ${apiServer.url}/echo`,
            '    settings:',
            `      - "Authorization: Bearer {{ secrets.${NAME} }}"`,
            'outputs:',
            '  seen: { from: "{{ nodes.call.body.authorization }}" }',
            '',
          ].join('\n'),
        );
        await waitFor(() => seen, 'the watcher to see the agent file', 3000).catch(() => undefined);
      }
      await waitFor(() => seen, 'the watcher to see the agent file');
    } finally {
      watcher.dispose();
    }
  });

  after(async () => {
    await vscode.commands.executeCommand('agentWorkflows.stopLocalServer');
    await vscode.commands.executeCommand('agentWorkflows.clearSecret', NAME);
    await vscode.commands.executeCommand('agentWorkflows.clearSecret', TYPED_NAME);
    await apiServer?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  beforeEach(() => {
    ui = new ScriptedUi();
  });

  afterEach(() => {
    ui.restore();
    assert.deepEqual(ui.unexpected, [], 'every prompt was answered');
    assert.equal(ui.leftover, 0, 'every scripted answer was used');
  });

  /** Runs the agent file on the local agent server started for its folder, then stops the server. */
  async function runOnLocalServer(): Promise<ExecutionRecord> {
    const url = await vscode.commands.executeCommand<string>('agentWorkflows.startLocalServer', vscode.Uri.file(folder));
    try {
      const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', agentFile());
      assert.equal(record.target?.baseUrl, url);
      return record;
    } finally {
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.stopLocalServer'), true);
    }
  }

  it('Set Secret… offers the names the agent files use, stores the value typed, and local runs send it without asking', async () => {
    ui.pick((items, options) => {
      assert.equal(options?.title, 'Set Secret');
      const labels = items.map((item) => item.label);
      // This folder's agent file and the workspace's fixture (agent-tests/greeter.agent.yaml).
      assert.ok(labels.includes(NAME) && labels.includes('PROFILE_TOKEN'), labels.join(', '));
      assert.equal(labels.at(-1), ANOTHER_NAME);
      const ours = items.find((item) => item.label === NAME);
      assert.equal(ours?.description, 'not set');
      return ours;
    }).input((options) => {
      assert.equal(options.password, true, 'the value is typed in a password box');
      assert.equal(options.title, `Secret ${NAME}`);
      assert.ok(options.validateInput?.(''), 'an empty value is refused');
      return VALUE;
    });
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.setSecret'), true);
    assert.ok(
      ui.messages.some((message) => message.text === `Secret ${NAME} is set for local runs.`),
      JSON.stringify(ui.messages),
    );

    const local = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', agentFile());
    assert.equal(local.state, 'finished', local.error);
    assert.equal(local.mode, 'local');
    assert.deepEqual(local.outputs, { seen: 'present' });
    assert.deepEqual(echoes(), [`Bearer ${VALUE}`]);

    // The local agent server started from VS Code reads the same storage.
    const served = await runOnLocalServer();
    assert.equal(served.state, 'finished', served.error);
    assert.deepEqual(echoes(), [`Bearer ${VALUE}`, `Bearer ${VALUE}`]);

    assert.equal(ui.inputBoxes.length, 1, 'only Set Secret asked for the value');
    assert.equal(ui.messages.filter((message) => message.modal).length, 0, 'no run asked for the secret');

    // Offered again as set, to replace it (then cancelled at the name box).
    ui.pick((items) => {
      assert.equal(items.find((item) => item.label === NAME)?.description, 'set (replace it)');
      return items.find((item) => item.label === ANOTHER_NAME);
    }).input(undefined);
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.setSecret'), false);
  });

  it('Clear Secret… removes the value: Run Locally asks for it again and, declined, sends nothing', async () => {
    const sent = echoes().length;
    assert.ok(sent > 0, 'the previous test ran the agent with the secret');
    ui.pick((items, options) => {
      assert.equal(options?.title, 'Clear Secret');
      return items.find((item) => item.label === NAME);
    });
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.clearSecret'), true);
    assert.ok(
      ui.messages.some((message) => message.text === `Secret ${NAME} removed.`),
      JSON.stringify(ui.messages),
    );
    // Named again, it is not there to remove: said so, not "removed".
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.clearSecret', NAME), false);
    assert.ok(
      ui.messages.some((message) => message.text === `No secret ${NAME} is stored for agent runs: there was nothing to remove.`),
      JSON.stringify(ui.messages),
    );

    // The question is declined (the modal is dismissed): no run, nothing sent.
    const declined = await vscode.commands.executeCommand<ExecutionRecord | undefined>('agentWorkflows.runLocally', agentFile());
    assert.equal(declined, undefined);
    const ask = ui.messages.find((message) => message.modal);
    assert.match(ask?.text ?? '', new RegExp(`^Token Echo uses a secret not set in this VS Code: ${NAME}\\.`));
    assert.deepEqual(ask?.items, ['Set Secret']);
    assert.equal(ui.inputBoxes.length, 0, 'no value was asked for');

    // The local agent server reports the execution failed, naming the secret and the command that sets it.
    const served = await runOnLocalServer();
    assert.equal(served.state, 'problem', JSON.stringify(served));
    assert.match(served.error ?? '', new RegExp(`${NAME}.*Set Secret`));
    assert.equal(echoes().length, sent, 'nothing reached the API');

    // Set Secret… offers it as not set again (then cancelled).
    ui.pick((items) => {
      assert.equal(items.find((item) => item.label === NAME)?.description, 'not set');
      return items.find((item) => item.label === ANOTHER_NAME);
    }).input(undefined);
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.setSecret'), false);
  });

  it('Set Secret… refuses a name typed by hand that is not a secret name, saying what is wrong and how to fix it', async () => {
    ui.pick(ANOTHER_NAME)
      .input((options) => {
        const refusal = (value: string): string => String(options.validateInput?.(value) ?? '');
        assert.equal(
          refusal('1st-token'),
          '"1st-token" is not a secret name: use letters, digits and underscores, not starting with a digit (e.g. CRM_TOKEN).',
        );
        assert.match(refusal('CRM TOKEN'), /^"CRM TOKEN" is not a secret name: use letters, digits and underscores/);
        assert.match(refusal('{{ secrets.CRM_TOKEN }}'), /is not a secret name/);
        assert.equal(refusal(''), 'Enter the name of the secret (e.g. CRM_TOKEN), or press Escape to cancel.');
        assert.equal(refusal(TYPED_NAME), '');
        return TYPED_NAME;
      })
      .input(TYPED_VALUE);
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.setSecret'), true);
    assert.ok(ui.messages.some((message) => message.text === `Secret ${TYPED_NAME} is set for local runs.`));

    // Stored under the name typed: Clear Secret… offers it, and removes it; Set Secret… no longer lists it.
    ui.pick((items) => items.find((item) => item.label === TYPED_NAME));
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.clearSecret'), true);
    ui.pick((items) => {
      assert.ok(!items.some((item) => item.label === TYPED_NAME), 'no longer stored, used by no agent file');
      return items.find((item) => item.label === ANOTHER_NAME);
    }).input(undefined);
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.setSecret'), false);
  });

  it('never writes a secret set or cleared through the commands to logs, outputs, settings or files', () => {
    assert.deepEqual(
      leaksOf([
        ['secret set from the picker', VALUE],
        ['secret set under a typed name', TYPED_VALUE],
      ]),
      [],
    );
  });
});
