// `agent-workflows serve`: the built command line in a child process (printed URL and key, real
// requests, SIGTERM and SIGINT), and in-process with `run` as its client.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { runCli } from '../../src/cli/main';
import { runCliCaptured } from '../support/cli';
import { waitFor } from '../integration/wait';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'serve-test-key-7';

const echoAgent = (api: string) => `version: 1
name: Echo
inputs:
  text: { type: string, required: true }
nodes:
  call:
    type: api
    method: POST
    url: ${api}/echo
    settings:
      - "Content-Type: application/json"
      - "Authorization: Bearer {{ secrets.ECHO_TOKEN }}"
    body: { text: "{{ inputs.text }}" }
outputs:
  echoed: { from: "{{ nodes.call.body.text }}" }
  authorized: { from: "{{ nodes.call.body.authorized }}" }
`;

const filesAgent = `version: 1
name: Files
inputs:
  doc: { type: file, required: true }
  title: { type: string, default: Untitled }
nodes:
  describe:
    type: template
    text: "{{ inputs.title }}: {{ inputs.doc.name }} ({{ inputs.doc.size }} bytes)"
outputs:
  text: { from: "{{ nodes.describe.body }}" }
`;

const needsSecret = `version: 1
name: Needs a secret
nodes:
  call:
    type: api
    method: GET
    url: https://api.example.com/items
    settings: ["x-api-key: {{ secrets.ITEMS_KEY }}"]
`;

describe('agent-workflows serve', () => {
  let dir: TempDir;
  let api: TestServer;
  const children: ChildProcessWithoutNullStreams[] = [];

  beforeEach(async () => {
    dir = makeTempDir();
    api = await startServer((incoming, response, body) =>
      json(response, 200, {
        text: JSON.parse(body.toString() || '{}').text ?? null,
        authorized: incoming.headers.authorization === 'Bearer echo-secret',
      }),
    );
    dir.write('agents/echo.agent.yaml', echoAgent(api.url));
    dir.write('agents/files.agent.yaml', filesAgent);
    dir.write('agents/items.agent.yaml', needsSecret);
    dir.write('agents/broken.agent.yaml', 'version: 1\nname: Broken\nnodes:\n  a:\n    type: templat\n');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await api.close();
    dir.remove();
  });

  function serveChild(
    args: string[],
    env: Record<string, string> = {},
  ): { child: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<number | null> } {
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'serve', ...args], {
      cwd: dir.path,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, output: () => output, exited };
  }

  async function call(
    method: 'GET' | 'POST',
    url: string,
    key: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const answer = await request(url, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: answer.statusCode, body: (await answer.body.json()) as Record<string, unknown> };
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`prints the URL, a generated key and the agents, runs agents with secrets from the environment, and stops on ${signal}`, async () => {
      const served = serveChild(['agents', '--port', '0'], { AGENT_SECRET_ECHO_TOKEN: 'echo-secret' });
      const started = await waitFor(
        () =>
          /listening on (http:\/\/127\.0\.0\.1:\d+)\n {2}API key \(made for this session\): (\S+)\n[\s\S]*Press Ctrl-C to stop\./.exec(
            served.output(),
          ) ?? undefined,
        'the server to start',
      );
      const [, url, key] = started;
      const output = served.output();
      assert.match(output, new RegExp(`^Local agent server for ${dir.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/agents\n`));
      assert.match(output, new RegExp(` {2}local/echo {2}echo\\.agent\\.yaml {2}POST ${url}/api/local/agent/echo/execute\n`));
      assert.match(output, / {2}local\/files {2}files\.agent\.yaml/);
      assert.match(output, / {2}✗ broken\.agent\.yaml is not served: broken\.agent\.yaml has \d+ errors? and cannot run/);
      assert.match(output, /Not set now: AGENT_SECRET_ITEMS_KEY \(local\/items\)\./);
      assert.doesNotMatch(output, /AGENT_SECRET_ECHO_TOKEN/, 'a secret that is set is not listed');

      assert.equal((await call('POST', `${url}/api/local/agent/echo/execute`, 'wrong', { inputs: { text: 'x' } })).status, 401);
      const start = await call('POST', `${url}/api/local/agent/echo/execute`, key!, { inputs: { text: 'from the CLI' }, stream: false });
      assert.equal(start.status, 200);
      const done = await waitFor(async () => {
        const answer = await call('GET', `${url}/api/local/agent/${String(start.body.executionId)}/status`, key!);
        return answer.body.status === 'finished' ? answer.body : undefined;
      }, 'the execution to finish');
      assert.deepEqual(done.outputs, { echoed: 'from the CLI', authorized: true });
      await waitFor(
        () => served.output().includes(`execution ${String(start.body.executionId)} local/echo finished in`),
        'the execution to be logged',
      );

      served.child.kill(signal);
      assert.equal(await served.exited, 0, served.output());
      assert.match(served.output(), /Stopping: cancelling running executions…\nStopped\.\n$/);
      await assert.rejects(request(`${url}/api/local/agent/echo/execute`, { method: 'POST' }), /ECONNREFUSED/);
    });
  }

  it('reloads an agent file while serving and says so', async () => {
    const served = serveChild(['agents', '--port', '0', '--api-key', KEY]);
    await waitFor(() => served.output().includes('Press Ctrl-C to stop.'), 'the server to start');
    assert.match(served.output(), / {2}API key: from --api-key\n/);
    assert.doesNotMatch(served.output(), new RegExp(KEY), 'a given key is not printed');
    dir.write('agents/broken.agent.yaml', 'version: 1\nname: Fixed\nnodes:\n  a:\n    type: template\n    text: fixed\n');
    await waitFor(() => served.output().includes('reloaded local/broken (broken.agent.yaml)'), 'the fixed file to be reloaded');
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
  });

  it('answers a Host naming it, or a name given with --allow-host, and 421 to any other', async () => {
    const served = serveChild(['agents', '--port', '0', '--api-key', KEY, '--allow-host', 'agents.test', '--allow-host', 'tunnel.test']);
    const url = await waitFor(() => /listening on (\S+)/.exec(served.output())?.[1], 'the server to start');
    const path = `${url}/api/local/agent/00000000-0000-0000-0000-000000000000/status`;
    let refusal = '';
    const statusFor = async (host: string): Promise<number> => {
      const answer = await request(path, { headers: { authorization: `Bearer ${KEY}`, host } });
      const text = await answer.body.text();
      if (answer.statusCode === 421) refusal = text;
      return answer.statusCode;
    };
    assert.deepEqual(
      await Promise.all(['agents.test', 'tunnel.test:443', new URL(url).host, 'localhost', 'evil.example'].map(statusFor)),
      [404, 404, 404, 404, 421],
    );
    // The command line's way to let another name in, said by the command line.
    assert.match(refusal, /, or start the server with --allow-host set to the name you use\./);
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
  });

  describe('in-process, with run as the client', () => {
    async function startServe(args: string[], env: Record<string, string>) {
      const stop = new AbortController();
      let stdout = '';
      let stderr = '';
      const finished = runCli(['serve', ...args], {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
        cwd: dir.path,
        env,
        interrupt: stop.signal,
      });
      const url = await waitFor(
        () => /listening on (\S+)/.exec(stdout)?.[1] ?? (stderr ? Promise.reject(new Error(stderr)) : undefined),
        'serve to start',
      );
      return { url, stop: () => stop.abort(), finished, output: () => stdout + stderr };
    }

    const cli = (args: string[]) => runCliCaptured(args, { cwd: join(dir.path, 'agents'), env: { AGENT_WORKFLOWS_API_KEY: KEY } });

    it('runs agents through `agent-workflows run` against the local server, JSON and multipart', async () => {
      const serve = await startServe(['agents', '--port', '0'], { AGENT_WORKFLOWS_API_KEY: KEY, AGENT_SECRET_ECHO_TOKEN: 'echo-secret' });
      try {
        assert.match(serve.output(), / {2}API key: from AGENT_WORKFLOWS_API_KEY\n/);
        const target = ['--base-url', serve.url, '--account', 'local'];
        const echo = await cli(['run', 'echo.agent.yaml', ...target, '--agent', 'echo', '-i', 'text=hello there', '--json']);
        assert.equal(echo.code, 0, echo.stderr);
        assert.deepEqual(JSON.parse(echo.stdout).outputs, { echoed: 'hello there', authorized: true });
        dir.write('agents/report.pdf', Buffer.alloc(2048, 7));
        const files = await cli([
          'run',
          'files.agent.yaml',
          ...target,
          '--agent',
          'files',
          '-f',
          'doc=report.pdf',
          '-i',
          'title=Q3',
          '--json',
        ]);
        assert.equal(files.code, 0, files.stderr);
        assert.deepEqual(JSON.parse(files.stdout).outputs, { text: 'Q3: report.pdf (2048 bytes)' });
        const missing = await cli(['run', 'items.agent.yaml', ...target, '--agent', 'items', '--json']);
        assert.equal(missing.code, 1);
        assert.equal(JSON.parse(missing.stdout).status, 'failed');
        assert.match(
          JSON.parse(missing.stdout).answer.error,
          /Secret "ITEMS_KEY" is not set: set the environment variable AGENT_SECRET_ITEMS_KEY/,
        );
      } finally {
        serve.stop();
        assert.equal(await serve.finished, 0);
      }
      assert.match(serve.output(), /Stopped\.\n$/);
    });

    it('warns about a short API key before listening beyond this machine', async () => {
      const serveOn = async (host: string, key: string) => {
        let stderr = '';
        // 192.0.2.1 (TEST-NET-1) is no address of this machine: the bind fails at once, nothing listens.
        const code = await runCli(['serve', 'agents', '--host', host, '--port', '0', '--api-key', key], {
          stdout: () => undefined,
          stderr: (t) => (stderr += t),
          cwd: dir.path,
          env: {},
          interrupt: AbortSignal.abort(),
        });
        return { code, stderr };
      };
      const short = await serveOn('192.0.2.1', 'k');
      assert.equal(short.code, 2);
      assert.match(
        short.stderr,
        /^warning: the API key is 1 character long, short enough to guess from another machine\. Use a key of at least 16 characters, or leave out --api-key and AGENT_WORKFLOWS_API_KEY to have one generated\.\n/,
      );
      assert.match(short.stderr, /192\.0\.2\.1 is not an address of this machine/);
      assert.doesNotMatch((await serveOn('192.0.2.1', 'a-key-of-20-chars-xx')).stderr, /warning/, 'a long key is not warned about');
      assert.doesNotMatch((await serveOn('127.0.0.1', 'k')).stderr, /warning/, 'nor a short key on this machine only');
    });

    it('exits 2 with a clear message for a folder that does not exist, a bad port or a port in use', async () => {
      const errors: string[] = [];
      const run = async (args: string[]) => {
        let stderr = '';
        const code = await runCli(['serve', ...args], { stdout: () => undefined, stderr: (t) => (stderr += t), cwd: dir.path, env: {} });
        errors.push(stderr);
        return code;
      };
      assert.equal(await run(['missing-folder']), 2);
      assert.match(errors.pop()!, /missing-folder is not a folder; give the folder that holds your \*\.agent\.yaml files\./);
      assert.equal(await run(['agents', '--port', '99999']), 2);
      assert.match(errors.pop()!, /--port takes a whole number from 0 to 65535, not "99999"\./);
      assert.equal(await run(['agents', '--allow-host', 'http://agents.test/']), 2);
      assert.match(
        errors.pop()!,
        /--allow-host takes a host name or address, like agents\.example\.com or 192\.168\.1\.5, not "http:\/\/agents\.test\/"\./,
      );
      assert.equal(await run(['agents', '--concurrency', '0']), 2);
      assert.match(errors.pop()!, /--concurrency takes a whole number from 1 to 1000/);
      // Digits only, as for every whole-number flag: "1e2" is not 100 (were it taken, the server would start,
      // and the interrupt given beforehand would stop it at once with exit 0).
      let stderr = '';
      const exponent = await runCli(['serve', 'agents', '--port', '0', '--concurrency', '1e2'], {
        stdout: () => undefined,
        stderr: (t) => (stderr += t),
        cwd: dir.path,
        env: {},
        interrupt: AbortSignal.abort(),
      });
      assert.equal(exponent, 2, stderr);
      assert.match(stderr, /--concurrency takes a whole number from 1 to 1000, not "1e2"\./);
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      try {
        const port = (taken.address() as AddressInfo).port;
        assert.equal(await run(['agents', '--port', String(port)]), 2);
        assert.match(errors.pop()!, new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use\\. Choose another port`));
      } finally {
        await new Promise<void>((resolve) => taken.close(() => resolve()));
      }
    });
  });
});
