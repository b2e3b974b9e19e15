// `agent-workflows run` and `status` against a real service stand-in on 127.0.0.1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { startFakeService } from '../support/fakeAgentService';
import type { FakeService } from '../support/fakeAgentService';
import { json } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'cli-test-key-42';

const agent = (baseUrl: string) => `version: 1
name: Ticket summarizer
deployment:
  baseUrl: ${baseUrl}
  account: acme
  agent: summarizer
inputs:
  ticket: { type: string, required: true }
  count: { type: number, default: 3 }
  urgent: { type: boolean }
  priority: { type: string, enum: [low, high] }
  screenshot: { type: file, accept: [image/png] }
nodes:
  echo:
    type: template
    text: "{{ inputs.ticket }} {{ inputs.count }} {{ inputs.urgent }} {{ inputs.priority }} {{ inputs.screenshot }}"
outputs:
  text: { from: "{{ nodes.echo.body }}" }
`;

describe('agent-workflows run and status', () => {
  let service: FakeService;
  let dir: TempDir;
  beforeEach(async () => {
    service = await startFakeService(KEY);
    dir = makeTempDir();
    dir.write('ticket.agent.yaml', agent(service.url));
    dir.write('shot.png', Buffer.alloc(1234, 1));
  });
  afterEach(async () => {
    await service.close();
    dir.remove();
  });

  async function cli(args: string[], env: Record<string, string> = { AGENT_WORKFLOWS_API_KEY: KEY }, interrupt?: AbortSignal) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd: dir.path, env, ...(interrupt ? { interrupt } : {}) });
    assert.doesNotMatch(stdout + stderr, new RegExp(KEY), 'the key never appears in output');
    return { code, stdout, stderr };
  }

  it('runs an agent with typed inputs and prints JSON', async () => {
    service.statusAnswer = (n, _id, response) => json(response, 200, n === 0 ? { status: 'running' } : { status: 'finished', outputs: { text: 'done' } });
    const result = await cli(['run', 'ticket.agent.yaml', '--input', 'ticket=Printer on fire', '--input', 'urgent=yes', '--input', 'priority=high', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const printed = JSON.parse(result.stdout) as { executionId: string; status: string; outputs: unknown };
    assert.equal(printed.status, 'finished');
    assert.deepEqual(printed.outputs, { text: 'done' });
    assert.deepEqual(service.starts[0]?.payload, { inputs: { ticket: 'Printer on fire', urgent: true, priority: 'high', count: 3 }, stream: false });
    assert.equal(service.starts[0]?.path, '/api/acme/agent/summarizer/execute');
    assert.match(result.stderr, /started Ticket summarizer as execution /);
  });

  it('uses multipart when a file input is given', async () => {
    const result = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--file', 'screenshot=shot.png']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(service.starts[0]?.path, '/api/acme/agent/summarizer/execute/multipart');
    assert.deepEqual(service.starts[0]?.parts.map((p) => [p.name, p.filename, p.data.length]), [['payload', undefined, service.starts[0]?.parts[0]?.data.length], ['screenshot', 'shot.png', 1234]]);
    assert.match(result.stderr, /with screenshot \(1\.2 KB\)/);
  });

  it('exits 2 on input problems, naming each one', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['-i', 'tikcet=x'], /no input "tikcet". Did you mean "ticket"\?/],
      [[], /Input "ticket" is required: give --input ticket=VALUE/],
      [['-i', 'ticket=x', '-i', 'count=many'], /"count" must be a number/],
      [['-i', 'ticket=x', '-i', 'priority=medium'], /must be one of "low", "high"/],
      [['-i', 'ticket=x', '-i', 'screenshot=shot.png'], /file input: give --file screenshot=PATH/],
      [['-i', 'ticket=x', '--file', 'count=shot.png'], /not a file: give --input count=VALUE/],
      [['-i', 'ticket=x', '--file', 'screenshot=ticket.agent.yaml'], /not of an accepted type: image\/png/],
      [['-i', 'ticket'], /--input takes NAME=VALUE/],
      [['-i', 'ticket=x', '--timeout', 'soon'], /--timeout takes a number of seconds/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(['run', 'ticket.agent.yaml', ...args]);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
    assert.equal(service.starts.length, 0);
  });

  it('exits 2 for an invalid agent file, 3 without a key or when refused, 4 when the service fails', async () => {
    dir.write('bad.agent.yaml', 'version: 1\nname: Bad\nnodes:\n  a: { type: api, method: get, url: "https://x.example.com" }\n');
    const invalid = await cli(['run', 'bad.agent.yaml']);
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /bad\.agent\.yaml:4:.* error unknown-http-method/);
    const noKey = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x'], {});
    assert.equal(noKey.code, 3);
    assert.match(noKey.stderr, /AGENT_WORKFLOWS_API_KEY/);
    const refused = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x'], { AGENT_WORKFLOWS_API_KEY: 'wrong' });
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, /Builder license/);
    service.startAnswer = (response) => json(response, 502, { error: 'upstream' });
    const failing = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x']);
    assert.equal(failing.code, 4);
  });

  it('exits 1 when the execution ends with a problem status', async () => {
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'failed', error: 'node summarize failed' });
    const result = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /ended with status "failed"[\s\S]*node summarize failed/);
  });

  it('exits 5 when the time limit passes, saying how to resume', async () => {
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'running' });
    const result = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--timeout', '0.3']);
    assert.equal(result.code, 5);
    assert.match(result.stderr, /agent-workflows status [0-9a-f-]{36} --base-url http:\/\/127\.0\.0\.1:\d+ --account acme --wait/);
  });

  it('returns at once with --no-wait, and status reads or waits for the execution', async () => {
    const started = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--no-wait']);
    assert.equal(started.code, 0);
    const executionId = started.stdout.trim();
    assert.match(executionId, /^[0-9a-f-]{36}$/);
    assert.equal(service.statusRequests.length, 0);
    service.statusAnswer = (n, _id, response) => json(response, 200, n < 2 ? { status: 'running' } : { status: 'finished', outputs: { n } });
    const once = await cli(['status', executionId, '--base-url', service.url, '--account', 'acme']);
    assert.equal(once.code, 0);
    assert.equal(once.stdout, 'running\n');
    const waited = await cli(['status', executionId, '--base-url', service.url, '--account', 'acme', '--wait', '--json']);
    assert.equal(waited.code, 0);
    assert.deepEqual(JSON.parse(waited.stdout), { executionId, status: 'finished', outputs: { n: 2 } });
    assert.equal((await cli(['status', executionId, '--account', 'acme'])).code, 2, 'requires --base-url');
  });

  it('refuses plain http to a remote host unless allowed', async () => {
    const result = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--base-url', 'http://agents.example.com']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /clear text.*--allow-insecure-http/);
  });

  it('stops on Ctrl-C as a real process, printing the execution id to resume with', async function () {
    this.timeout(15_000);
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'running' });
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'run', 'ticket.agent.yaml', '-i', 'ticket=x'], { cwd: dir.path, env: { ...process.env, AGENT_WORKFLOWS_API_KEY: KEY } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    while (service.statusRequests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 130, stderr);
    assert.match(stderr, /Stopped watching execution [0-9a-f-]{36}; it may still be running\. Resume with:\n {2}agent-workflows status /);
  });
});
