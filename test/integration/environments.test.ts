// Environments in the real extension host: a folder of the workspace whose agent-workflows.yaml names
// two real agent servers on 127.0.0.1 (dev, the default, and a protected prod), each with its own key
// set once per origin. The status bar follows the active environment; switching it with the picker
// sends the next run to the other server with its key and no prompt; a protected run asks first,
// naming it, every time unless told not to in this window; Run Again keeps the run's environment;
// an unknown name and an environments file with errors stop the run saying how to fix it. Copy as
// curl and Poll use the active environment; a dataset run and Resume Batch confirm a protected one
// first; the status bar item is there only while an agent file is open.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { BatchRecord } from '../../src/core/batch/batchRecord';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import type { AgentWorkflowsApi } from '../../src/extension';
import { json, startServer } from '../support/httpServer';
import { ScriptedUi } from './scriptedUi';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const FOLDER = workspaceUri('environments');
const AGENT = vscode.Uri.joinPath(FOLDER, 'greet.agent.yaml');
const ENVIRONMENTS = vscode.Uri.joinPath(FOLDER, 'agent-workflows.yaml');

async function write(uri: vscode.Uri, text: string): Promise<void> {
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
}

describe('environments', () => {
  let api: AgentWorkflowsApi;
  let served: string;
  const servers: Record<'dev' | 'prod', AgentServer | undefined> = { dev: undefined, prod: undefined };
  const keys = { dev: `aw-dev-key-${randomBytes(8).toString('hex')}`, prod: `aw-prod-key-${randomBytes(8).toString('hex')}` };
  /** Executions each server ran, by server. */
  const ran: Record<'dev' | 'prod', number> = { dev: 0, prod: 0 };
  let ui: ScriptedUi;

  const environmentsText = (): string =>
    [
      'default: dev',
      'environments:',
      '  dev:',
      `    baseUrl: ${servers.dev!.url}`,
      '    account: local',
      '  prod:',
      `    baseUrl: ${servers.prod!.url}`,
      '    account: local',
      '    protected: true',
      '',
    ].join('\n');

  const runFile = async (agent: vscode.Uri): Promise<ExecutionRecord | undefined> => {
    ui.input('Ada');
    return vscode.commands.executeCommand<ExecutionRecord | undefined>('agentWorkflows.runAgent', agent);
  };
  const run = (): Promise<ExecutionRecord | undefined> => runFile(AGENT);

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    api = await extension.activate();
    served = mkdtempSync(join(tmpdir(), 'aw-envs-'));
    // Each server answers in its own words, so an output says where the run went.
    for (const name of ['dev', 'prod'] as const) {
      const dir = join(served, name);
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'greet.agent.yaml'),
        `version: 1\nname: Greet\ninputs:\n  who: { type: string, required: true }\nnodes:\n  hello:\n    type: template\n    text: "Hello {{ inputs.who }} from ${name}"\noutputs:\n  greeting: { from: "{{ nodes.hello.body }}" }\n`,
      );
      servers[name] = await startAgentServer({
        directory: dir,
        port: 0,
        apiKey: keys[name],
        watch: false,
        onEvent: (event) => {
          if (event.kind === 'execution-ended') ran[name]++;
        },
      });
    }
    await write(
      AGENT,
      'version: 1\nname: Greet\ninputs:\n  who: { type: string, required: true }\nnodes:\n  hello:\n    type: template\n    text: "Hello {{ inputs.who }}"\noutputs:\n  greeting: { from: "{{ nodes.hello.body }}" }\n',
    );
    await write(ENVIRONMENTS, environmentsText());
    // One key per origin, set once: switching environments switches keys with no prompt.
    const setup = new ScriptedUi();
    try {
      setup.input(keys.dev, keys.prod);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', servers.dev!.url), true);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', servers.prod!.url), true);
    } finally {
      setup.restore();
    }
  });

  after(async () => {
    const cleanup = new ScriptedUi();
    try {
      // Later suites expect no key they did not set.
      for (const server of Object.values(servers))
        if (server) await vscode.commands.executeCommand('agentWorkflows.clearApiKey', server.url);
    } finally {
      cleanup.restore();
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('agentWorkflows').update('environment', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.fs.delete(FOLDER, { recursive: true }).then(undefined, () => undefined);
    for (const server of Object.values(servers)) await server?.close();
    rmSync(served, { recursive: true, force: true });
  });

  beforeEach(() => {
    ui = new ScriptedUi();
  });

  afterEach(() => {
    ui.restore();
    assert.deepEqual(ui.unexpected, [], 'every prompt was answered');
    assert.equal(ui.leftover, 0, 'every scripted answer was used');
  });

  it('shows the default environment in the status bar while an agent file is open, and runs on it', async () => {
    await vscode.window.showTextDocument(AGENT);
    const status = await waitFor(async () => {
      const shown = await api.environmentStatus();
      return shown.visible && shown.text.includes('dev') ? shown : undefined;
    }, 'the environment in the status bar');
    assert.match(status.tooltip, new RegExp(`"dev": ${servers.dev!.url.replace(/[.]/g, '\\.')}, account local`));
    const record = await run();
    assert.equal(record?.state, 'finished', record?.error);
    assert.deepEqual(record?.outputs, { greeting: 'Hello Ada from dev' });
    assert.equal(record?.target?.environment, 'dev');
    assert.equal(record?.target?.baseUrl, servers.dev!.url);
    // The executions view labels the run with its environment.
    const [top] = (await api.executionsTree.getChildren()) ?? [];
    assert.match(String(top?.description), / · dev$/);
    assert.equal(ran.dev, 1);
  });

  it('switches with the picker: the next run goes to prod with its key, after a confirmation naming it', async () => {
    await vscode.window.showTextDocument(AGENT);
    ui.pick((items) => {
      assert.deepEqual(
        items.map((item) => [item.label, item.description]),
        [
          ['$(cloud) dev', `${servers.dev!.url} · local`],
          ['$(lock) prod', `${servers.prod!.url} · local`],
          ['$(circle-slash) Default', "the file's default, dev"],
        ],
      );
      return items[1];
    });
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.selectEnvironment', AGENT), 'prod');
    assert.match((await api.environmentStatus()).text, /\$\(lock\) prod/);

    // Declined: nothing starts, and no input is asked for.
    ui.onMessage = () => undefined;
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.runAgent', AGENT), undefined);
    const asked = ui.messages.filter((message) => message.modal);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.text, 'Run "Greet" on the protected environment "prod"?');
    assert.equal(ran.prod, 0);

    // Confirmed once: it runs on prod, and the next run asks again.
    ui.onMessage = (message) => (message.modal ? 'Run on prod' : undefined);
    const first = await run();
    assert.deepEqual(first?.outputs, { greeting: 'Hello Ada from prod' });
    assert.equal(first?.target?.environment, 'prod');
    const second = await run();
    assert.equal(second?.state, 'finished');
    assert.equal(ui.messages.filter((message) => message.modal).length, 3);

    // "Don't ask again in this window": confirmed once more, then no more questions.
    ui.onMessage = (message) => (message.modal ? "Run on prod, Don't Ask Again in This Window" : undefined);
    await run();
    await run();
    assert.equal(ui.messages.filter((message) => message.modal).length, 4);
    assert.equal(ran.prod, 4);
  });

  it('runs again on the environment an execution ran on, not the one chosen since', async () => {
    const items = (await api.executionsTree.getChildren()) ?? [];
    const onDev = items.find((item) => / · dev$/.test(String(item.description)));
    assert.ok(onDev, 'the dev run in the view');
    const again = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.executions.runAgain', onDev);
    assert.equal(again.target?.environment, 'dev');
    assert.deepEqual(again.outputs, { greeting: 'Hello Ada from dev' });
    assert.equal(ran.dev, 2);
  });

  it('stops a run on an unknown environment, listing the known ones', async () => {
    ui.pick((items) => items.find((item) => item.label.includes('Default')));
    await vscode.commands.executeCommand('agentWorkflows.selectEnvironment', AGENT);
    await vscode.workspace.getConfiguration('agentWorkflows').update('environment', 'staging', vscode.ConfigurationTarget.Workspace);
    try {
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.runAgent', AGENT), undefined);
      const error = ui.messages.find((message) => message.kind === 'error');
      assert.match(error?.text ?? '', /Unknown environment "staging": known environments are dev, prod/);
    } finally {
      await vscode.workspace.getConfiguration('agentWorkflows').update('environment', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('shows the problems of the environments file and never uses it while it has errors', async () => {
    await write(ENVIRONMENTS, `default: qa\nenvironments:\n  dev:\n    baseUrl: ${servers.dev!.url}\n`);
    const document = await vscode.workspace.openTextDocument(ENVIRONMENTS);
    assert.equal(document.languageId, 'agent-environments-yaml');
    const diagnostics = await waitFor(() => {
      const found = vscode.languages.getDiagnostics(ENVIRONMENTS);
      return found.length >= 2 ? found : undefined;
    }, 'the environments file problems');
    const messages = diagnostics.map((diagnostic) => diagnostic.message).join('\n');
    assert.match(messages, /account/);
    assert.match(messages, /qa/);
    assert.equal(await vscode.commands.executeCommand('agentWorkflows.runAgent', AGENT), undefined);
    const error = ui.messages.find((message) => message.kind === 'error');
    assert.match(error?.text ?? '', /agent-workflows\.yaml has \d+ errors?, so no environment can be used/);
    assert.equal(ran.dev, 2);
    // Fixed on disk: the problems go, and runs use it again.
    await write(ENVIRONMENTS, environmentsText());
    await waitFor(() => vscode.languages.getDiagnostics(ENVIRONMENTS).length === 0, 'the problems to clear');
    const record = await run();
    assert.equal(record?.target?.environment, 'dev');
  });

  it('shows the schema description when hovering a key of the environments file', async () => {
    const document = await vscode.workspace.openTextDocument(ENVIRONMENTS);
    assert.equal(document.languageId, 'agent-environments-yaml');
    const at = document.positionAt(document.getText().indexOf('account') + 2);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', ENVIRONMENTS, at);
    const shown = hovers
      .flatMap((hover) => hover.contents)
      .map((content) => (typeof content === 'string' ? content : content.value))
      .join('\n');
    assert.match(shown, /The <account_path> of the agents in this environment/);
  });

  it('goes from default to the environment it names, finds it and renames it, in the environments file and the overrides of its agents', async () => {
    // An agent below the file overriding the environment, and one below another environments file
    // nearer to it, which that file applies to instead: left alone.
    const overriding = vscode.Uri.joinPath(FOLDER, 'renames', 'overriding.agent.yaml');
    const nestedEnvironments = vscode.Uri.joinPath(FOLDER, 'renames', 'nested', 'agent-workflows.yaml');
    const nestedAgent = vscode.Uri.joinPath(FOLDER, 'renames', 'nested', 'inner.agent.yaml');
    const document = await vscode.workspace.openTextDocument(ENVIRONMENTS);
    const text = document.getText();
    const defaultMatch = /^default: *"?([A-Za-z][\w-]*)/m.exec(text);
    assert.ok(defaultMatch, 'the fixture names a default');
    const name = defaultMatch[1]!;
    const overrideText = (agent: string): string =>
      `version: 1\nname: ${agent}\ndeployment:\n  agent: greet\n  environments:\n    "${name}": { agent: greet-${agent} }\nnodes:\n  hello:\n    type: template\n    text: hi\n`;
    await write(overriding, overrideText('overriding'));
    await write(nestedEnvironments, `environments:\n  ${name}:\n    baseUrl: https://nested.example.com\n    account: nested\n`);
    await write(nestedAgent, overrideText('inner'));
    const usedAt = document.positionAt(defaultMatch.index + defaultMatch[0].length - 1);
    const declaredAt = document.positionAt(text.search(new RegExp(`^  ${name}:`, 'm')) + 2);
    const definitions = await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeDefinitionProvider', ENVIRONMENTS, usedAt);
    assert.deepEqual(
      definitions.map((location) => location.range.start),
      [declaredAt],
    );
    try {
      const references = await vscode.commands.executeCommand<vscode.Location[]>(
        'vscode.executeReferenceProvider',
        ENVIRONMENTS,
        declaredAt,
      );
      assert.deepEqual(
        references.map((location) => `${vscode.workspace.asRelativePath(location.uri)}:${location.range.start.line}`).sort(),
        [
          `${vscode.workspace.asRelativePath(ENVIRONMENTS)}:${usedAt.line}`,
          `${vscode.workspace.asRelativePath(ENVIRONMENTS)}:${declaredAt.line}`,
          `${vscode.workspace.asRelativePath(overriding)}:5`,
        ].sort(),
      );
      const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>(
        'vscode.executeDocumentRenameProvider',
        ENVIRONMENTS,
        declaredAt,
        'renamed-env',
      );
      assert.deepEqual(
        edit
          .get(ENVIRONMENTS)
          .map((change) => [change.range.start.line, change.newText])
          .sort(),
        [
          [usedAt.line, 'renamed-env'],
          [declaredAt.line, 'renamed-env'],
        ].sort(),
      );
      // The override's key, inside its quotes; nothing in the agent the nested file applies to.
      assert.deepEqual(
        edit
          .get(overriding)
          .map((change) => [change.range.start.line, change.range.start.character, change.range.end.character, change.newText]),
        [[5, 5, 5 + name.length, 'renamed-env']],
      );
      assert.deepEqual(
        edit
          .entries()
          .map(([uri]) => vscode.workspace.asRelativePath(uri))
          .sort(),
        [vscode.workspace.asRelativePath(ENVIRONMENTS), vscode.workspace.asRelativePath(overriding)].sort(),
      );
    } finally {
      await vscode.workspace.fs.delete(vscode.Uri.joinPath(FOLDER, 'renames'), { recursive: true });
    }
  });

  it("warns about an agent's override for an environment its environments file does not name, until it is typed in", async () => {
    const agent = vscode.Uri.joinPath(FOLDER, 'override.agent.yaml');
    // Set before the agent file opens, so the re-check this change starts is over before the edit below.
    const delay = 1000;
    await vscode.workspace.getConfiguration('agentWorkflows').update('validation.delay', delay, vscode.ConfigurationTarget.Workspace);
    await write(
      agent,
      'version: 1\nname: Override\ndeployment:\n  environments:\n    prod: { agent: greet }\n    qa: { agent: greet }\nnodes:\n  hello:\n    type: template\n    text: hi\n',
    );
    try {
      await vscode.window.showTextDocument(agent);
      const problems = await waitFor(() => {
        const found = vscode.languages
          .getDiagnostics(agent)
          .filter((diagnostic) => /unknown-environment/.test(JSON.stringify(diagnostic.code)));
        return found.length > 0 ? found : undefined;
      }, 'the unknown-environment warning');
      assert.equal(problems.length, 1);
      assert.match(problems[0]!.message, /"qa"/);
      assert.equal(problems[0]!.severity, vscode.DiagnosticSeverity.Warning);

      // Typed into the environments file's editor (unsaved): the agent file is checked again, after
      // the validation delay like an edit of its own (not on every keystroke).
      const environments = await vscode.workspace.openTextDocument(ENVIRONMENTS);
      const typed = Date.now();
      const addQa = new vscode.WorkspaceEdit();
      addQa.insert(
        ENVIRONMENTS,
        environments.positionAt(environments.getText().length),
        `  qa:\n    baseUrl: ${servers.dev!.url}\n    account: local\n`,
      );
      assert.ok(await vscode.workspace.applyEdit(addQa));
      await waitFor(
        () => !vscode.languages.getDiagnostics(agent).some((diagnostic) => /unknown-environment/.test(JSON.stringify(diagnostic.code))),
        'the warning to go once the environments file names qa',
      );
      assert.ok(Date.now() - typed >= delay - 50, `checked again after ${Date.now() - typed} ms, before the ${delay} ms delay`);
    } finally {
      await vscode.workspace.getConfiguration('agentWorkflows').update('validation.delay', undefined, vscode.ConfigurationTarget.Workspace);
      // Back to the file the other tests use, saved (a dirty document would hide the disk's text).
      const environments = await vscode.workspace.openTextDocument(ENVIRONMENTS);
      const restore = new vscode.WorkspaceEdit();
      restore.replace(
        ENVIRONMENTS,
        new vscode.Range(environments.positionAt(0), environments.positionAt(environments.getText().length)),
        environmentsText(),
      );
      await vscode.workspace.applyEdit(restore);
      await environments.save();
      await vscode.workspace.fs.delete(agent);
    }
  });

  it('asks before every start on a protected environment from Run Again and the Test Explorer too', async () => {
    // A folder of its own: "don't ask again" above was for the first file's prod.
    const folder = vscode.Uri.joinPath(FOLDER, 'live');
    const agent = vscode.Uri.joinPath(folder, 'greet.agent.yaml');
    const testFile = vscode.Uri.joinPath(folder, 'greet.agent.test.yaml');
    await write(
      vscode.Uri.joinPath(folder, 'agent-workflows.yaml'),
      `default: live\nenvironments:\n  live:\n    baseUrl: ${servers.prod!.url}\n    account: local\n    protected: true\n`,
    );
    await write(agent, Buffer.from(await vscode.workspace.fs.readFile(AGENT)).toString('utf8'));
    await write(
      testFile,
      'cases:\n  on live:\n    deployed: true\n    inputs: { who: Bo }\n    expect: { outputs: { greeting: Hello Bo from prod } }\n',
    );
    const modals = (): number => ui.messages.filter((message) => message.modal).length;

    ui.onMessage = (message) => (message.modal ? 'Run on live' : undefined);
    ui.input('Ada');
    const first = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.runAgent', agent);
    assert.equal(first.target?.environment, 'live');
    assert.equal(modals(), 1);
    const item = ((await api.executionsTree.getChildren()) ?? []).find(
      (candidate) => (candidate as unknown as { record?: ExecutionRecord }).record?.key === first.key,
    );
    const again = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.executions.runAgain', item);
    assert.equal(again.state, 'finished', again.error);
    assert.equal(modals(), 2, 'Run Again asked again');

    const file = await waitFor(
      async () => (await api.agentTests.refresh(testFile), api.agentTests.controller.items.get(testFile.toString())),
      'the test file item',
    );
    const ran = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.equal(ran.get(`${testFile.toString()}::on live`)?.state, 'passed');
    assert.equal(modals(), 3, 'the deployed case asked too');
    ui.onMessage = () => undefined;
    const declined = await api.agentTests.runTests(new vscode.TestRunRequest([file]));
    assert.equal(declined.get(`${testFile.toString()}::on live`)?.state, 'errored');
    assert.equal(modals(), 4);
  });

  it('refuses a run where an agent file moves a protected environment, and names where an allowed one goes', async () => {
    // A folder of its own: its protected "vault" is on prod, and the agent file moves it to dev.
    const folder = vscode.Uri.joinPath(FOLDER, 'moved');
    const agent = vscode.Uri.joinPath(folder, 'greet.agent.yaml');
    const environments = vscode.Uri.joinPath(folder, 'agent-workflows.yaml');
    const vault = `default: vault\nenvironments:\n  vault:\n    baseUrl: ${servers.prod!.url}\n    account: local\n    protected: true\n`;
    const before = { ...ran };
    try {
      await write(environments, vault);
      await write(
        agent,
        `${Buffer.from(await vscode.workspace.fs.readFile(AGENT)).toString('utf8')}deployment:\n  environments:\n    vault: { baseUrl: "${servers.dev!.url}" }\n`,
      );
      await vscode.window.showTextDocument(agent);
      const problem = await waitFor(
        () =>
          vscode.languages
            .getDiagnostics(agent)
            .find((diagnostic) => /protected-environment-override/.test(JSON.stringify(diagnostic.code))),
        'the protected-environment-override error',
      );
      assert.equal(problem.severity, vscode.DiagnosticSeverity.Error);
      assert.match(problem.message, /Environment "vault" is protected in agent-workflows\.yaml: an agent file cannot change its baseUrl/);

      // Refused before anything is asked or sent.
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.runAgent', agent), undefined);
      const refusal = ui.messages.find((message) => message.kind === 'error');
      assert.match(
        refusal?.text ?? '',
        /Environment "vault" is protected in environments\/moved\/agent-workflows\.yaml, and the agent file sets its baseUrl \(http:\/\/127\.0\.0\.1:\d+\) in deployment\.environments\.vault/,
      );
      assert.equal(ui.messages.filter((message) => message.modal).length, 0);
      assert.deepEqual(ran, before);

      // Allowed by the environments file: the error goes, and the confirmation names where the run goes.
      // Edited in its editor in one step (a write on disk may be seen half done, as a file with errors).
      const document = await vscode.workspace.openTextDocument(environments);
      const allow = new vscode.WorkspaceEdit();
      allow.insert(environments, document.positionAt(document.getText().length), '    allowAgentOverride: true\n');
      assert.ok(await vscode.workspace.applyEdit(allow));
      assert.ok(await document.save());
      await waitFor(
        () =>
          !vscode.languages
            .getDiagnostics(agent)
            .some((diagnostic) => /protected-environment-override/.test(JSON.stringify(diagnostic.code))),
        'the error to go',
      );
      ui.onMessage = (message) => (message.modal ? 'Run on vault' : undefined);
      const record = await runFile(agent);
      assert.deepEqual(record?.outputs, { greeting: 'Hello Ada from dev' }, JSON.stringify(ui.messages));
      const [asked] = ui.messages.filter((message) => message.modal);
      assert.equal(asked?.text, 'Run "Greet" on the protected environment "vault"?');
      assert.equal(
        asked?.detail,
        `It runs on ${servers.dev!.url}, account local (the agent file's deployment.environments.vault; environments/moved/agent-workflows.yaml names ${servers.prod!.url}, account local). "vault" is marked protected in environments/moved/agent-workflows.yaml.`,
      );
      assert.equal(ran.prod, before.prod);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(folder, { recursive: true }).then(undefined, () => undefined);
    }
  });

  it("says in the output when an environment replaces the agent file's own deployment.baseUrl", async () => {
    const folder = vscode.Uri.joinPath(FOLDER, 'replaced');
    const agent = vscode.Uri.joinPath(folder, 'greet.agent.yaml');
    try {
      await write(
        vscode.Uri.joinPath(folder, 'agent-workflows.yaml'),
        `default: shared\nenvironments:\n  shared:\n    baseUrl: ${servers.dev!.url}\n    account: local\n`,
      );
      await write(
        agent,
        `${Buffer.from(await vscode.workspace.fs.readFile(AGENT)).toString('utf8')}deployment:\n  baseUrl: ${servers.prod!.url}\n`,
      );
      const record = await runFile(agent);
      assert.deepEqual(record?.outputs, { greeting: 'Hello Ada from dev' });
      const notice = `environment "shared" of environments/replaced/agent-workflows.yaml sends "Greet" to ${servers.dev!.url}, not to its deployment.baseUrl ${servers.prod!.url}`;
      await waitFor(
        () => vscode.workspace.textDocuments.some((document) => document.uri.scheme === 'output' && document.getText().includes(notice)),
        'the notice in the Agent Workflows output',
      );
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(folder, { recursive: true }).then(undefined, () => undefined);
    }
  });

  it('copies as curl and polls on the active environment chosen in the picker', async () => {
    // Its own folder and file: the environment chosen here is this file's only.
    const folder = vscode.Uri.joinPath(FOLDER, 'active');
    const agent = vscode.Uri.joinPath(folder, 'greet.agent.yaml');
    const serviceKey = `aw-recorded-key-${randomBytes(8).toString('hex')}`;
    const executionId = '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01';
    // A service that records what it is asked: the poll must reach it, not dev (the default).
    const service = await startServer((request, response) => {
      if (request.method === 'GET' && request.url === `/api/team-7/agent/${executionId}/status`)
        json(response, 200, { status: 'finished', outputs: { greeting: 'polled on recorded' } });
      else json(response, 404, { error: `unexpected ${request.method} ${request.url}` });
    });
    try {
      await write(
        vscode.Uri.joinPath(folder, 'agent-workflows.yaml'),
        `default: dev\nenvironments:\n  dev:\n    baseUrl: ${servers.dev!.url}\n    account: local\n  recorded:\n    baseUrl: ${service.url}\n    account: team-7\n`,
      );
      await write(agent, Buffer.from(await vscode.workspace.fs.readFile(AGENT)).toString('utf8'));
      ui.input(serviceKey);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.setApiKey', service.url), true);
      ui.pick((items) => items.find((item) => item.label.endsWith(' recorded')));
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.selectEnvironment', agent), 'recorded');

      // Copy as curl (the code lens): the start request on the chosen environment's origin and account.
      ui.input('Ada');
      const command = await vscode.commands.executeCommand<string>('agentWorkflows.copyAsCurl', agent);
      assert.equal(await vscode.env.clipboard.readText(), command);
      assert.ok(command.includes(`${service.url}/api/team-7/agent/greet/execute`), command);
      assert.ok(!command.includes(servers.dev!.url), command);
      assert.ok(!command.includes(serviceKey));

      // Poll from the agent file's editor: the status request goes to that environment's service, with its key.
      await vscode.window.showTextDocument(agent);
      ui.input(executionId);
      const record = await vscode.commands.executeCommand<ExecutionRecord>('agentWorkflows.pollExecution');
      assert.equal(record.state, 'finished', record.error);
      assert.deepEqual(record.outputs, { greeting: 'polled on recorded' });
      assert.equal(record.target?.environment, 'recorded');
      assert.equal(record.target?.baseUrl, service.url);
      const asked = service.requests.filter((request) => request.url === `/api/team-7/agent/${executionId}/status`);
      assert.ok(asked.length >= 1, `the service saw ${service.requests.map((request) => request.url).join(', ') || 'nothing'}`);
      assert.equal(asked[0]!.headers.authorization, `Bearer ${serviceKey}`);
    } finally {
      const cleanup = new ScriptedUi();
      try {
        // Back to the file's default (the choice is kept in the workspace state), and no key left behind.
        cleanup.pick((items) => items.find((item) => item.label.includes('Default')));
        await vscode.commands.executeCommand('agentWorkflows.selectEnvironment', agent);
        await vscode.commands.executeCommand('agentWorkflows.clearApiKey', service.url);
      } finally {
        cleanup.restore();
      }
      const removed = ((await api.executionsTree.getChildren()) ?? []).find(
        (item) => (item as unknown as { record?: ExecutionRecord }).record?.executionId === executionId,
      );
      if (removed) await vscode.commands.executeCommand('agentWorkflows.executions.remove', removed);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(folder, { recursive: true }).then(undefined, () => undefined);
      await service.close();
    }
  });

  describe('on a protected environment, datasets', () => {
    // A folder of its own, whose only environment is protected: no "don't ask again" from the tests above.
    const folder = vscode.Uri.joinPath(FOLDER, 'guarded');
    const greet = vscode.Uri.joinPath(folder, 'greet.agent.yaml');
    const data = vscode.Uri.joinPath(folder, 'rows.jsonl');
    const protectedModals = (): string[] =>
      ui.messages.filter((message) => message.modal && message.kind === 'warning').map((message) => message.text);

    before(async () => {
      await write(
        vscode.Uri.joinPath(folder, 'agent-workflows.yaml'),
        `default: vault\nenvironments:\n  vault:\n    baseUrl: ${servers.prod!.url}\n    account: local\n    protected: true\n`,
      );
      await write(greet, Buffer.from(await vscode.workspace.fs.readFile(AGENT)).toString('utf8'));
    });

    after(async () => {
      // Every batch of this folder's files, also those a failing test left (later suites expect none).
      for (const item of (await api.executionsTree.getChildren()) ?? []) {
        const batch = (item as unknown as { batch?: BatchRecord }).batch;
        if (batch?.file.startsWith(`${folder.toString()}/`)) await vscode.commands.executeCommand('agentWorkflows.batches.remove', item);
      }
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(folder, { recursive: true }).then(undefined, () => undefined);
    });

    it('asks before Run Agent on Dataset on a protected environment: declined sends nothing, confirmed runs', async () => {
      await write(data, '{"who":"Ann"}\n{"who":"Ben"}\n');
      const before = ran.prod;
      const batchesBefore = ((await api.executionsTree.getChildren()) ?? []).filter((item) =>
        String(item.contextValue).startsWith('batch-'),
      ).length;

      ui.openFile(data);
      ui.pick((items) => items.find((item) => item.label.includes('On the deployment')));
      ui.onMessage = (message) => (message.modal && message.kind === 'info' ? 'Run 2 Rows' : undefined);
      assert.equal(await vscode.commands.executeCommand('agentWorkflows.runDataset', greet), undefined);
      assert.deepEqual(protectedModals(), ['Run "Greet" on 2 rows on the protected environment "vault"?']);
      assert.equal(ran.prod, before, 'declined: no row ran');
      const batchesAfter = ((await api.executionsTree.getChildren()) ?? []).filter((item) =>
        String(item.contextValue).startsWith('batch-'),
      ).length;
      assert.equal(batchesAfter, batchesBefore, 'declined: no batch');

      ui.openFile(data);
      ui.pick((items) => items.find((item) => item.label.includes('On the deployment')));
      ui.onMessage = (message) => (message.modal ? (message.kind === 'info' ? 'Run 2 Rows' : 'Run on vault') : undefined);
      const batch = await vscode.commands.executeCommand<BatchRecord | undefined>('agentWorkflows.runDataset', greet);
      assert.equal(batch?.state, 'finished', batch?.error);
      assert.equal(batch?.target?.environment, 'vault');
      assert.equal(batch?.counts?.finished, 2);
      assert.equal(protectedModals().length, 2);
      assert.equal(ran.prod, before + 2);
    });

    it('asks before Resume Batch on a protected environment: declined sends nothing, confirmed goes on', async () => {
      // The first row's API call is held until the test lets it go (after the confirmation, or in
      // `finally`), so the batch is stopped with it started and the others not. A resume that does
      // not wait for the confirmation then waits on it, and fails by the test's time limit.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const people = await startServer(async (request, response) => {
        const who = decodeURIComponent(request.url?.split('/').pop() ?? '');
        if (who === 'Ann') await held;
        json(response, 200, { title: `Dr ${who}` });
      });
      const asked = (): string[] => people.requests.map((request) => decodeURIComponent(request.url.split('/').pop() ?? '')).sort();
      const heldText = `version: 1\nname: Held\ninputs:\n  who: { type: string, required: true }\nnodes:\n  person:\n    type: api\n    method: GET\n    url: ${people.url}/people/{{ inputs.who }}\noutputs:\n  title: { from: "{{ nodes.person.body.title }}" }\n`;
      const servedHeld = join(served, 'prod', 'held.agent.yaml');
      const agent = vscode.Uri.joinPath(folder, 'held.agent.yaml');
      const config = vscode.workspace.getConfiguration('agentWorkflows');
      try {
        writeFileSync(servedHeld, heldText);
        await servers.prod!.rescan();
        await write(agent, heldText);
        await write(data, '{"who":"Ann"}\n{"who":"Ben"}\n{"who":"Cy"}\n');
        // One row at a time: while the first is held, the others are not started.
        await config.update('batch.concurrency', 1, vscode.ConfigurationTarget.Workspace);
        const before = ran.prod;

        ui.openFile(data);
        ui.pick((items) => items.find((item) => item.label.includes('On the deployment')));
        ui.onMessage = (message) => (message.modal ? (message.kind === 'info' ? 'Run 3 Rows' : 'Run on vault') : undefined);
        const running = vscode.commands.executeCommand<BatchRecord | undefined>('agentWorkflows.runDataset', agent);
        await waitFor(() => asked().length === 1, 'the first row to call the API');
        const item = await waitFor(
          async () => ((await api.executionsTree.getChildren()) ?? []).find((candidate) => candidate.contextValue === 'batch-running'),
          'the running batch',
        );
        assert.equal(await vscode.commands.executeCommand('agentWorkflows.batches.stop', item), true);
        const stopped = await running;
        assert.ok(stopped);
        assert.equal(stopped.state, 'stopped', stopped.error);
        assert.equal(protectedModals().length, 1);

        // Declined: the batch stays stopped and no row is started.
        ui.onMessage = () => undefined;
        assert.equal(await vscode.commands.executeCommand('agentWorkflows.batches.resume', stopped.key), undefined);
        assert.deepEqual(protectedModals(), [
          'Run "Held" on 3 rows on the protected environment "vault"?',
          'Resume the batch of "Held" on the protected environment "vault"?',
        ]);
        const still = ((await api.executionsTree.getChildren()) ?? []).find((candidate) => candidate.id === `batch:${stopped.key}`);
        assert.equal(still?.contextValue, 'batch-stopped');
        assert.deepEqual(asked(), ['Ann']);

        // Confirmed: the held row is polled again (not started twice) and the others run.
        release();
        ui.onMessage = (message) => (message.modal ? 'Run on vault' : undefined);
        const resumed = await vscode.commands.executeCommand<BatchRecord>('agentWorkflows.batches.resume', stopped.key);
        assert.equal(resumed.state, 'finished', resumed.error);
        assert.equal(resumed.counts?.finished, 3);
        assert.equal(protectedModals().length, 3);
        assert.deepEqual(asked(), ['Ann', 'Ben', 'Cy']);
        assert.equal(ran.prod, before + 3);
      } finally {
        release();
        await config.update('batch.concurrency', undefined, vscode.ConfigurationTarget.Workspace);
        rmSync(servedHeld, { force: true });
        await servers.prod!.rescan();
        await people.close();
      }
    });
  });

  it('hides the environment in the status bar while no agent file is open', async () => {
    const notes = vscode.Uri.joinPath(FOLDER, 'notes.txt');
    await write(notes, 'not an agent\n');
    try {
      const visible = async (): Promise<boolean> => (await api.environmentStatus()).visible;
      await vscode.window.showTextDocument(AGENT);
      await waitFor(visible, 'the environment shown with the agent file');
      await vscode.window.showTextDocument(notes);
      await waitFor(async () => !(await visible()), 'the environment hidden with a text file');
      await vscode.window.showTextDocument(AGENT);
      await waitFor(visible, 'the environment shown again');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await waitFor(async () => !(await visible()), 'the environment hidden with no editor');
      assert.equal((await api.environmentStatus()).text, '');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(notes).then(undefined, () => undefined);
    }
  });
});
