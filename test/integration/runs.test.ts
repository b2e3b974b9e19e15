// Running agents from VS Code, in the real extension host, against a real agent server on
// 127.0.0.1 (the local agent server of src/core, serving real files) and a real API it calls:
// the API key set through its command, runs with string, file and choice inputs, results in the
// output channel and the executions tree, polling by id, cancel and watch again, a 401 that offers
// Set API Key, Copy as curl, Run Locally with secrets, the local server started from its command,
// and no key in any log, output, setting or file afterwards.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { createServer as createTlsServer } from 'node:tls';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import { startExecution } from '../../src/core/service/agentClient';
import type { AgentWorkflowsApi } from '../../src/extension';
import type { Exchange } from '../../src/core/exchange/exchange';
import { DEMO_SECRETS, startMockApis } from '../../scripts/demo/mockApis';
import { startConnectProxy } from '../support/connectProxy';
import { startFakeService } from '../support/fakeAgentService';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { filesUnder, leaksOf, resultsChannelText, userDataFilesEndingWith, workspaceFolder } from './userData';
import { waitFor } from './wait';

const KEY = `aw-test-key-${randomBytes(12).toString('hex')}`;
const WRONG_KEY = `aw-wrong-key-${randomBytes(12).toString('hex')}`;
const SECRET_TOKEN = `aw-secret-token-${randomBytes(12).toString('hex')}`;
const REUSED_KEY = `aw-reused-key-${randomBytes(12).toString('hex')}`;
const CLEARED_KEY = `aw-cleared-key-${randomBytes(12).toString('hex')}`;
const TYPED_KEY = `aw-typed-key-${randomBytes(12).toString('hex')}`;
// Origins with a key but no server: only their keys are offered, nothing is ever sent to them.
const UNUSED_ORIGIN = 'http://127.0.0.1:9';
const OTHER_UNUSED_ORIGIN = 'http://127.0.0.1:7';

function extensionRoot(): string {
  const extension = vscode.extensions.getExtension('agent-workflows.agent-workflows');
  assert.ok(extension);
  return extension.extensionUri.fsPath;
}

/** An API the agents call: /wait answers when released, /echo answers with what it received. */
async function startApi(): Promise<TestServer & { release(): void; waiting(): number }> {
  let waiting: (() => void)[] = [];
  let released = false;
  const server = await startServer((request, response) => {
    if (request.url?.startsWith('/wait')) {
      const answer = (): void => json(response, 200, { done: true });
      if (released) answer();
      else waiting.push(answer);
      return;
    }
    json(response, 200, { authorization: request.headers.authorization ? 'present' : 'absent', path: request.url });
  });
  return Object.assign(server, {
    release: () => {
      released = true;
      for (const answer of waiting) answer();
      waiting = [];
    },
    waiting: () => waiting.length,
  });
}

describe('runs', function () {
  this.timeout(60_000);
  let api: AgentWorkflowsApi;
  let server: AgentServer;
  let externalApi: Awaited<ReturnType<typeof startApi>>;
  let folder: string;
  let ui: ScriptedUi;
  const uriOf = (name: string): vscode.Uri => vscode.Uri.file(join(folder, name));
  const notes = join(tmpdir(), `aw-notes-${process.pid}.txt`);

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    api = await extension.activate();
    externalApi = await startApi();
    folder = join(workspaceFolder(), 'runs');
    mkdirSync(folder, { recursive: true });
    writeFileSync(notes, 'twelve bytes');
    writeFileSync(
      join(folder, 'report.agent.yaml'),
      [
        'version: 1',
        'name: Report',
        'inputs:',
        '  who: { type: string, required: true, description: Who the report is for }',
        '  doc: { type: file, required: true, accept: [.txt] }',
        '  tone: { type: string, enum: [plain, friendly], default: plain }',
        'nodes:',
        '  compose:',
        '    type: template',
        '    text: "{{ inputs.tone }} report for {{ inputs.who }} about {{ inputs.doc.name }} ({{ inputs.doc.size }} bytes)"',
        'outputs:',
        '  report: { from: "{{ nodes.compose.body }}" }',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(folder, 'greet.agent.yaml'),
      [
        'version: 1',
        'name: Greet',
        'inputs:',
        '  who: { type: string, required: true }',
        'nodes:',
        '  hello:',
        '    type: template',
        '    text: "Hello {{ inputs.who }}"',
        'outputs:',
        '  greeting: { from: "{{ nodes.hello.body }}" }',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(folder, 'slow.agent.yaml'),
      [
        'version: 1',
        'name: Slow',
        'nodes:',
        '  wait:',
        '    type: api',
        '    method: GET',
        `    url: ${externalApi.url}/wait`,
        'outputs:',
        '  done: { from: "{{ nodes.wait.body.done }}" }',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(folder, 'lookup.agent.yaml'),
      [
        'version: 1',
        'name: Lookup',
        'nodes:',
        '  call:',
        '    type: api',
        '    method: GET',
        `    url: ${externalApi.url}/echo?who=lookup`,
        'outputs:',
        '  path: { from: "{{ nodes.call.body.path }}" }',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(folder, 'secretive.agent.yaml'),
      [
        'version: 1',
        'name: Secretive',
        'nodes:',
        '  call:',
        '    type: api',
        '    method: GET',
        `    url: ${externalApi.url}/echo`,
        '    settings:',
        '      - "Authorization: Bearer {{ secrets.ECHO_TOKEN }}"',
        'outputs:',
        '  seen: { from: "{{ nodes.call.body.authorization }}" }',
        '',
      ].join('\n'),
    );
    // agents.invalid: the name the proxy test reaches the server by, as a service elsewhere.
    server = await startAgentServer({ directory: folder, port: 0, apiKey: KEY, watch: false, allowedHosts: ['agents.invalid'] });
    const config = vscode.workspace.getConfiguration('agentWorkflows');
    await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
    await config.update('account', 'local', vscode.ConfigurationTarget.Workspace);
  });

  after(async () => {
    const config = vscode.workspace.getConfiguration('agentWorkflows');
    await config.update('baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await config.update('account', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('agentWorkflows.stopLocalServer');
    await server?.close();
    await externalApi?.close();
    rmSync(folder, { recursive: true, force: true });
    rmSync(notes, { force: true });
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    ui = new ScriptedUi();
  });

  afterEach(() => {
    ui.restore();
    assert.deepEqual(ui.unexpected, [], 'every prompt was answered');
    assert.equal(ui.leftover, 0, 'every scripted answer was used');
  });

  it('sets the API key of the service origin through the command, checking what is pasted', async () => {
    ui.input((options) => {
      assert.equal(options.password, true);
      assert.match(options.title ?? '', new RegExp(`API key for ${server.url.replace(/[.]/g, '\\.')}`));
      assert.ok(options.validateInput?.(''), 'an empty key is refused');
      assert.ok(options.validateInput?.(`Bearer ${KEY}`), 'a key with "Bearer" is refused');
      assert.ok(options.validateInput?.('two words'), 'a key with a space is refused');
      return `  ${KEY}\n`;
    });
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey'), true);
    assert.ok(
      ui.messages.some((message) => message.text === `API key set for ${server.url}.`),
      JSON.stringify(ui.messages),
    );
  });

  it('runs an agent with text, file and choice inputs, and shows the result in the output and the tree', async () => {
    ui.input('Ada').openFile(vscode.Uri.file(notes)).pick('friendly');
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('report.agent.yaml'));
    assert.equal(record.state, 'finished', record.error);
    assert.deepEqual(record.outputs, { report: 'friendly report for Ada about aw-notes-' + process.pid + '.txt (12 bytes)' });
    assert.deepEqual(record.inputs, { who: 'Ada', tone: 'friendly', doc: { file: `aw-notes-${process.pid}.txt`, size: 12 } });
    assert.ok(record.executionId);
    // The prompts said what each input is, and the file dialog was filtered by `accept`.
    assert.match(ui.inputBoxes[0]?.prompt ?? '', /who \(string, required\) · Who the report is for/);
    assert.deepEqual(Object.values(ui.dialogs[0]?.filters ?? {})[0], ['txt']);
    assert.ok(
      ui.messages.some(
        (message) => message.kind === 'info' && /^Report finished in/.test(message.text) && message.items.includes('Open Result'),
      ),
    );

    // The tree: newest first, with the state, and the inputs and outputs as children.
    const [top] = (await api.executionsTree.getChildren()) ?? [];
    assert.ok(top);
    assert.equal(top.label, 'Report');
    assert.match(String(top.description), /^finished · just now · /);
    assert.match(String(top.contextValue), /^execution-finished-deployed-id-outputs$/);
    const groups = (await api.executionsTree.getChildren(top)) ?? [];
    // The local server sends a per-node trace with the status; the tree shows it too (and its
    // exchanges, read from the server: this agent has none).
    assert.deepEqual(
      groups.map((group) => group.label),
      ['Inputs', 'Outputs', 'Trace'],
    );
    const outputs = (await api.executionsTree.getChildren(groups[1])) ?? [];
    assert.equal(outputs[0]?.label, 'report');
    assert.match(String(outputs[0]?.description), /friendly report for Ada/);
    const inputs = (await api.executionsTree.getChildren(groups[0])) ?? [];
    assert.deepEqual(
      inputs.map((item) => `${String(item.label)}=${String(item.description)}`),
      ['who="Ada"', 'tone="friendly"', `doc=aw-notes-${process.pid}.txt (12 B)`],
    );

    // The results channel, as written to disk: agent, id, inputs (file by name and size), outputs.
    const text = await waitFor(() => {
      const all = resultsChannelText();
      return all.includes(`status:    finished`) && all.includes(record.executionId!) ? all : undefined;
    }, 'the run in the Agent Workflows output');
    assert.match(text, /▶ Report/);
    assert.match(text, new RegExp(`doc = aw-notes-${process.pid}\\.txt \\(12 B\\)`));
    assert.match(text, /"report": "friendly report for Ada/);
    assert.doesNotMatch(text, /twelve bytes/, 'file contents are never shown');
  });

  it('remembers the inputs of a file and offers them first next time', async () => {
    ui.input((options) => {
      assert.equal(options.value, 'Ada');
      return options.value;
    })
      .pick((items) => {
        assert.equal(items[0]?.description, 'used last time');
        return items[0];
      })
      .pick((items) => {
        assert.equal(items[0]?.label, 'friendly', 'the value used last time comes first');
        return items[0];
      });
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('report.agent.yaml'));
    assert.equal(record.state, 'finished', record.error);
  });

  it('copies the run of an execution as a curl command without the key', async () => {
    const [top] = (await api.executionsTree.getChildren()) ?? [];
    const command = await vscode.commands.executeCommand<string>('agentWorkflows.copyAsCurl', top);
    assert.equal(await vscode.env.clipboard.readText(), command);
    assert.match(command, /\$AGENT_WORKFLOWS_API_KEY/);
    assert.ok(!command.includes(KEY));
    assert.match(command, /\/api\/local\/agent\/report\/execute\/multipart/);
    assert.match(command, /--form-string 'payload=\{"inputs":\{"who":"Ada","tone":"friendly"\},"stream":false\}'/);
    assert.match(command, /\/api\/local\/agent\/[0-9a-f-]{36}\/status/);

    // From the file (the code lens): the inputs used last, with no prompt.
    const fromFile = await vscode.commands.executeCommand<string>('agentWorkflows.copyAsCurl', uriOf('report.agent.yaml'));
    assert.match(fromFile, /\/api\/local\/agent\/report\/execute\/multipart/);
    assert.ok(fromFile.includes(`-F 'doc=@"${notes}";type=text/plain'`), fromFile);
    assert.ok(!fromFile.includes(KEY));
  });

  it('does not run a file with errors, and links to the Problems panel', async () => {
    const broken = vscode.Uri.joinPath(vscode.Uri.file(workspaceFolder()), 'broken.agent.yaml');
    const record = await vscode.commands.executeCommand<ExecutionRecord | undefined>('agentWorkflows.runAgent', broken);
    assert.equal(record, undefined);
    const error = ui.messages.find((message) => message.kind === 'error');
    assert.ok(error, JSON.stringify(ui.messages));
    assert.match(error.text, /^broken\.agent\.yaml has \d+ errors and cannot run until they are fixed: line \d+: /);
    assert.deepEqual(error.items, ['Show Problems', 'Open File']);
    assert.equal(ui.inputBoxes.length, 0, 'no input was asked for');
  });

  it('cuts long outputs in the output and opens the whole result on request', async () => {
    const config = vscode.workspace.getConfiguration('agentWorkflows');
    await config.update('results.maxOutputLength', 200, vscode.ConfigurationTarget.Workspace);
    try {
      const long = 'x'.repeat(1000);
      ui.onMessage = (message) => (message.items.includes('Open Result') ? 'Open Result' : undefined);
      ui.input(long);
      const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
      assert.equal(record.state, 'finished', record.error);
      const finished = ui.messages.find((message) => message.kind === 'info' && message.text.startsWith('Greet finished'));
      assert.match(finished?.text ?? '', /The output is long: open the result to see all of it\./);
      const document = await waitFor(
        () => (vscode.window.activeTextEditor?.document.languageId === 'json' ? vscode.window.activeTextEditor.document : undefined),
        'the result document',
      );
      assert.deepEqual((JSON.parse(document.getText()) as { outputs: unknown }).outputs, { greeting: `Hello ${long}` });
      const text = await waitFor(() => {
        const all = resultsChannelText();
        return all.includes('more characters: open the full result') ? all : undefined;
      }, 'the cut output in the Agent Workflows output');
      assert.ok(!text.includes(`Hello ${long}`), 'the output shows only the beginning');
    } finally {
      await config.update('results.maxOutputLength', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('asks which agent file to run when no agent editor is active', async () => {
    ui.pick((items, options) => {
      assert.equal(options?.title, 'Run Agent');
      assert.ok(
        items.some((item) => item.label === 'hello.agent.yaml'),
        items.map((item) => item.label).join(', '),
      );
      return items.find((item) => item.label === 'greet.agent.yaml');
    }).input('Eve');
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent');
    assert.equal(record.state, 'finished', record.error);
    assert.deepEqual(record.outputs, { greeting: 'Hello Eve' });
  });

  it('polls an execution by its id', async () => {
    const started = await startExecution({ baseUrl: server.url, account: 'local', agent: 'greet', apiKey: KEY }, { who: 'Bob' });
    ui.input((options) => {
      assert.ok(options.validateInput?.('../../etc/passwd'), 'a path is not an id');
      return started.executionId;
    });
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.pollExecution');
    assert.equal(record.state, 'finished', record.error);
    assert.equal(record.executionId, started.executionId);
    assert.deepEqual(record.outputs, { greeting: 'Hello Bob' });
  });

  it('stops watching when cancelled, keeps the execution, and watches it again', async () => {
    const running = vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('slow.agent.yaml'));
    await waitFor(() => externalApi.waiting() > 0, 'the slow agent to call the API');
    ui.pick((items) => items.find((item) => item.label === 'Slow'));
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.executions.stopWatching'), true);
    const stopped = await running;
    assert.equal(stopped.state, 'stopped');
    assert.ok(stopped.executionId);
    assert.ok(ui.messages.some((message) => /^Stopped watching Slow; it may still be running/.test(message.text)));
    const [top] = (await api.executionsTree.getChildren()) ?? [];
    assert.match(String(top?.description), /^stopped watching/);

    externalApi.release();
    ui.pick((items) => items.find((item) => item.label === 'Slow'));
    const watched = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.executions.watchAgain');
    assert.equal(watched.state, 'finished', watched.error);
    assert.equal(watched.executionId, stopped.executionId);
    assert.deepEqual(watched.outputs, { done: true });
    assert.ok(
      watched.trace?.some((entry) => entry.node === 'wait' && entry.status === 'succeeded'),
      'the local server sends the trace',
    );
  });

  it('offers Set API Key when the service refuses the key', async () => {
    ui.input(WRONG_KEY);
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', server.url), true);
    // The error notification's "Set API Key" is clicked, and the right key typed.
    ui.onMessage = (message) => (message.kind === 'error' && message.items.includes('Set API Key') ? 'Set API Key' : undefined);
    ui.input('Bob', KEY);
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
    assert.equal(record.state, 'error');
    assert.match(record.error ?? '', /API key/i);
    const error = ui.messages.find((message) => message.kind === 'error');
    assert.ok(error, 'an error notification');
    assert.deepEqual(error.items, ['Set API Key', 'Show Output']);
    await waitFor(
      () => ui.messages.some((message) => message.text === `API key set for ${server.url}.`),
      'the key to be set again from the notification',
    );
    ui.onMessage = () => undefined;
    ui.input('Bob');
    const again = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
    assert.equal(again.state, 'finished', again.error);
  });

  it('escapes control characters a service sends before they reach the results output', async () => {
    // The agent echoes its input: a terminal title and a clear-screen sequence come back in its outputs.
    ui.input('\u001b]0;PWNED\u0007\u001b[2JAda');
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
    assert.equal(record.state, 'finished', record.error);
    const text = await waitFor(() => {
      const all = resultsChannelText();
      return all.includes(record.executionId!) && all.includes('PWNED') ? all : undefined;
    }, 'the run in the Agent Workflows output');
    assert.ok(!/[\u0007\u001b]/.test(text), 'no raw escape or bell character in the output');
    assert.match(text, /\\u001b\]0;PWNED\\u0007\\u001b\[2JAda/);
  });

  it('escapes control characters a service sends before they reach the log', async () => {
    const service = await startFakeService(TYPED_KEY);
    // A problem status word with a clear-screen sequence in it: the run's last log line quotes it.
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'fail\u001b[2Jed', error: 'no' });
    try {
      ui.input(TYPED_KEY);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', service.url), true);
      await withBaseUrl(service.url, async () => {
        ui.input('Ada');
        const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
        assert.equal(record.state, 'problem');
        assert.equal(record.serviceStatus, 'fail\u001b[2Jed');
      });
      const root = process.env.AGENT_WORKFLOWS_TEST_USER_DATA;
      assert.ok(root);
      const log = await waitFor(() => {
        const file = filesUnder(root).find((path) => path.endsWith('Agent Workflows Log.log'));
        const text = file ? readFileSync(file, 'utf8') : '';
        return text.includes('(fail') ? text : undefined;
      }, 'the run in the log');
      assert.match(log, /: problem \(fail\\u001b\[2Jed\)\./);
      assert.ok(!log.includes('\u001b'), 'no raw escape character in the log');
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', service.url);
      await service.close();
    }
  });

  it('runs an agent locally, asking for the secret it needs, with the trace', async () => {
    ui.onMessage = (message) => (message.modal && message.items.includes('Set Secret') ? 'Set Secret' : undefined);
    ui.input((options) => {
      assert.equal(options.password, true);
      assert.match(options.title ?? '', /ECHO_TOKEN/);
      return SECRET_TOKEN;
    });
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', uriOf('secretive.agent.yaml'));
    assert.equal(record.state, 'finished', record.error);
    assert.equal(record.mode, 'local');
    assert.deepEqual(record.outputs, { seen: 'present' });
    assert.equal(externalApi.requests.filter((request) => request.url === '/echo').at(-1)?.headers.authorization, `Bearer ${SECRET_TOKEN}`);
    assert.deepEqual(
      record.trace?.map((entry) => `${entry.node}:${entry.status}`),
      ['call:succeeded'],
    );
    const [top] = (await api.executionsTree.getChildren()) ?? [];
    const groups = (await api.executionsTree.getChildren(top)) ?? [];
    assert.deepEqual(
      groups.map((group) => group.label),
      ['Outputs', 'Nodes'],
    );
    // The execution expands into its nodes; an API node opens its exchange, the secret by name.
    const [node] = (await api.executionsTree.getChildren(groups[1])) ?? [];
    assert.equal(node?.label, 'call');
    assert.equal(node?.command?.command, 'agentWorkflows.openExchange');
    const exchange = node?.command?.arguments?.[0] as Exchange;
    assert.equal(exchange.node, 'call');
    assert.equal(exchange.request.url, `${externalApi.url}/echo`);
    assert.ok(
      exchange.request.headers.some((header) => /^authorization$/i.test(header.name) && header.value === 'Bearer {{ secrets.ECHO_TOKEN }}'),
      JSON.stringify(exchange.request.headers),
    );
    assert.equal(exchange.response?.status, 200);
    assert.doesNotMatch(JSON.stringify(exchange), new RegExp(SECRET_TOKEN));
    assert.match(String(node?.tooltip), /^GET http:\/\/127\.0\.0\.1:\d+\/echo → 200 OK/);
    // Clicking the node opens the exchange view: the request as sent, the secret by name.
    const opened = await vscode.commands.executeCommand<vscode.TextDocument>(node!.command!.command, ...(node!.command!.arguments ?? []));
    assert.equal(opened.uri.scheme, 'agent-exchange');
    assert.match(opened.getText(), /Bearer \{\{ secrets\.ECHO_TOKEN \}\}/);
    assert.match(opened.getText(), /"authorization":\s*"present"/);
    assert.ok(!opened.getText().includes(SECRET_TOKEN));
    // Kept in the extension's workspace storage, one file per execution, deleted with it.
    const [stored] = userDataFilesEndingWith(join('exchanges', `${record.key}.json`));
    assert.ok(stored, 'the exchanges file of the execution');
    assert.match(readFileSync(stored, 'utf8'), /Bearer \{\{ secrets\.ECHO_TOKEN \}\}/);
    assert.ok(!readFileSync(stored, 'utf8').includes(SECRET_TOKEN));
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.executions.remove', top), true);
    await waitFor(() => !existsSync(stored), 'the exchanges file to go with its execution');

    // Stored now: the next local run asks nothing.
    const second = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', uriOf('secretive.agent.yaml'));
    assert.equal(second.state, 'finished', second.error);
  });

  it('opens the exchanges of an execution on a local agent server from its nodes, read from the server', async () => {
    // The service's key, as the first test of this suite sets it: this one also runs alone (--grep).
    ui.input(KEY);
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', server.url), true);
    const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('lookup.agent.yaml'));
    assert.equal(record.state, 'finished', record.error);
    assert.equal(record.mode, 'deployed');
    const [top] = (await api.executionsTree.getChildren()) ?? [];
    assert.equal((top as unknown as { record: ExecutionRecord }).record.key, record.key);
    const groups = (await api.executionsTree.getChildren(top)) ?? [];
    assert.deepEqual(
      groups.map((group) => group.label),
      ['Outputs', 'Trace'],
    );
    const [node] = (await api.executionsTree.getChildren(groups[1])) ?? [];
    assert.equal(node?.label, 'call');
    assert.equal(node?.command?.command, 'agentWorkflows.openExchange');
    const exchange = node?.command?.arguments?.[0] as Exchange;
    assert.equal(exchange.request.url, `${externalApi.url}/echo?who=lookup`);
    assert.equal(exchange.response?.status, 200);
  });

  it('starts the local agent server from its command and runs a file without deployment on it', async () => {
    const config = vscode.workspace.getConfiguration('agentWorkflows');
    await config.update('baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await config.update('account', undefined, vscode.ConfigurationTarget.Workspace);
    try {
      const url = await vscode.commands.executeCommand<string>('agentWorkflows.startLocalServer', vscode.Uri.file(folder));
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(url, server.url);
      ui.input('Cy');
      const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
      assert.equal(record.state, 'finished', record.error);
      assert.equal(record.target?.baseUrl, url);
      assert.deepEqual(record.outputs, { greeting: 'Hello Cy' });
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.stopLocalServer'), true);
    } finally {
      await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
      await config.update('account', 'local', vscode.ConfigurationTarget.Workspace);
    }
  });

  it('acts on executions from the tree: open result, copy value and id, run again, remove, clear finished', async () => {
    const [top] = (await api.executionsTree.getChildren()) ?? [];
    assert.ok(top);
    const record = (top as unknown as { record: ExecutionRecord }).record;

    const editor = await vscode.commands.executeCommand<vscode.TextEditor>('agentWorkflows.executions.openResult', top);
    assert.equal(editor.document.languageId, 'json');
    // A read-only view of the history: nothing to save when it closes.
    assert.equal(editor.document.uri.scheme, 'agent-result');
    assert.equal(editor.document.isUntitled, false);
    const result = JSON.parse(editor.document.getText()) as { agent: string; executionId: string | null; outputs: unknown };
    assert.equal(result.agent, record.agentName);
    assert.deepEqual(result.outputs, record.outputs ?? null);

    assert.equal(await vscode.commands.executeCommand('agentWorkflows.executions.copyExecutionId', top), record.executionId ?? undefined);
    const groups = (await api.executionsTree.getChildren(top)) ?? [];
    const outputs = groups.find((group) => group.label === 'Outputs');
    assert.ok(outputs);
    const [value] = (await api.executionsTree.getChildren(outputs)) ?? [];
    const copied = await vscode.commands.executeCommand<string>('agentWorkflows.executions.copyValue', value);
    assert.equal(await vscode.env.clipboard.readText(), copied);
    assert.equal(copied, Object.values(record.outputs as Record<string, unknown>)[0]);

    // Run again: same file, same inputs, no prompts.
    const again = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.executions.runAgain', top);
    assert.equal(again.state, 'finished', again.error);
    assert.deepEqual(again.inputs, record.inputs);
    assert.notEqual(again.key, record.key);

    assert.equal(await vscode.commands.executeCommand('agentWorkflows.executions.remove', top), true);
    const keys = ((await api.executionsTree.getChildren()) ?? []).map(
      (item) => (item as unknown as { record: ExecutionRecord }).record.key,
    );
    assert.ok(!keys.includes(record.key));
    assert.ok(keys.includes(again.key));

    const removed = await vscode.commands.executeCommand<number>('agentWorkflows.executions.clearFinished');
    assert.ok(removed >= 1);
    assert.deepEqual((await api.executionsTree.getChildren()) ?? [], []);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('runs an example locally and on the local server, its API calls going through http.proxy', async () => {
    // The example's APIs (https://crm.example.com, …) are the demo's mock APIs, reached the way a
    // user behind a corporate proxy reaches the real ones: http.proxy tunnels to a TLS endpoint
    // (a self-signed certificate, hence http.proxyStrictSSL off) in front of the mocks.
    const certs = mkdtempSync(join(tmpdir(), 'aw-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(certs, 'key.pem'),
        '-out',
        join(certs, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=example.com',
      ],
      { stdio: 'ignore' },
    );
    const mocks = await startMockApis();
    const tlsEnd = createTlsServer({ key: readFileSync(join(certs, 'key.pem')), cert: readFileSync(join(certs, 'cert.pem')) }, (clear) => {
      const upstream = connect(Number(new URL(mocks.url).port), '127.0.0.1');
      clear.pipe(upstream).pipe(clear);
      clear.on('error', () => upstream.destroy());
      upstream.on('error', () => clear.destroy());
    });
    await new Promise<void>((resolve) => tlsEnd.listen(0, '127.0.0.1', resolve));
    const proxy = await startConnectProxy(() => (tlsEnd.address() as AddressInfo).port);
    const tunnels = (): string[] => proxy.tunnels.map((tunnel) => tunnel.target);
    const http = vscode.workspace.getConfiguration('http');
    const config = vscode.workspace.getConfiguration('agentWorkflows');
    const example = join(folder, 'customer-360.agent.yaml');
    copyFileSync(join(extensionRoot(), 'examples', 'customer-360.agent.yaml'), example);
    try {
      await http.update('proxy', proxy.url, vscode.ConfigurationTarget.Global);
      await http.update('proxyStrictSSL', false, vscode.ConfigurationTarget.Global);
      // Its three secrets are asked for (modal, then one password box each), then its input.
      ui.onMessage = (message) => (message.modal && message.items.includes('Set Secrets') ? 'Set Secrets' : undefined);
      const secretBox = (options: vscode.InputBoxOptions): string => {
        const name = /Secret (\w+)/.exec(options.title ?? '')?.[1] as keyof typeof DEMO_SECRETS;
        assert.ok(DEMO_SECRETS[name], options.title);
        return DEMO_SECRETS[name];
      };
      ui.input(secretBox, secretBox, secretBox, 'C-1042');
      const local = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runLocally', vscode.Uri.file(example));
      assert.equal(local.state, 'finished', local.error);
      assert.equal((local.outputs as { summary?: string }).summary, 'Ada Lovelace: 2 open invoices, 3 tickets.');
      assert.deepEqual(
        local.trace?.map((entry) => entry.status),
        ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
      );
      assert.deepEqual([...new Set(tunnels())].sort(), ['billing.example.com:443', 'crm.example.com:443', 'support.example.com:443']);
      assert.deepEqual(mocks.calls.map((call) => `${call.host} ${call.status}`).sort(), [
        'billing.example.com 200',
        'crm.example.com 200',
        'support.example.com 200',
      ]);

      // The same example on the local agent server started from its command (secrets now stored).
      await config.update('baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('account', undefined, vscode.ConfigurationTarget.Workspace);
      const url = await vscode.commands.executeCommand<string>('agentWorkflows.startLocalServer', vscode.Uri.file(folder));
      ui.input((options) => options.value);
      const served = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', vscode.Uri.file(example));
      assert.equal(served.state, 'finished', served.error);
      assert.equal(served.target?.baseUrl, url);
      assert.deepEqual(served.outputs, local.outputs);
      assert.equal(mocks.calls.length, 6);
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.stopLocalServer');
      await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
      await config.update('account', 'local', vscode.ConfigurationTarget.Workspace);
      await http.update('proxy', undefined, vscode.ConfigurationTarget.Global);
      await http.update('proxyStrictSSL', undefined, vscode.ConfigurationTarget.Global);
      await proxy.close();
      await new Promise<void>((resolve) => tlsEnd.close(() => resolve()));
      await mocks.close();
      rmSync(certs, { recursive: true, force: true });
      rmSync(example, { force: true });
    }
  });

  it('sends service requests through the proxy of http.proxy', async () => {
    // A CONNECT proxy that sends every tunnel to the agent server, recording where it was asked to go.
    const proxy = await startConnectProxy(() => Number(new URL(server.url).port));
    const tunnels = (): string[] => proxy.tunnels.map((tunnel) => tunnel.target);
    const serverPort = new URL(server.url).port;
    const remoteUrl = `http://agents.invalid:${serverPort}`;
    const http = vscode.workspace.getConfiguration('http');
    const config = vscode.workspace.getConfiguration('agentWorkflows');
    try {
      await http.update('proxy', proxy.url, vscode.ConfigurationTarget.Global);
      await config.update('baseUrl', remoteUrl, vscode.ConfigurationTarget.Workspace);
      await config.update('allowInsecureHttp', true, vscode.ConfigurationTarget.Workspace);
      ui.input(KEY, 'Dee');
      // No key for the new origin yet: the run asks for one (modal), and gets it.
      ui.onMessage = (message) => (message.modal && message.items.includes('Set API Key') ? 'Set API Key' : undefined);
      const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
      assert.equal(record.state, 'finished', record.error);
      assert.deepEqual(record.outputs, { greeting: 'Hello Dee' });
      // agents.invalid resolves nowhere: the run finished only because every request took the
      // proxy's tunnel (one, kept alive for the status requests too).
      assert.ok(tunnels().length >= 1, 'the requests went through the proxy');
      assert.ok(
        tunnels().every((target) => target === `agents.invalid:${serverPort}`),
        tunnels().join(', '),
      );
      const ask = ui.messages.find((message) => message.modal);
      assert.match(ask?.text ?? '', new RegExp(`No API key is set for ${remoteUrl}`));
      // A service elsewhere gives no exchanges (only a local agent server does): the execution says so.
      const [top] = (await api.executionsTree.getChildren()) ?? [];
      assert.equal((top as unknown as { record: ExecutionRecord }).record.key, record.key);
      assert.deepEqual(
        ((await api.executionsTree.getChildren(top)) ?? []).map((group) => group.label),
        ['Inputs', 'Outputs', 'Trace', 'Exchanges are kept only for local executions and those on a local agent server'],
      );
    } finally {
      await http.update('proxy', undefined, vscode.ConfigurationTarget.Global);
      await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
      await config.update('allowInsecureHttp', undefined, vscode.ConfigurationTarget.Workspace);
      await proxy.close();
    }
  });

  /** Runs `body` with the service's base URL set to `baseUrl`, then sets the agent server's back. */
  async function withBaseUrl<T>(baseUrl: string, body: () => Promise<T>): Promise<T> {
    const config = vscode.workspace.getConfiguration('agentWorkflows');
    await config.update('baseUrl', baseUrl, vscode.ConfigurationTarget.Workspace);
    try {
      return await body();
    } finally {
      await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
    }
  }

  it('offers the key of another service for an origin without one, sends it and keeps it for that origin', async () => {
    const service = await startFakeService(REUSED_KEY);
    try {
      ui.input(REUSED_KEY);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', UNUSED_ORIGIN), true);
      await withBaseUrl(service.url, async () => {
        ui.onMessage = (message) => (message.modal ? `Reuse the key of ${UNUSED_ORIGIN}` : undefined);
        ui.input('Eve');
        const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
        assert.equal(record.state, 'finished', record.error);
        const asks = ui.messages.filter((message) => message.modal);
        assert.equal(asks.length, 1, JSON.stringify(ui.messages));
        assert.match(
          asks[0]!.text,
          new RegExp(`^No API key is set for ${service.url.replace(/[.]/g, '\\.')}\\..*reuse the key of another service`),
        );
        assert.equal(asks[0]!.items[0], 'Set API Key');
        assert.ok(asks[0]!.items.includes(`Reuse the key of ${UNUSED_ORIGIN}`), asks[0]!.items.join(', '));
        assert.ok(!asks[0]!.items.includes(`Reuse the key of ${service.url}`), 'its own origin is not offered');
        assert.deepEqual(
          service.starts.map((start) => start.authorization),
          [`Bearer ${REUSED_KEY}`],
        );

        // Kept for the new origin: the next run asks nothing and sends the same key.
        ui.onMessage = () => undefined;
        ui.input('Eve');
        const again = await vscode.commands.executeCommand<ExecutionRecord | undefined>(
          'agentWorkflows.runAgent',
          uriOf('greet.agent.yaml'),
        );
        assert.equal(again?.state, 'finished', again ? again.error : 'the second run was not started: its key was asked for again');
        assert.equal(ui.messages.filter((message) => message.modal).length, 1, 'no second question about the key');
        assert.deepEqual(
          service.starts.map((start) => start.authorization),
          [`Bearer ${REUSED_KEY}`, `Bearer ${REUSED_KEY}`],
        );
      });
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', service.url);
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', UNUSED_ORIGIN);
      await service.close();
    }
  });

  it('clears the API key of the service picked: the next run asks for one again and sends nothing', async () => {
    const service = await startFakeService(CLEARED_KEY);
    try {
      ui.input(CLEARED_KEY, REUSED_KEY);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', service.url), true);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', OTHER_UNUSED_ORIGIN), true);
      await withBaseUrl(service.url, async () => {
        ui.input('Fay');
        const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', uriOf('greet.agent.yaml'));
        assert.equal(record.state, 'finished', record.error);
        assert.equal(service.starts[0]?.authorization, `Bearer ${CLEARED_KEY}`);

        // From the palette: the stored origins are offered, the service's is picked.
        ui.pick((items) => {
          const labels = items.map((item) => item.label);
          assert.ok(labels.includes(service.url) && labels.includes(OTHER_UNUSED_ORIGIN), labels.join(', '));
          return items.find((item) => item.label === service.url);
        });
        assert.equal(await vscode.commands.executeCommand('agentWorkflows.clearApiKey'), true);
        assert.ok(
          ui.messages.some((message) => message.text === `API key for ${service.url} removed.`),
          JSON.stringify(ui.messages),
        );

        // The next run asks for a key again (declined here): nothing reaches the service.
        const declined = await vscode.commands.executeCommand<ExecutionRecord | undefined>(
          'agentWorkflows.runAgent',
          uriOf('greet.agent.yaml'),
        );
        assert.equal(declined, undefined);
        const ask = ui.messages.find((message) => message.modal);
        assert.match(ask?.text ?? '', new RegExp(`^No API key is set for ${service.url.replace(/[.]/g, '\\.')}\\.`));
        // Only the picked origin lost its key: the other is still offered for reuse.
        assert.ok(ask?.items.includes(`Reuse the key of ${OTHER_UNUSED_ORIGIN}`), ask?.items.join(', '));
        assert.equal(service.starts.length, 1);
      });
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', OTHER_UNUSED_ORIGIN);
      await service.close();
    }
  });

  it('asks number and boolean inputs, refusing text that is not a number, and sends them as JSON numbers and booleans', async () => {
    const service = await startFakeService(TYPED_KEY);
    const typed = uriOf('typed.agent.yaml');
    writeFileSync(
      typed.fsPath,
      [
        'version: 1',
        'name: Typed',
        'inputs:',
        '  count: { type: number, required: true, description: How many }',
        '  verbose: { type: boolean, required: true }',
        'nodes:',
        '  say:',
        '    type: template',
        '    text: "{{ inputs.count }} {{ inputs.verbose }}"',
        'outputs:',
        '  said: { from: "{{ nodes.say.body }}" }',
        '',
      ].join('\n'),
    );
    try {
      ui.input(TYPED_KEY);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', service.url), true);
      await withBaseUrl(service.url, async () => {
        ui.input((options) => {
          assert.match(options.prompt ?? '', /^count \(number, required\) · How many/);
          assert.equal(options.placeHolder, 'A number');
          const refusal = (value: string): string => String(options.validateInput?.(value) ?? '');
          assert.equal(refusal('twelve'), 'Input "count" must be a number, not "twelve".');
          assert.match(refusal('0x10'), /must be a number/);
          assert.match(refusal('1e'), /must be a number/);
          assert.equal(refusal(''), '"count" is required.');
          assert.equal(refusal('-2.5'), '');
          return '0';
        }).pick((items) => {
          assert.deepEqual(items.map((item) => item.label).sort(), ['false', 'true'], 'a required boolean: true or false, nothing else');
          return items.find((item) => item.label === 'false');
        });
        const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', typed);
        assert.equal(record.state, 'finished', record.error);
        // Falsy values of the right JSON type: not dropped, not sent as strings.
        assert.deepEqual((service.starts[0]?.payload as { inputs?: unknown } | undefined)?.inputs, { count: 0, verbose: false });

        // Run Again sends the same values with the same types.
        const [top] = (await api.executionsTree.getChildren()) ?? [];
        assert.equal((top as unknown as { record: ExecutionRecord } | undefined)?.record.key, record.key);
        const again = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.executions.runAgain', top);
        assert.equal(again.state, 'finished', again.error);
        assert.deepEqual((service.starts[1]?.payload as { inputs?: unknown } | undefined)?.inputs, { count: 0, verbose: false });
      });
    } finally {
      await vscode.commands.executeCommand('agentWorkflows.clearApiKey', service.url);
      await service.close();
      rmSync(typed.fsPath, { force: true });
    }
  });

  it('never writes a key or secret to logs, outputs, settings or workspace files', async () => {
    assert.deepEqual(
      leaksOf([
        ['API key', KEY],
        ['wrong API key', WRONG_KEY],
        ['workflow secret', SECRET_TOKEN],
        ['reused API key', REUSED_KEY],
        ['cleared API key', CLEARED_KEY],
        ['typed-inputs API key', TYPED_KEY],
      ]),
      [],
    );
  });
});
