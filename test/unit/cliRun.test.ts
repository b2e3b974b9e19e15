// `agent-workflows run` and `status` against a real service stand-in on 127.0.0.1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { ECHO_KEYS, echoedForms, leakedPart } from '../support/echoedSecrets';
import { startFakeService } from '../support/fakeAgentService';
import type { FakeService } from '../support/fakeAgentService';
import { closedPort, json, startServer } from '../support/httpServer';
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

  const cli = (args: string[], env: Record<string, string> = { AGENT_WORKFLOWS_API_KEY: KEY }, interrupt?: AbortSignal) =>
    runCliCaptured(args, { cwd: dir.path, env, ...(interrupt ? { interrupt } : {}) }, [KEY]);

  it('runs an agent with typed inputs and prints JSON', async () => {
    service.statusAnswer = (n, _id, response) =>
      json(response, 200, n === 0 ? { status: 'running' } : { status: 'finished', outputs: { text: 'done' } });
    const result = await cli([
      'run',
      'ticket.agent.yaml',
      '--input',
      'ticket=Printer on fire',
      '--input',
      'urgent=yes',
      '--input',
      'priority=high',
      '--json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const printed = JSON.parse(result.stdout) as { executionId: string; status: string; outputs: unknown };
    assert.equal(printed.status, 'finished');
    assert.deepEqual(printed.outputs, { text: 'done' });
    assert.deepEqual(service.starts[0]?.payload, {
      inputs: { ticket: 'Printer on fire', urgent: true, priority: 'high', count: 3 },
      stream: false,
    });
    assert.equal(service.starts[0]?.path, '/api/acme/agent/summarizer/execute');
    assert.match(result.stderr, /started Ticket summarizer as execution /);
  });

  it('uses multipart when a file input is given', async () => {
    const result = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--file', 'screenshot=shot.png']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(service.starts[0]?.path, '/api/acme/agent/summarizer/execute/multipart');
    assert.deepEqual(
      service.starts[0]?.parts.map((p) => [p.name, p.filename, p.data.length]),
      [
        ['payload', undefined, service.starts[0]?.parts[0]?.data.length],
        ['screenshot', 'shot.png', 1234],
      ],
    );
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
      // A name like any other, not "given twice" (an object's own "constructor").
      [['-i', 'ticket=x', '-i', 'constructor=x'], /no input "constructor"/],
      [['-i', 'ticket=x', '--timeout', 'soon'], /--timeout takes a number of seconds/],
      [['-i', 'ticket=x', '--file', 'screenshot=missing.png'], /The file for input "screenshot" does not exist: .*missing\.png/],
      [['-i', 'ticket=x', '--file', 'screenshot=.'], /not of an accepted type|is a directory/],
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

  it('never prints the key when the service echoes it in finished outputs, the status word or a problem answer', async () => {
    const echoed = { text: `your key is ${KEY}`, header: `Bearer ${KEY}`, encoded: encodeURIComponent(`${KEY}/x`), [KEY]: [KEY] };
    const masked = { text: 'your key is •••', header: 'Bearer •••', encoded: '•••%2Fx', '•••': ['•••'] };
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'finished', outputs: echoed });
    const text = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x']);
    assert.equal(text.code, 0, text.stderr);
    assert.deepEqual(JSON.parse(text.stdout), masked);
    const asJson = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--json']);
    assert.equal(asJson.code, 0, asJson.stderr);
    const printed = JSON.parse(asJson.stdout) as { executionId: string; outputs: unknown };
    assert.deepEqual(printed.outputs, masked);
    for (const json of [false, true]) {
      const once = await cli(['status', printed.executionId, '--base-url', service.url, '--account', 'acme', ...(json ? ['--json'] : [])]);
      assert.equal(once.code, 0, once.stderr);
      assert.match(once.stdout, /your key is •••/);
    }
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: `failed-${KEY}`, error: `bad ${KEY}` });
    const problem = await cli(['status', printed.executionId, '--base-url', service.url, '--account', 'acme', '--wait']);
    assert.equal(problem.code, 1);
    assert.match(problem.stderr, /ended with status "failed-•••"[\s\S]*bad •••/);
    for (const output of [text, asJson, problem])
      assert.doesNotMatch(output.stdout + output.stderr, new RegExp(`${KEY}|${encodeURIComponent(KEY)}`, 'i'));
  });

  it('never prints the key echoed Base64-encoded, in Basic credentials, URL-encoded, JSON-escaped or in another case', async () => {
    for (const key of ECHO_KEYS) {
      service.apiKey = key;
      const forms = echoedForms(key);
      service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'finished', outputs: forms });
      const result = await runCliCaptured(
        ['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--json'],
        { cwd: dir.path, env: { AGENT_WORKFLOWS_API_KEY: key } },
        [key],
      );
      assert.equal(result.code, 0, result.stderr);
      const outputs = (JSON.parse(result.stdout) as { outputs: Record<string, string> }).outputs;
      assert.deepEqual(Object.keys(outputs), Object.keys(forms));
      for (const [form, value] of Object.entries(outputs)) assert.equal(leakedPart(value, key), undefined, `${form}: ${value}`);
      assert.equal(leakedPart(result.stdout + result.stderr, key), undefined);
      for (const form of ['lower', 'base64', 'base64Unpadded', 'base64Url', 'base64UrlPadded'] as const)
        assert.equal(outputs[form], '•••', form);
      // At most the character that mixes the key's last bits with the ":" stays.
      assert.match(outputs.basicKeyAsUser!, /^Basic •••[A-Za-z0-9+/]?=*$/);
    }
  });

  describe('terminal escapes from the service', () => {
    const EVIL = '\u001b]0;PWNED\u0007\u001b[2J';
    const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

    const raw = (args: string[], stderrIsTTY = false) =>
      runCliCaptured(args, { cwd: dir.path, env: { AGENT_WORKFLOWS_API_KEY: KEY }, stderrIsTTY });

    it('never reach stdout or stderr raw: status word, problem answer, error page, outputs', async () => {
      service.statusAnswer = (_n, _id, response) => json(response, 200, { status: `failed${EVIL}`, error: `boom${EVIL}` });
      const problem = await raw(['run', 'ticket.agent.yaml', '-i', 'ticket=x']);
      assert.equal(problem.code, 1);
      assert.match(problem.stderr, /ended: failed\\u001b\]0;PWNED\\u0007\\u001b\[2J after/);
      const status = await raw(['status', '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01', '--base-url', service.url, '--account', 'acme']);
      assert.equal(status.code, 1);
      service.startAnswer = (response) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`error page ${EVIL} \u009b2J`);
      };
      const failing = await raw(['run', 'ticket.agent.yaml', '-i', 'ticket=x']);
      assert.equal(failing.code, 4);
      assert.match(failing.stderr, /error page \\u001b\]0;PWNED/);
      for (const output of [problem, status, failing]) assert.doesNotMatch(output.stdout + output.stderr, CONTROL, JSON.stringify(output));
    });

    it('keep --json output valid JSON with the same values', async () => {
      const text = `a\u009bb${EVIL}\u007f`;
      service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'finished', outputs: { text } });
      const result = await raw(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--json']);
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout, /[\u007f-\u009f]/);
      assert.deepEqual((JSON.parse(result.stdout) as { outputs: unknown }).outputs, { text });
    });

    it("leave only the spinner's own sequences on a terminal", async () => {
      service.statusAnswer = (n, _id, response) => json(response, 200, n === 0 ? { status: 'running' } : { status: `failed${EVIL}` });
      const result = await raw(['run', 'ticket.agent.yaml', '-i', 'ticket=x'], true);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /\r\u001b\[2K/, 'the spinner still draws');
      assert.doesNotMatch(result.stderr.split('\r\u001b[2K').join(''), CONTROL);
    });
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

  it('--timeout covers the start request: a start that hangs ends at the limit with exit 5', async () => {
    service.startAnswer = () => undefined; // never answers
    const started = Date.now();
    const result = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--timeout', '1']);
    const took = Date.now() - started;
    assert.equal(result.code, 5, result.stderr);
    assert.ok(took >= 900 && took < 2500, `took ${took} ms`);
    assert.match(result.stderr, /Starting the agent: .* did not answer after 1 s/);
    assert.match(result.stderr, /the run's time limit \(--timeout 1\) ran out while starting the agent/);
    assert.equal(service.starts.length, 1);
  });

  it('says only that it started with --no-wait --json: the service has not said more', async () => {
    const started = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--no-wait', '--json']);
    assert.equal(started.code, 0);
    const printed = JSON.parse(started.stdout) as { executionId: string; status: string; outputs: unknown };
    assert.deepEqual([printed.status, printed.outputs], ['started', null]);
    assert.equal(service.statusRequests.length, 0, 'no status was read');
  });

  it('returns at once with --no-wait, and status reads or waits for the execution', async () => {
    const started = await cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--no-wait']);
    assert.equal(started.code, 0);
    const executionId = started.stdout.trim();
    assert.match(executionId, /^[0-9a-f-]{36}$/);
    assert.equal(service.statusRequests.length, 0);
    service.statusAnswer = (n, _id, response) =>
      json(response, 200, n < 2 ? { status: 'running' } : { status: 'finished', outputs: { n } });
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
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'run', 'ticket.agent.yaml', '-i', 'ticket=x'], {
      cwd: dir.path,
      env: { ...process.env, AGENT_WORKFLOWS_API_KEY: KEY },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    while (service.statusRequests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    const signalledAt = Date.now();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 130, stderr);
    // It ends by itself: no request, timer or spinner is left to keep the process alive.
    assert.ok(Date.now() - signalledAt < 2000, `exited ${Date.now() - signalledAt} ms after Ctrl-C`);
    assert.match(stderr, /Stopped watching execution [0-9a-f-]{36}; it may still be running\. Resume with:\n {2}agent-workflows status /);
  });

  /** Runs dist/cli.js as a real process (asynchronously: the service runs in this process). */
  async function spawnCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const { AGENT_WORKFLOWS_API_KEY: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], { cwd: dir.path, env: { ...inherited, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    return { code, stdout, stderr };
  }

  it('runs as a real process: JSON on stdout, plain progress on stderr, exit codes', async function () {
    this.timeout(15_000);
    service.statusAnswer = (n, _id, response) =>
      json(response, 200, n === 0 ? { status: 'running' } : { status: 'finished', outputs: { text: 'ünï "done"' } });
    const finished = await spawnCli(
      ['run', 'ticket.agent.yaml', '--input', 'ticket=Printer on fire', '--file', 'screenshot=shot.png', '--json'],
      { AGENT_WORKFLOWS_API_KEY: KEY },
    );
    assert.equal(finished.code, 0, finished.stderr);
    const printed = JSON.parse(finished.stdout) as { executionId: string; status: string; outputs: unknown };
    assert.deepEqual({ ...printed, executionId: 'x' }, { executionId: 'x', status: 'finished', outputs: { text: 'ünï "done"' } });
    assert.match(finished.stderr, /^started Ticket summarizer as execution [0-9a-f-]{36} with screenshot \(1\.2 KB\)\nrunning: /);
    assert.doesNotMatch(finished.stderr, /\u001b\[/, 'no spinner when stderr is not a terminal');
    assert.equal(service.starts[0]?.parts[1]?.data.length, 1234);

    const noKey = await spawnCli(['status', printed.executionId, '--base-url', service.url, '--account', 'acme'], {});
    assert.equal(noKey.code, 3);
    assert.match(noKey.stderr, /No API key: set the AGENT_WORKFLOWS_API_KEY environment variable/);
    const usage = await spawnCli(['run', 'ticket.agent.yaml', '--input', 'nope=1'], { AGENT_WORKFLOWS_API_KEY: KEY });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /The agent has no input "nope"/);
  });

  it('follows no redirect to another origin as a real process: the inputs stay, the error names the origin', async function () {
    this.timeout(15_000);
    const other = await startServer((_request, response) =>
      json(response, 200, _request.method === 'POST' ? { status: 'ok', executionId: 'e-9' } : { status: 'finished', outputs: { x: 1 } }),
    );
    const redirector = await startServer((request, response) => {
      response.writeHead(request.method === 'POST' ? 307 : 302, { location: `http://localhost:${other.port}${request.url ?? '/'}` });
      response.end();
    });
    try {
      const run = await spawnCli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--base-url', redirector.url, '--json'], {
        AGENT_WORKFLOWS_API_KEY: KEY,
      });
      assert.equal(run.code, 4, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, new RegExp(`redirected \\(307\\) to another origin, http://localhost:${other.port}, which is not followed`));
      const status = await spawnCli(['status', 'e-9', '--base-url', redirector.url, '--account', 'acme'], { AGENT_WORKFLOWS_API_KEY: KEY });
      assert.equal(status.code, 4, status.stderr);
      assert.match(status.stderr, new RegExp(`redirected \\(302\\) to another origin, http://localhost:${other.port}`));
      assert.equal(other.requests.length, 0, 'nothing reached the other origin');
      assert.equal(redirector.requests.length, 2);
    } finally {
      await Promise.all([other.close(), redirector.close()]);
    }
  });

  it('status: in-progress words exit 0, a problem status exits 1 with the answer, a bad id exits 2', async () => {
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'queued' });
    const queued = await cli(['status', 'e-1', '--base-url', service.url, '--account', 'acme']);
    assert.deepEqual([queued.code, queued.stdout], [0, 'queued\n']);
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'failed', error: `node x failed; key was ${KEY}` });
    const failed = await cli(['status', 'e-1', '--base-url', service.url, '--account', 'acme']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /ended with status "failed"[\s\S]*node x failed; key was •••/);
    const failedJson = await cli(['status', 'e-1', '--base-url', service.url, '--account', 'acme', '--wait', '--json']);
    assert.equal(failedJson.code, 1);
    assert.deepEqual(JSON.parse(failedJson.stdout), {
      executionId: 'e-1',
      status: 'failed',
      outputs: null,
      answer: { status: 'failed', error: 'node x failed; key was •••' },
    });
    const requests = service.statusRequests.length;
    const badId = await cli(['status', '../../admin', '--base-url', service.url, '--account', 'acme', '--wait']);
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /is not an execution id/);
    assert.equal(service.statusRequests.length, requests, 'nothing is requested for a bad id');
  });

  it('exits 4 for a wrong path, a refused connection and a server error, 3 for a rotated key', async () => {
    const notFound = await cli([
      'status',
      'e-1',
      '--base-url',
      service.url,
      '--account',
      'acme',
      '--status-path',
      '/nowhere/{executionId}',
    ]);
    assert.equal(notFound.code, 4);
    assert.match(notFound.stderr, /404 Not Found\): check the account and agent paths/);
    const refused = await cli(['status', 'e-1', '--base-url', `http://127.0.0.1:${await closedPort()}`, '--account', 'acme']);
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, /connection refused/);
    service.statusAnswer = (_n, _id, response) => json(response, 500, { error: 'boom' });
    const serverError = await cli(['status', 'e-1', '--base-url', service.url, '--account', 'acme']);
    assert.equal(serverError.code, 4);
    const rotated = await cli(['status', 'e-1', '--base-url', service.url, '--account', 'acme'], { AGENT_WORKFLOWS_API_KEY: 'old-key' });
    assert.equal(rotated.code, 3);
    assert.match(rotated.stderr, /set or check the API key/);
  });

  it('prints a resume command that works as printed with a status path naming the agent', async () => {
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'running' });
    const template = '/api/{account}/agent/{agent}/runs/{executionId}/status';
    const interrupt = new AbortController();
    const pending = cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--status-path', template], undefined, interrupt.signal);
    while (service.statusRequests.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    interrupt.abort();
    const result = await pending;
    assert.equal(result.code, 130);
    const hint = /Resume with:\n {2}(.+)\n/.exec(result.stderr)?.[1] ?? '';
    assert.match(hint, / --status-path '\/api\/\{account\}\/agent\/\{agent\}\/runs\/\{executionId\}\/status' --agent summarizer --wait$/);
    // Run as printed (single-quoted words unquoted as a shell would): it finds the execution.
    const words = [...hint.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
    assert.equal(words.shift(), 'agent-workflows');
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'finished', outputs: { done: true } });
    const resumed = await cli(words);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(service.statusRequests.at(-1) ?? '', /^\/api\/acme\/agent\/summarizer\/runs\/[0-9a-f-]{36}\/status$/);
  });

  it('stops cleanly on Ctrl-C while waiting, printing the id to resume with (and JSON when asked)', async () => {
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'running' });
    const interrupt = new AbortController();
    const pending = cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x', '--json'], undefined, interrupt.signal);
    while (service.statusRequests.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    interrupt.abort();
    const result = await pending;
    assert.equal(result.code, 130);
    const printed = JSON.parse(result.stdout) as { executionId: string; status: string };
    assert.equal(printed.status, 'stopped-watching');
    assert.match(
      result.stderr,
      new RegExp(
        `Stopped watching execution ${printed.executionId}; it may still be running\\. Resume with:\\n  agent-workflows status ${printed.executionId} --base-url ${service.url} --account acme --wait`,
      ),
    );
  });

  it('on Ctrl-C while starting, says the agent may be running instead of suggesting a retry', async () => {
    service.startAnswer = () => undefined; // the start never answers
    const interrupt = new AbortController();
    const pending = cli(['run', 'ticket.agent.yaml', '-i', 'ticket=x'], undefined, interrupt.signal);
    while (service.starts.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    interrupt.abort();
    const result = await pending;
    assert.equal(result.code, 130);
    assert.match(
      result.stderr,
      /cancelled\. The request may have reached the service, so the agent may be running: check its executions before starting it again\./,
    );
    assert.equal(service.starts.length, 1);
  });
});
