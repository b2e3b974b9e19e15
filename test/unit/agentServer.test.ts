// The local agent server over real HTTP on 127.0.0.1: every route and error, multipart uploads,
// authentication, file watching, retention, queueing and shutdown. The agents call a real echo API.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FormData, request } from 'undici';
import { envSecretResolver } from '../../src/core/engine/secrets';
import { startAgentServer } from '../../src/core/server/agentServer';
import { statusAnswer } from '../../src/core/server/serverExecutions';
import { AllowedHosts } from '../../src/core/server/allowedHosts';
import { KeyFailures } from '../../src/core/server/keyFailures';
import type { AgentServer, AgentServerOptions, ServerEvent } from '../../src/core/server/agentServer';
import { getExchanges, getStatus, startMultipartExecution } from '../../src/core/service/agentClient';
import { waitFor } from '../integration/wait';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const echoAgent = (api: string) => `version: 1
name: Echo
inputs:
  text: { type: string, required: true }
  delay: { type: number, default: 0 }
nodes:
  call:
    type: api
    method: POST
    url: ${api}/echo?delay={{ inputs.delay }}
    settings:
      - "Content-Type: application/json"
      - "Authorization: Bearer {{ secrets.ECHO_TOKEN }}"
    body: { text: "{{ inputs.text }}" }
outputs:
  echoed: { from: "{{ nodes.call.body.json.text }}" }
  authorized: { from: "{{ nodes.call.body.authorized }}" }
`;

const filesAgent = (api: string) => `version: 1
name: Files
inputs:
  doc: { type: file, required: true, accept: [.txt, text/plain] }
  photo: { type: file, required: true, accept: [image/*] }
  note: { type: string }
  delay: { type: number, default: 0 }
nodes:
  upload:
    type: api
    method: POST
    url: ${api}/upload?delay={{ inputs.delay }}
    body: "{{ inputs.photo }}"
outputs:
  doc: { from: "{{ inputs.doc }}" }
  photo_name: { from: "{{ inputs.photo.name }}" }
  note: { from: "{{ inputs.note }}" }
  uploaded: { from: "{{ nodes.upload.body.base64 }}" }
  uploaded_type: { from: "{{ nodes.upload.body.type }}" }
`;

const failingAgent = (api: string) => `version: 1
name: Failing
nodes:
  broken_call:
    type: api
    method: GET
    url: ${api}/fail
`;

const brokenAgent = `version: 1
name: Broken
nodes:
  a:
    type: template
    text: "{{ nodes.missing.body }}"
`;

const billingAgent = `version: 1
name: Billing
deployment:
  account: acme
nodes:
  hello:
    type: template
    text: billing
outputs:
  text: { from: "{{ nodes.hello.body }}" }
`;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Record<string, unknown>;
}

describe('local agent server', () => {
  let dir: TempDir;
  let uploads: TempDir;
  let api: TestServer;
  let server: AgentServer | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const events: ServerEvent[] = [];
  /** Raw client sockets a test opened. */
  const sockets = new Set<Socket>();

  beforeEach(async () => {
    dir = makeTempDir();
    uploads = makeTempDir('agent-workflows-uploads-');
    api = await startServer((incoming, response, body) => {
      const url = new URL(incoming.url ?? '/', 'http://x');
      if (url.pathname === '/fail') return json(response, 500, { error: 'the API is down' });
      if (url.pathname === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('y'.repeat(Number(url.searchParams.get('bytes'))));
        return;
      }
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          json(response, 200, {
            json: incoming.headers['content-type'] === 'application/json' ? JSON.parse(body.toString()) : null,
            authorized: incoming.headers.authorization === 'Bearer echo-secret',
            type: incoming.headers['content-type'] ?? null,
            base64: body.toString('base64'),
          });
        },
        Number(url.searchParams.get('delay') ?? 0),
      );
      timers.add(timer);
    });
    dir.write('echo.agent.yaml', echoAgent(api.url));
    dir.write('files.agent.yml', filesAgent(api.url));
    dir.write('failing.agent.yaml', failingAgent(api.url));
    dir.write('broken.agent.yaml', brokenAgent);
    dir.write('teams/billing.agent.yaml', billingAgent);
    dir.write('notes.md', '# not an agent');
    events.length = 0;
  });

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await server?.close();
    server = undefined;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    await api.close();
    dir.remove();
    uploads.remove();
  });

  async function start(options: Partial<AgentServerOptions> = {}): Promise<AgentServer> {
    server = await startAgentServer({
      directory: dir.path,
      port: 0,
      apiKey: 'test-key',
      secrets: envSecretResolver({ AGENT_SECRET_ECHO_TOKEN: 'echo-secret' }),
      uploadDirectory: uploads.path,
      onEvent: (event) => events.push(event),
      ...options,
    });
    return server;
  }

  async function call(
    method: string,
    path: string,
    options: { body?: string | FormData; headers?: Record<string, string>; key?: string | null } = {},
  ): Promise<Answer> {
    const key = options.key === undefined ? 'test-key' : options.key;
    const answer = await request(`${server!.url}${path}`, {
      method: method as 'GET',
      headers: {
        ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
        ...(typeof options.body === 'string' ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    const text = await answer.body.text();
    return { status: answer.statusCode, headers: answer.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  async function execute(agent: string, inputs: Record<string, unknown>, account = 'local'): Promise<string> {
    const answer = await call('POST', `/api/${account}/agent/${agent}/execute`, { body: JSON.stringify({ inputs, stream: false }) });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.executionId as string;
  }

  /** Bytes of the files in the upload folders. */
  function uploadedBytesOnDisk(): number {
    return readdirSync(uploads.path, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .reduce((total, entry) => total + (statSync(join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.size ?? 0), 0);
  }

  /**
   * A POST over a raw socket whose body the test sends a piece at a time: it decides when (and
   * whether) the body ends, and reads an answer that comes before.
   */
  async function openPost(
    path: string,
    contentType: string,
    contentLength: number,
  ): Promise<{ write(bytes: Uint8Array | string): void; answer(): Answer | undefined }> {
    const socket = connect(server!.port, '127.0.0.1');
    sockets.add(socket);
    // The server closes a connection whose body it refused.
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const received: Buffer[] = [];
    socket.on('data', (data: Buffer) => received.push(data));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-key\r\nContent-Type: ${contentType}\r\nContent-Length: ${contentLength}\r\n\r\n`,
    );
    return {
      write: (bytes) => socket.write(bytes),
      answer: () => {
        const text = Buffer.concat(received).toString('utf8');
        const headEnd = text.indexOf('\r\n\r\n');
        if (headEnd < 0) return undefined;
        const [statusLine = '', ...lines] = text.slice(0, headEnd).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        const body = text.slice(headEnd + 4);
        if (Buffer.byteLength(body) < Number(headers['content-length'])) return undefined;
        return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as Record<string, unknown> };
      },
    };
  }

  /** A multipart upload to the files agent over a raw socket (openPost), its photo sent a piece at a time. */
  async function openUpload(photoBytes: number): Promise<{
    sendPhoto(bytes: number): void;
    finish(): void;
    answer(): Answer | undefined;
  }> {
    const boundary = 'test-boundary';
    const part = (name: string, file?: { name: string; type: string }): string =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file.name}"\r\nContent-Type: ${file.type}` : ''}\r\n\r\n`;
    const head = `${part('payload')}${JSON.stringify({ inputs: {} })}\r\n${part('doc', { name: 'a.txt', type: 'text/plain' })}hello\r\n${part('photo', { name: 'p.png', type: 'image/png' })}`;
    const tail = `\r\n--${boundary}--\r\n`;
    const post = await openPost(
      '/api/local/agent/files/execute/multipart',
      `multipart/form-data; boundary=${boundary}`,
      Buffer.byteLength(head) + photoBytes + Buffer.byteLength(tail),
    );
    post.write(head);
    let sent = 0;
    return {
      sendPhoto: (bytes) => {
        post.write(Buffer.alloc(bytes, 1));
        sent += bytes;
      },
      finish: () => {
        post.write(Buffer.alloc(photoBytes - sent, 1));
        post.write(tail);
      },
      answer: post.answer,
    };
  }

  async function ended(executionId: string, account = 'local'): Promise<Record<string, unknown>> {
    return waitFor(async () => {
      const answer = await call('GET', `/api/${account}/agent/${executionId}/status`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.status === 'running' || answer.body.status === 'queued' ? undefined : answer.body;
    }, `execution ${executionId} to end`);
  }

  it("answers the exchanges of an execution: each API node's request and answer, the secret by name", async () => {
    await start();
    const id = await execute('echo', { text: 'hello' });
    assert.equal((await ended(id)).status, 'finished');
    const answer = await call('GET', `/api/local/agent/${id}/exchanges`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const { executionId, exchanges, bodiesNotKept, notKept } = answer.body as {
      executionId: string;
      exchanges: {
        node: string;
        request: { method: string; url: string; headers: { name: string; value: string }[] };
        response: { status: number; body: { text: string } };
      }[];
      bodiesNotKept: string[];
      notKept: number;
    };
    assert.equal(executionId, id);
    assert.deepEqual(bodiesNotKept, []);
    assert.equal(notKept, 0);
    assert.equal(exchanges.length, 1);
    const [exchange] = exchanges;
    assert.equal(exchange?.node, 'call');
    assert.equal(exchange?.request.method, 'POST');
    assert.equal(exchange?.request.url, `${api.url}/echo?delay=0`);
    assert.ok(
      exchange?.request.headers.some(
        (header) => /^authorization$/i.test(header.name) && header.value === 'Bearer {{ secrets.ECHO_TOKEN }}',
      ),
      JSON.stringify(exchange?.request.headers),
    );
    assert.equal(exchange?.response.status, 200);
    assert.match(exchange?.response.body.text ?? '', /"authorized":true/);
    assert.doesNotMatch(JSON.stringify(answer.body), /echo-secret/);
    // Read by the client, as the editor reads them after an execution on a local server ends.
    const target = { baseUrl: server!.url, account: 'local', agent: 'echo', apiKey: 'test-key' };
    const read = await getExchanges(target, id);
    assert.deepEqual(
      read?.exchanges.map((kept) => [kept.node, kept.response?.status]),
      [['call', 200]],
    );
    assert.equal(await getExchanges(target, '00000000-0000-4000-8000-000000000000'), undefined, 'an id the server does not know');

    // Another account's, an unknown id: 404, as for the status.
    assert.equal((await call('GET', `/api/billing/agent/${id}/exchanges`)).status, 404);
    assert.equal((await call('GET', '/api/local/agent/00000000-0000-4000-8000-000000000000/exchanges')).status, 404);
    assert.equal((await call('POST', `/api/local/agent/${id}/exchanges`)).status, 405);
  });

  it('keeps the exchanges of ended executions within their byte budget, the oldest let go first (410)', async () => {
    // Room for one execution's exchanges and a half: measured on a first server.
    await start();
    const measured = await execute('echo', { text: 'one' });
    await ended(measured);
    const size = Buffer.byteLength(JSON.stringify((await call('GET', `/api/local/agent/${measured}/exchanges`)).body));
    await server!.close();
    server = undefined;
    const budget = Math.floor(size * 1.5);
    await start({ limits: { maxRetainedExchangeBytes: budget } });
    const first = await execute('echo', { text: 'one' });
    await ended(first);
    const second = await execute('echo', { text: 'two' });
    await ended(second);
    assert.equal((await call('GET', `/api/local/agent/${second}/exchanges`)).status, 200);
    const gone = await call('GET', `/api/local/agent/${first}/exchanges`);
    assert.equal(gone.status, 410, JSON.stringify(gone.body));
    assert.equal(gone.body.code, 'exchanges-not-kept');
    assert.match(String(gone.body.error), /keeps at most \d+ (bytes|KiB) of the exchanges of ended executions, the oldest going first/);
    // The status is still there: only the exchanges went.
    assert.equal((await call('GET', `/api/local/agent/${first}/status`)).status, 200);

    await server!.close();
    server = undefined;
    await start({ limits: { maxRetainedExchangeBytes: 0 } });
    const none = await execute('echo', { text: 'three' });
    await ended(none);
    const off = await call('GET', `/api/local/agent/${none}/exchanges`);
    assert.equal(off.status, 410);
    assert.match(String(off.body.error), /records no exchanges/);
  });

  it('binds to 127.0.0.1 and answers a start exactly like the service: {"status":"ok","executionId"}', async () => {
    await start();
    assert.equal(server!.host, '127.0.0.1');
    assert.match(server!.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text: 'hi' }, stream: false }) });
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.body), ['status', 'executionId']);
    assert.equal(answer.body.status, 'ok');
    assert.match(answer.body.executionId as string, UUID);
  });

  describe('authentication', () => {
    it('refuses a request without the key, with a wrong key or with the key elsewhere (401)', async () => {
      await start();
      for (const attempt of [
        call('POST', '/api/local/agent/echo/execute', { key: null, body: '{}' }),
        call('POST', '/api/local/agent/echo/execute', { key: 'test-kez', body: '{}' }),
        call('POST', '/api/local/agent/echo/execute', { key: 'test-key-and-more', body: '{}' }),
        call('POST', '/api/local/agent/echo/execute', { key: null, headers: { authorization: 'Basic dGVzdC1rZXk6' }, body: '{}' }),
        call('GET', '/api/local/agent/echo/status?key=test-key', { key: null }),
        call('GET', '/nowhere', { key: null }),
      ]) {
        const answer = await attempt;
        assert.equal(answer.status, 401);
        assert.equal(answer.body.code, 'unauthorized');
        assert.match(answer.body.error as string, /Authorization: Bearer <key>/);
        assert.equal(answer.headers['www-authenticate'], 'Bearer realm="agent-workflows"');
      }
    });

    it('accepts the scheme in any case, and generates a key when none is given', async () => {
      await start({ apiKey: undefined });
      assert.equal(server!.apiKeyGenerated, true);
      assert.match(server!.apiKey, /^[A-Za-z0-9_-]{32}$/);
      const answer = await call('POST', '/api/local/agent/echo/execute', {
        key: null,
        headers: { authorization: `bearer ${server!.apiKey}` },
        body: JSON.stringify({ inputs: { text: 'x' } }),
      });
      assert.equal(answer.status, 200);
    });
  });

  describe('executions', () => {
    it('reports running with a live trace, then finished with outputs', async () => {
      await start();
      const id = await execute('echo', { text: 'Printer on fire', delay: 300 });
      const running = await call('GET', `/api/local/agent/${id}/status`);
      assert.equal(running.status, 200);
      assert.equal(running.body.status, 'running');
      assert.equal(running.body.executionId, id);
      await waitFor(
        async () => ((await call('GET', `/api/local/agent/${id}/status`)).body.trace as Array<{ status: string }>)[0]?.status === 'running',
        'the node to show as running',
      );
      const done = await ended(id);
      assert.equal(done.status, 'finished');
      assert.deepEqual(done.outputs, { echoed: 'Printer on fire', authorized: true });
      const [trace] = done.trace as Array<Record<string, unknown>>;
      assert.equal(trace!.node, 'call');
      assert.equal(trace!.status, 'succeeded');
      assert.equal(trace!.httpStatus, 200);
      assert.ok((trace!.durationMs as number) >= 290, `duration ${String(trace!.durationMs)}`);
      assert.ok(!JSON.stringify(done).includes('echo-secret'), 'no secret in the status');
      const ended_ = events.find((event) => event.kind === 'execution-ended');
      assert.ok(ended_ && ended_.kind === 'execution-ended' && ended_.execution.executionId === id);
    });

    it('reports a failed execution with the error and the node', async () => {
      await start();
      const id = await execute('failing', {});
      const done = await ended(id);
      assert.equal(done.status, 'failed');
      assert.equal(done.node, 'broken_call');
      assert.equal(done.error, `Node "broken_call" failed: GET ${api.url}/fail answered 500: "{"error":"the API is down"}".`);
    });

    it('runs many executions at once without mixing them up', async () => {
      await start();
      const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => execute('echo', { text: `run ${n}`, delay: 50 })));
      assert.equal(new Set(ids).size, 20);
      const results = await Promise.all(ids.map((id) => ended(id)));
      assert.deepEqual(
        results.map((result) => (result.outputs as { echoed: string }).echoed),
        ids.map((_, n) => `run ${n}`),
      );
    });

    it('queues executions beyond maxRunning', async () => {
      await start({ limits: { maxRunning: 1 } });
      const first = await execute('echo', { text: 'one', delay: 200 });
      const second = await execute('echo', { text: 'two' });
      assert.equal((await call('GET', `/api/local/agent/${second}/status`)).body.status, 'queued');
      assert.equal((await ended(second)).status, 'finished');
      assert.equal(
        (await call('GET', `/api/local/agent/${first}/status`)).body.status,
        'finished',
        'the first ended before the second started',
      );
    });

    it('refuses a start with 429 and Retry-After while maxQueued executions wait, and takes it once the queue drains', async () => {
      await start({ limits: { maxRunning: 1, maxQueued: 1 } });
      const first = await execute('echo', { text: 'one', delay: 400 });
      const second = await execute('echo', { text: 'two' });
      const refused = await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text: 'three' } }) });
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.body.code, 'too-many-executions');
      assert.equal(refused.body.error, '1 execution is already waiting to run; try again shortly.');
      assert.equal((await call('GET', `/api/local/agent/${second}/status`)).body.status, 'queued', 'the waiting one is kept');
      await ended(first);
      await ended(second);
      assert.equal(
        (await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text: 'three' } }) })).status,
        200,
        'accepted again once the queue has drained',
      );
    });

    it('forgets ended executions after the retention time, and beyond the most it keeps', async () => {
      await start({ limits: { maxRetained: 1, retentionMs: 100 } });
      const first = await execute('echo', { text: 'one' });
      await ended(first);
      const second = await execute('echo', { text: 'two' });
      await ended(second);
      const evicted = await call('GET', `/api/local/agent/${first}/status`);
      assert.equal(evicted.status, 410, 'only the latest is kept');
      assert.equal(evicted.body.code, 'execution-removed');
      assert.match(
        evicted.body.error as string,
        /is no longer kept\. It was removed to keep the server's memory bounded: the server keeps at most 1 ended executions/,
      );
      const expired = await waitFor(
        async () => {
          const answer = await call('GET', `/api/local/agent/${second}/status`);
          return answer.status === 410 ? answer : undefined;
        },
        'the execution to be forgotten',
        5000,
      );
      assert.match(expired.body.error as string, /It ended more than 100 ms ago, and ended executions are kept for 100 ms\./);
    });

    it('serves an agent under the account of its deployment', async () => {
      await start();
      const id = await execute('billing', {}, 'acme');
      assert.deepEqual((await ended(id, 'acme')).outputs, { text: 'billing' });
      const local = await call('POST', '/api/local/agent/billing/execute', { body: '{}' });
      assert.equal(local.status, 404);
      assert.match(
        local.body.error as string,
        /No agent "billing" in account "local"\. teams\/billing\.agent\.yaml is served as acme\/billing\./,
      );
      const otherAccount = await call('GET', `/api/local/agent/${id}/status`);
      assert.equal(otherAccount.status, 404, 'an execution is read in its own account');
    });

    it('lists the agents it serves, with the reason when one cannot run', async () => {
      await start();
      assert.deepEqual(
        server!.agents().map((agent) => [agent.file, `${agent.account}/${agent.agent}`, agent.loaded ? 'ok' : agent.error!.split('\n')[0]]),
        [
          ['broken.agent.yaml', 'local/broken', 'broken.agent.yaml has 1 error and cannot run until it is fixed:'],
          ['echo.agent.yaml', 'local/echo', 'ok'],
          ['failing.agent.yaml', 'local/failing', 'ok'],
          ['files.agent.yml', 'local/files', 'ok'],
          ['teams/billing.agent.yaml', 'acme/billing', 'ok'],
        ],
      );
    });
  });

  describe('errors', () => {
    const cases: Array<[string, string, string, { body?: string; headers?: Record<string, string> }, number, string, RegExp]> = [
      [
        'bad JSON',
        'POST',
        '/api/local/agent/echo/execute',
        { body: '{"inputs": ' },
        400,
        'bad-json',
        /^The request body is not valid JSON \(.*\)\. Send \{"inputs": \{…\}, "stream": false\}\.$/,
      ],
      ['a JSON list', 'POST', '/api/local/agent/echo/execute', { body: '[1]' }, 400, 'bad-json', /must be a JSON object/],
      [
        'inputs that are not an object',
        'POST',
        '/api/local/agent/echo/execute',
        { body: '{"inputs": [1]}' },
        400,
        'bad-request',
        /^"inputs" in the request body must be an object/,
      ],
      [
        'an unknown input',
        'POST',
        '/api/local/agent/echo/execute',
        { body: '{"inputs": {"text": "x", "txet": "y"}}' },
        400,
        'unknown-input',
        /^The agent has no input "txet"\. Did you mean "text"\?$/,
      ],
      [
        'a missing required input',
        'POST',
        '/api/local/agent/echo/execute',
        { body: '{"inputs": {}}' },
        400,
        'invalid-inputs',
        /^Input "text" is required: give it in "inputs"\.$/,
      ],
      [
        'a value of the wrong type',
        'POST',
        '/api/local/agent/echo/execute',
        { body: '{"inputs": {"text": "x", "delay": "soon"}}' },
        400,
        'invalid-inputs',
        /Input "delay" must be a number, not "soon"/,
      ],
      [
        'a number in hexadecimal',
        'POST',
        '/api/local/agent/echo/execute',
        { body: '{"inputs": {"text": "x", "delay": "0x10"}}' },
        400,
        'invalid-inputs',
        /^Input "delay" must be a number, not "0x10"\.$/,
      ],
      [
        'streaming',
        'POST',
        '/api/local/agent/echo/execute',
        { body: '{"inputs": {"text": "x"}, "stream": true}' },
        400,
        'bad-request',
        /does not stream results/,
      ],
      [
        'an unknown agent',
        'POST',
        '/api/local/agent/nope/execute',
        { body: '{}' },
        404,
        'unknown-agent',
        /^No agent "nope" in account "local"\. Agents in "local": broken, echo, failing, files\.$/,
      ],
      [
        'an unknown account',
        'POST',
        '/api/other/agent/echo/execute',
        { body: '{}' },
        404,
        'unknown-agent',
        /No agent "echo" in account "other"\. echo\.agent\.yaml is served as local\/echo\./,
      ],
      [
        'an agent whose file has errors',
        'POST',
        '/api/local/agent/broken/execute',
        { body: '{}' },
        422,
        'agent-has-errors',
        /^broken\.agent\.yaml has 1 error and cannot run until it is fixed:\nbroken\.agent\.yaml:6:21: unknown-node There is no node "missing"/,
      ],
      [
        'an unknown execution',
        'GET',
        '/api/local/agent/3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01/status',
        {},
        404,
        'unknown-execution',
        /^No execution "3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01" in account "local"\. Executions are kept for 60 minutes/,
      ],
      ['an execution id that is no id', 'GET', '/api/local/agent/..%2F..%2Fetc/status', {}, 404, 'unknown-execution', /No execution/],
      [
        'an unknown route',
        'GET',
        '/api/local/agents',
        {},
        404,
        'no-route',
        /^Nothing at GET \/api\/local\/agents\. This server answers POST \/api\/\{account\}\/agent\/\{agent\}\/execute/,
      ],
      ['the wrong method', 'GET', '/api/local/agent/echo/execute', {}, 405, 'method-not-allowed', /answers POST only/],
      [
        'multipart sent to /execute',
        'POST',
        '/api/local/agent/echo/execute',
        { headers: { 'content-type': 'multipart/form-data; boundary=x' } },
        415,
        'unsupported-media-type',
        /go to \/api\/local\/agent\/echo\/execute\/multipart/,
      ],
      [
        'JSON sent to /execute/multipart',
        'POST',
        '/api/local/agent/files/execute/multipart',
        { body: '{}' },
        415,
        'unsupported-media-type',
        /Send multipart\/form-data/,
      ],
      [
        'a body over the JSON limit',
        'POST',
        '/api/local/agent/echo/execute',
        { body: JSON.stringify({ inputs: { text: 'x'.repeat(2 * 1024 * 1024) } }) },
        413,
        'too-large',
        /^The request body is larger than 1 MiB/,
      ],
    ];
    for (const [what, method, path, options, status, code, message] of cases) {
      it(`answers ${status} ${code} for ${what}`, async () => {
        await start();
        const answer = await call(method, path, options);
        assert.equal(answer.status, status, JSON.stringify(answer.body));
        assert.equal(answer.body.code, code);
        assert.match(answer.body.error as string, message);
        assert.match(String(answer.headers['content-type']), /^application\/json/);
        if (status === 405) assert.equal(answer.headers.allow, 'POST');
      });
    }

    it('lists every input problem', async () => {
      await start();
      const answer = await call('POST', '/api/local/agent/echo/execute', { body: '{"inputs": {"delay": "x", "extra": 1}}' });
      assert.deepEqual(answer.body.problems, [
        'Input "delay" must be a number, not "x".',
        "The agent has no input \"extra\". Its inputs are 'text' and 'delay'.",
        'Input "text" is required: give it in "inputs".',
      ]);
    });

    it('accepts a JSON body that starts with a UTF-8 byte order mark, and numbers written in decimal', async () => {
      await start();
      const answer = await call('POST', '/api/local/agent/echo/execute', {
        body: '\uFEFF{"inputs": {"text": "with a BOM", "delay": "1e1"}}',
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual((await ended(answer.body.executionId as string)).outputs, { echoed: 'with a BOM', authorized: true });
    });

    it('lists the first problems of a body naming thousands of unknown inputs, counts the rest, and answers small', async () => {
      await start();
      const inputs: Record<string, string> = { text: 'x' };
      for (let n = 0; n < 5000; n++) inputs[`unknown_input_${n}`] = 'y';
      const answer = await request(`${server!.url}/api/local/agent/echo/execute`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
        body: JSON.stringify({ inputs }),
      });
      const text = await answer.body.text();
      assert.equal(answer.statusCode, 400);
      assert.ok(Buffer.byteLength(text) < 8 * 1024, `the answer is ${Buffer.byteLength(text)} bytes`);
      const body = JSON.parse(text) as { code: string; error: string; problems: string[]; moreProblems: number };
      assert.equal(body.code, 'unknown-input');
      assert.equal(body.problems.length, server!.limits.maxProblemsListed);
      assert.equal(body.problems[0], "The agent has no input \"unknown_input_0\". Its inputs are 'text' and 'delay'.");
      assert.equal(body.moreProblems, 5000 - server!.limits.maxProblemsListed);
      assert.match(body.error, /…and 4980 more problems\.$/);
    });

    it('answers a body over the limit while it is still being sent, and keeps serving', async () => {
      await start({ limits: { maxJsonBytes: 1024 } });
      // No Content-Length: the limit is found while reading.
      const big = async function* (): AsyncGenerator<Buffer> {
        for (let i = 0; i < 64; i++) yield Buffer.alloc(1024, 32);
      };
      const answer = await request(`${server!.url}/api/local/agent/echo/execute`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-key' },
        body: Readable.from(big()),
      });
      assert.equal(answer.statusCode, 413);
      assert.equal(((await answer.body.json()) as { code: string }).code, 'too-large');
      assert.equal(
        (await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text: 'after' } }) })).status,
        200,
      );
    });
  });

  describe('multipart', () => {
    const uploadFolders = (): string[] => readdirSync(uploads.path);

    it('takes several files through the service client, streams them to a temporary folder and removes them afterwards', async () => {
      await start();
      const doc = dir.write('in/notes.txt', 'first line\nsecond line\n');
      const photoBytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
      const photo = dir.write('in/photo.png', photoBytes);
      const target = { baseUrl: server!.url, account: 'local', agent: 'files', apiKey: 'test-key' };
      const { executionId } = await startMultipartExecution(target, { note: 'see attached', delay: 300 }, [
        { field: 'doc', path: doc },
        { field: 'photo', path: photo },
      ]);
      assert.match(executionId, UUID);
      const [folder] = uploadFolders();
      assert.ok(folder, 'the files are stored while the execution runs');
      assert.deepEqual(readdirSync(`${uploads.path}/${folder}`).sort(), ['1', '2'], 'stored under counters, never under the sent names');
      const done = await ended(executionId);
      assert.equal(done.status, 'finished', String(done.error));
      assert.deepEqual(done.outputs, {
        doc: { name: 'notes.txt', size: 23, type: 'text/plain' },
        photo_name: 'photo.png',
        note: 'see attached',
        uploaded: photoBytes.toString('base64'),
        uploaded_type: 'image/png',
      });
      await waitFor(() => uploadFolders().length === 0, 'the uploaded files to be removed');
    });

    function form(parts: Array<[string, string] | [string, Buffer, string, string]>): FormData {
      const data = new FormData();
      for (const part of parts) {
        if (part.length === 2) data.append(part[0], part[1]);
        else data.append(part[0], new Blob([part[1]], { type: part[3] }), part[2]);
      }
      return data;
    }
    const payload = JSON.stringify({ inputs: {}, stream: false });
    const txt = Buffer.from('hello');
    const png = Buffer.from([137, 80, 78, 71]);

    const refusals: Array<
      [
        string,
        NonNullable<AgentServerOptions['limits']>,
        Array<[string, string] | [string, Buffer, string, string]>,
        number,
        string,
        RegExp,
      ]
    > = [
      [
        'a file over the size limit',
        { maxFileBytes: 1000 },
        [
          ['payload', payload],
          ['doc', txt, 'a.txt', 'text/plain'],
          ['photo', Buffer.alloc(5000), 'p.png', 'image/png'],
        ],
        413,
        'too-large',
        /^The file for input "photo" is larger than 1000 bytes/,
      ],
      [
        'more files than allowed',
        { maxFiles: 1 },
        [
          ['payload', payload],
          ['doc', txt, 'a.txt', 'text/plain'],
          ['photo', png, 'p.png', 'image/png'],
        ],
        413,
        'too-large',
        /too many parts: at most 1 files/,
      ],
      [
        'a file for an unknown input',
        {},
        [
          ['payload', payload],
          ['doc', txt, 'a.txt', 'text/plain'],
          ['photo', png, 'p.png', 'image/png'],
          ['avatar', png, 'a.png', 'image/png'],
        ],
        400,
        'unknown-input',
        /^The agent has no input "avatar"\./,
      ],
      [
        'a file of a type the input does not accept',
        {},
        [
          ['payload', payload],
          ['doc', png, 'a.png', 'image/png'],
          ['photo', png, 'p.png', 'image/png'],
        ],
        400,
        'invalid-inputs',
        /The file for input "doc" \(a\.png, image\/png\) is not of an accepted type: \.txt, text\/plain\./,
      ],
      [
        'a missing file',
        {},
        [
          ['payload', payload],
          ['doc', txt, 'a.txt', 'text/plain'],
        ],
        400,
        'invalid-inputs',
        /^Input "photo" is required: send a file part named "photo"\.$/,
      ],
      [
        'an unexpected field',
        {},
        [
          ['payload', payload],
          ['extra', 'x'],
        ],
        400,
        'bad-multipart',
        /^Unexpected part "extra"/,
      ],
      [
        'bad JSON in the payload',
        {},
        [
          ['payload', '{nope'],
          ['doc', txt, 'a.txt', 'text/plain'],
          ['photo', png, 'p.png', 'image/png'],
        ],
        400,
        'bad-json',
        /^The "payload" part is not valid JSON/,
      ],
      [
        'two files for one input',
        {},
        [
          ['payload', payload],
          ['doc', txt, 'a.txt', 'text/plain'],
          ['doc', txt, 'b.txt', 'text/plain'],
        ],
        400,
        'bad-multipart',
        /two files for input "doc"/,
      ],
    ];
    for (const [what, limits, parts, status, code, message] of refusals) {
      it(`refuses ${what} (${status}) and keeps no file`, async () => {
        await start({ limits });
        const answer = await call('POST', '/api/local/agent/files/execute/multipart', { body: form(parts) });
        assert.equal(answer.status, status, JSON.stringify(answer.body));
        assert.equal(answer.body.code, code);
        assert.match(answer.body.error as string, message);
        assert.deepEqual(uploadFolders(), []);
      });
    }

    it('refuses a multipart body without a boundary', async () => {
      await start();
      const answer = await call('POST', '/api/local/agent/files/execute/multipart', {
        headers: { 'content-type': 'multipart/form-data; charset=utf-8' },
        body: 'x',
      });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'bad-multipart');
    });
  });

  describe('watching the folder', () => {
    it('serves a new agent file, reloads a changed one, and drops a removed or broken one', async () => {
      await start();
      const agent = (text: string) =>
        `version: 1\nname: Fresh\nnodes:\n  say:\n    type: template\n    text: ${text}\noutputs:\n  said: { from: "{{ nodes.say.body }}" }\n`;
      const tryRun = async (): Promise<Answer> => call('POST', '/api/local/agent/fresh/execute', { body: '{}' });
      assert.equal((await tryRun()).status, 404);

      dir.write('more/fresh.agent.yaml', agent('first'));
      const firstId = await waitFor(async () => {
        const answer = await tryRun();
        return answer.status === 200 ? (answer.body.executionId as string) : undefined;
      }, 'the new agent to be served');
      assert.deepEqual((await ended(firstId)).outputs, { said: 'first' });

      dir.write('more/fresh.agent.yaml', agent('second'));
      await waitFor(async () => {
        const answer = await tryRun();
        return answer.status === 200 && ((await ended(answer.body.executionId as string)).outputs as { said: string }).said === 'second';
      }, 'the changed agent to be reloaded');

      dir.write('more/fresh.agent.yaml', agent('"{{ nodes.nothing.body }}"'));
      await waitFor(async () => (await tryRun()).status === 422, 'the broken agent to be refused');

      dir.write('more/fresh.agent.yaml', agent('third'));
      await waitFor(async () => (await tryRun()).status === 200, 'the fixed agent to be served again');
      const { rmSync } = await import('node:fs');
      rmSync(`${dir.path}/more/fresh.agent.yaml`);
      await waitFor(async () => (await tryRun()).status === 404, 'the removed agent to be gone');
      const kinds = events.flatMap((event) => (event.kind === 'agents-changed' ? event.changes.map((change) => change.kind) : []));
      assert.ok(kinds.includes('added') && kinds.includes('changed') && kinds.includes('removed'), kinds.join(','));
    });

    it('serves only the first of two files with the same agent path', async () => {
      dir.write('copy/echo.agent.yml', echoAgent(api.url));
      await start();
      const copy = server!.agents().find((agent) => agent.file === 'copy/echo.agent.yml');
      assert.equal(copy?.loaded, undefined);
      assert.match(copy!.error!, /^echo\.agent\.yaml already serves local\/echo; rename one of the files/);
    });
  });

  describe('bounded memory', () => {
    const helloAgent = `version: 1
name: Hello
inputs:
  who: { type: string, required: true }
nodes:
  greet:
    type: template
    text: "Hello {{ inputs.who }}"
outputs:
  greeting: { from: "{{ nodes.greet.body }}" }
`;

    it('removes the oldest ended executions past the byte limit, and says why when one is read (410)', async () => {
      dir.write('hello.agent.yaml', helloAgent);
      const size = 100_000;
      await start({ limits: { maxRetainedBytes: 350_000 } });
      const ids: string[] = [];
      // Batches of 3 (300 KB of answers) fit the limit, so each batch is read before the next pushes it out.
      for (let round = 0; round < 4; round++) {
        const batch = await Promise.all(
          Array.from({ length: 3 }, (_, n) => execute('hello', { who: String(round * 3 + n).padEnd(size, '.') })),
        );
        await Promise.all(batch.map((id) => ended(id)));
        ids.push(...batch);
      }
      const reads = await Promise.all(ids.map((id) => call('GET', `/api/local/agent/${id}/status`)));
      const kept = reads.filter((read) => read.status === 200);
      assert.equal(kept.length, 3, `${kept.length} of 12 executions of over 100 KB each kept under a 350 KB limit`);
      assert.equal(
        (reads.at(-1)!.body.outputs as { greeting: string }).greeting,
        `Hello ${'11'.padEnd(size, '.')}`,
        'the newest is kept, whole',
      );
      const removed = reads.filter((read) => read.status === 410);
      assert.equal(removed.length, 12 - kept.length);
      assert.equal(reads[0]!.status, 410, 'the oldest went first');
      assert.equal(removed[0]!.body.code, 'execution-removed');
      assert.match(
        removed[0]!.body.error as string,
        /^Execution "[0-9a-f-]{36}" is no longer kept\. It was removed to keep the server's memory bounded: the server keeps at most 10000 ended executions and 350000 bytes of their status answers, removing the oldest first\./,
      );
    });

    it('refuses a start with 429 and Retry-After, as its body arrives, while the executions in flight hold too many bytes of inputs', async () => {
      await start({ limits: { maxInFlightInputBytes: 250_000 } });
      const text = 'z'.repeat(100_000);
      const first = await execute('echo', { text, delay: 400 });
      await execute('echo', { text, delay: 400 });
      const refused = await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text, delay: 400 } }) });
      assert.equal(refused.status, 429, JSON.stringify(refused.body).slice(0, 300));
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.body.code, 'too-many-executions');
      assert.match(
        refused.body.error as string,
        /^The 2 executions running or waiting already hold 200\d{3} bytes of inputs \(uploaded files included\), and this request body's \d+ bytes would pass the 250000 bytes this server holds at once; try again shortly\.$/,
      );
      assert.equal(
        (await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text: 'small' } }) })).status,
        200,
        'a small one still fits',
      );
      await ended(first);
      assert.equal(
        (await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text } }) })).status,
        200,
        'accepted again once one has ended',
      );
    });

    it('holds at most maxInFlightAnswerBytes of node answers for the executions running, given back as each ends', async () => {
      dir.write(
        'holding.agent.yaml',
        `version: 1
name: Holding
inputs:
  hold: { type: number, default: 0 }
nodes:
  big:
    type: api
    method: GET
    url: ${api.url}/big?bytes=200000
  after:
    type: api
    method: GET
    url: ${api.url}/after?delay={{ inputs.hold }}&status={{ nodes.big.status }}
outputs:
  size: { from: "{{ nodes.big.body }}" }
`,
      );
      await start({ limits: { maxInFlightAnswerBytes: 300_000 } });
      const holding = await execute('holding', { hold: 1500 });
      await waitFor(async () => {
        const trace = (await call('GET', `/api/local/agent/${holding}/status`)).body.trace as Array<{ node: string; status: string }>;
        return trace.find((entry) => entry.node === 'big')?.status === 'succeeded';
      }, 'the first execution to hold its 200000-byte answer');
      const refused = await ended(await execute('holding', {}));
      assert.equal(refused.status, 'failed', JSON.stringify(refused).slice(0, 300));
      assert.equal(refused.node, 'big');
      assert.match(
        refused.error as string,
        /^Node "big" failed: GET http:\/\/127\.0\.0\.1:\d+\/big failed: The answer of http:\/\/127\.0\.0\.1:\d+\/big was stopped after \d+ bytes: the answers of API nodes held by the executions running on this server would pass 300000 bytes, the most it holds at once\. Run the execution again when fewer are running\.$/,
      );
      assert.equal((await ended(holding)).status, 'finished', 'the execution holding its answers is not disturbed');
      const again = await ended(await execute('holding', {}));
      assert.equal(again.status, 'finished', `the answers were given back as each ended: ${JSON.stringify(again).slice(0, 300)}`);
      assert.equal((again.outputs as { size: string }).size.length, 200_000);
    });

    it('keeps a status answer within what the client reads: two 9 MB node answers are read by the real client', async () => {
      dir.write(
        'large.agent.yaml',
        `version: 1
name: Large
nodes:
  first:
    type: api
    method: GET
    url: ${api.url}/big?bytes=9000000
  second:
    type: api
    method: GET
    url: ${api.url}/big?bytes=8000000
outputs:
  first: { from: "{{ nodes.first.body }}" }
  second: { from: "{{ nodes.second.body }}" }
`,
      );
      await start();
      const target = { baseUrl: server!.url, account: 'local', agent: 'large', apiKey: 'test-key' };
      const id = await execute('large', {});
      const answer = await waitFor(async () => {
        const status = await getStatus(target, id);
        return status.status === 'finished' ? status : undefined;
      }, 'the execution to finish');
      const outputs = answer.outputs as Record<string, string>;
      assert.equal(outputs.second, 'y'.repeat(8_000_000), 'the output that fits is whole');
      assert.equal(
        outputs.first,
        'Output "first" is left out: it is 9000002 bytes as JSON, and a status answer of this server is at most 10 MiB, the most a client reads. Make the output smaller, or split it over several outputs.',
      );
      assert.deepEqual(answer.body.outputsLeftOut, ['first']);
    });

    it('fits any status answer in the limit: the trace is cut from the end, then the error, then only the status is left', () => {
      const base = {
        executionId: 'e',
        account: 'local',
        agent: 'a',
        status: 'failed' as const,
        startedAt: 's',
        endedAt: 'e',
        durationMs: 1,
      };
      const trace = Array.from({ length: 1000 }, (_, n) => ({
        node: `node_${n}`,
        type: 'template' as const,
        status: 'succeeded' as const,
      }));
      const cutTrace = JSON.parse(statusAnswer({ ...base, error: 'broken', trace }, 4000).toString()) as {
        trace: unknown[];
        traceLeftOut: number;
        error: string;
      };
      assert.ok(JSON.stringify(cutTrace).length <= 4000);
      assert.equal(cutTrace.trace.length + cutTrace.traceLeftOut, 1000);
      assert.deepEqual(cutTrace.trace[0], trace[0], 'the first entries are kept');
      assert.equal(cutTrace.error, 'broken');
      const cutError = JSON.parse(statusAnswer({ ...base, error: 'e'.repeat(10_000), trace }, 4000).toString()) as {
        trace: unknown[];
        error: string;
      };
      assert.ok(JSON.stringify(cutError).length <= 4000);
      assert.match(cutError.error, /^e+… \(cut: the whole error does not fit in a status answer\)$/);
      const outputs = Object.fromEntries(Array.from({ length: 1000 }, (_, n) => [`output_${n}`, n]));
      const bare = statusAnswer({ ...base, status: 'finished', outputs, trace: [] }, 4000);
      assert.ok(bare.length <= 4000, `${bare.length} bytes`);
      assert.match(
        (JSON.parse(bare.toString()) as { error: string }).error,
        /^The status answer of this execution would be larger than 4000 bytes, the most a client reads; only its status is shown\.$/,
      );
    });

    it('counts uploaded files, on disk until their execution ends, against the bytes held in flight', async () => {
      await start({ limits: { maxInFlightInputBytes: 250_000 } });
      const send = (): Promise<Answer> => {
        const data = new FormData();
        data.append('payload', JSON.stringify({ inputs: { delay: 500 } }));
        data.append('doc', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'a.txt');
        data.append('photo', new Blob([Buffer.alloc(150_000, 1)], { type: 'image/png' }), 'p.png');
        return call('POST', '/api/local/agent/files/execute/multipart', { body: data });
      };
      const first = await send();
      assert.equal(first.status, 200, JSON.stringify(first.body));
      // The JSON of its inputs is small; its 150 KB file is not, and a second would pass 250 KB.
      const second = await send();
      assert.equal(second.status, 429, JSON.stringify(second.body));
      assert.match(
        second.body.error as string,
        /^The 1 executions running or waiting already hold 150\d{3} bytes of inputs \(uploaded files included\)/,
      );
      assert.equal(readdirSync(uploads.path).length, 1, 'the refused upload left nothing on disk');
      await ended(first.body.executionId as string);
      assert.equal((await send()).status, 200, 'accepted again once the first has ended');
    });

    it('counts an upload against the bytes held in flight as it arrives: one that would pass them is refused mid-body', async () => {
      const budget = 64 * 1024;
      // The most one read of the socket hands the parser: the refused piece is never written.
      const chunk = 64 * 1024;
      await start({ limits: { maxInFlightInputBytes: budget } });
      const first = await openUpload(40 * 1024);
      first.sendPhoto(30 * 1024);
      await waitFor(() => uploadedBytesOnDisk() >= 29 * 1024, 'the first upload to be written');
      // Declared as 1 MiB but only 128 KiB sent: an answer can only come before the whole body.
      const second = await openUpload(1024 * 1024);
      second.sendPhoto(128 * 1024);
      let peak = 0;
      const refused = await waitFor(() => {
        peak = Math.max(peak, uploadedBytesOnDisk());
        return second.answer() ?? (peak > budget + chunk ? 'past the budget' : undefined);
      }, 'the second upload to be refused');
      assert.ok(peak <= budget + chunk, `the uploads held ${peak} bytes on disk at once, for a budget of ${budget}`);
      assert.ok(typeof refused !== 'string');
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.body.code, 'too-many-executions');
      const [, held, own] =
        /^The 1 requests being received already hold (\d+) bytes of inputs \(uploaded files included\), and this upload's (\d+) bytes would pass the 64 KiB this server holds at once; try again shortly\.$/.exec(
          refused.body.error as string,
        ) ?? [];
      assert.ok(held !== undefined && own !== undefined, String(refused.body.error));
      assert.ok(Number(held) >= 29 * 1024 && Number(held) + Number(own) > budget, String(refused.body.error));
      assert.equal(readdirSync(uploads.path).length, 1, "the refused upload's folder is removed");

      first.finish();
      const accepted = await waitFor(() => first.answer(), 'the first upload to be answered');
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal((await ended(accepted.body.executionId as string)).status, 'finished');
      // Alone, any upload is let in; with bytes left counted by either, this one would not fit beside them.
      const data = new FormData();
      data.append('payload', JSON.stringify({ inputs: {} }));
      data.append('doc', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'a.txt');
      data.append('photo', new Blob([Buffer.alloc(60 * 1024, 1)], { type: 'image/png' }), 'p.png');
      const third = await call('POST', '/api/local/agent/files/execute/multipart', { body: data });
      assert.equal(third.status, 200, `the budget was given back: ${JSON.stringify(third.body)}`);
      assert.equal((await ended(third.body.executionId as string)).status, 'finished');
    });

    it('counts JSON bodies being read against the inputs held in flight: one that would pass them is refused mid-body', async () => {
      await start({ limits: { maxInFlightInputBytes: 64 * 1024 } });
      /** A JSON execute over a raw socket (openPost) whose body is sent when the test says. */
      const openJson = async (text: string) => {
        const body = Buffer.from(JSON.stringify({ inputs: { text } }));
        const post = await openPost('/api/local/agent/echo/execute', 'application/json', body.length);
        return { send: (from: number, to: number) => post.write(body.subarray(from, to)), answer: post.answer };
      };
      const first = await openJson('a'.repeat(60 * 1024));
      const second = await openJson('b'.repeat(60 * 1024));
      first.send(0, 50 * 1024);
      // The first body is being read: a request nothing else holds bytes beside is let in at any size.
      await waitFor(() => server!.heldInputBytes() >= 40 * 1024 || undefined, 'the first body to be counted');
      second.send(0, 30 * 1024);
      const refused = await waitFor(() => second.answer(), 'the second request to be refused');
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.headers['retry-after'], '1');
      assert.match(
        refused.body.error as string,
        /^The 1 requests being received already hold 50 KiB of inputs \(uploaded files included\), and this request body's 30 KiB would pass the 64 KiB this server holds at once/,
      );
      first.send(50 * 1024, Infinity);
      const accepted = await waitFor(() => first.answer(), 'the first request to be answered');
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      // What the refused body held is given back: the next one is let in.
      const third = await call('POST', '/api/local/agent/echo/execute', {
        body: JSON.stringify({ inputs: { text: 'c'.repeat(30 * 1024) } }),
      });
      assert.equal(third.status, 200, JSON.stringify(third.body));
    });

    it('accepts a file of exactly the size limit and a payload of exactly the JSON limit, and refuses one byte more', async () => {
      await start({ limits: { maxFileBytes: 1000, maxJsonBytes: 200 } });
      const payload = (bytes: number): string => JSON.stringify({ inputs: {} }).padEnd(bytes, ' ');
      const send = (photoBytes: number, payloadBytes: number): Promise<Answer> => {
        const data = new FormData();
        data.append('payload', payload(payloadBytes));
        data.append('doc', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'a.txt');
        data.append('photo', new Blob([Buffer.alloc(photoBytes, 1)], { type: 'image/png' }), 'p.png');
        return call('POST', '/api/local/agent/files/execute/multipart', { body: data });
      };
      const exact = await send(1000, 200);
      assert.equal(exact.status, 200, JSON.stringify(exact.body));
      assert.equal(((await ended(exact.body.executionId as string)).outputs as { photo_name: string }).photo_name, 'p.png');
      const fileOver = await send(1001, 200);
      assert.equal(fileOver.status, 413);
      assert.match(fileOver.body.error as string, /^The file for input "photo" is larger than 1000 bytes/);
      const payloadOver = await send(1000, 201);
      assert.equal(payloadOver.status, 413);
      assert.match(payloadOver.body.error as string, /^The payload part is larger than 200 bytes\.$/);
    });
  });

  describe('hostile clients', () => {
    it('logs a client that disconnects mid-body as an aborted request, in one line (JSON and multipart)', async () => {
      await start();
      const sendHalf = async (path: string, contentType: string, half: string): Promise<void> => {
        const socket = connect(server!.port, '127.0.0.1');
        await new Promise<void>((resolve) => socket.once('connect', resolve));
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-key\r\nContent-Type: ${contentType}\r\nContent-Length: 1000\r\n\r\n${half}`,
        );
        await waitFor(() => socket.bytesWritten > 100, 'half the body to be sent');
        socket.destroy();
      };
      const warnings = (): string[] => events.flatMap((event) => (event.kind === 'warning' ? [event.message] : []));
      await sendHalf('/api/local/agent/echo/execute', 'application/json', '{"inputs": {"text": "');
      await waitFor(() => warnings().length === 1, 'the server to log the aborted request');
      await sendHalf(
        '/api/local/agent/files/execute/multipart',
        'multipart/form-data; boundary=b',
        '--b\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nsome text',
      );
      await waitFor(() => warnings().length === 2, 'the server to log the aborted upload');
      assert.deepEqual(warnings(), [
        'Aborted request: POST /api/local/agent/echo/execute from 127.0.0.1; the client closed the connection before sending the whole body.',
        'Aborted request: POST /api/local/agent/files/execute/multipart from 127.0.0.1; the client closed the connection before sending the whole body.',
      ]);
      assert.equal(
        (await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text: 'after' } }) })).status,
        200,
        'still serving',
      );
      assert.deepEqual(readdirSync(uploads.path), [], 'the partial upload is removed');
    });

    it('makes an address that keeps sending wrong keys wait (429 with Retry-After), yet always lets the right key in', async () => {
      let now = 1_000_000;
      await start({ limits: { maxKeyFailures: 3 }, now: () => now });
      const right = (): Promise<Answer> =>
        call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text: 'x' } }) });
      const wrong = (n: number): Promise<Answer> => call('POST', '/api/local/agent/echo/execute', { key: `wrong-${n}`, body: '{}' });
      for (let n = 0; n < 3; n++) assert.equal((await wrong(n)).status, 401);
      const waiting = await wrong(3);
      assert.equal(waiting.status, 429);
      assert.equal(waiting.body.code, 'too-many-key-failures');
      assert.equal(waiting.headers['retry-after'], '1');
      assert.match(waiting.body.error as string, /^Too many requests with a wrong API key from 127\.0\.0\.1: wait 1 s before trying again/);
      assert.equal((await right()).status, 200, 'the right key is let in while wrong ones wait');
      assert.equal((await wrong(4)).status, 429, 'the right key did not clear the count: wrong keys still wait');
      now += 1000;
      assert.equal((await wrong(5)).status, 401, 'after the wait, a wrong key is checked again');
      assert.equal((await wrong(6)).headers['retry-after'], '2', 'and the next wait is twice as long');
      const warnings = events.flatMap((event) => (event.kind === 'warning' ? [event.message] : []));
      assert.deepEqual(warnings, [
        '3 requests with a wrong API key from 127.0.0.1 within a minute: its wrong keys are answered 429 for a while (the right key is still let in). If this is not one of your clients, something on this machine or network is guessing the key.',
      ]);
    });

    it('counts no request without a key: a burst of them locks no one out', async () => {
      await start({ limits: { maxKeyFailures: 10 } });
      const noKey = (headers: Record<string, string> = {}): Promise<Answer> =>
        call('POST', '/api/local/agent/echo/execute', { key: null, headers, body: '{}' });
      for (let n = 0; n < 11; n++) assert.equal((await noKey()).status, 401);
      const answers: number[] = [];
      for (let n = 0; n < 20; n++) {
        assert.equal((await noKey(n % 2 ? { authorization: 'Basic dGVzdC1rZXk6' } : {})).status, 401, 'never 429: no key was tried');
        answers.push((await call('POST', '/api/local/agent/echo/execute', { body: JSON.stringify({ inputs: { text: 'x' } }) })).status);
      }
      assert.deepEqual(answers, new Array<number>(20).fill(200), 'the right key passes every time');
    });

    it('keeps at most its limit of connections open, closes more as they come, and says so for the 1st, 10th…', async () => {
      await start({ limits: { maxConnections: 2 } });
      const warnings = (): string[] => events.flatMap((event) => (event.kind === 'warning' ? [event.message] : []));
      /** A kept-alive connection the server has answered on: it holds one of the places. */
      const held = async (): Promise<Socket> => {
        const socket = connect(server!.port, '127.0.0.1');
        sockets.add(socket);
        const answered = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
        socket.write('GET /api/local/agent/x/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        assert.match(await answered, /^HTTP\/1\.1 401 /);
        return socket;
      };
      /** A connection past the limit: closed before any answer. */
      const refused = async (): Promise<string> => {
        const socket = connect(server!.port, '127.0.0.1');
        sockets.add(socket);
        socket.on('error', () => undefined);
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
        await new Promise<void>((resolve) => socket.once('close', () => resolve()));
        return received;
      };
      const kept = [await held(), await held()];
      assert.equal(await refused(), '');
      assert.deepEqual(warnings(), [
        'A connection was closed as soon as it came: the server keeps at most 2 open at once. A client that opens many should reuse them (keep-alive) or open fewer; if it is not one of your clients, something on this machine or network is flooding the server.',
      ]);
      for (let n = 2; n <= 10; n++) assert.equal(await refused(), '');
      assert.equal(warnings().length, 2);
      assert.match(warnings()[1]!, /^10 connections were closed as soon as they came: the server keeps at most 2 open at once\./);
      // The connections it kept still serve.
      const answered = new Promise<string>((resolve) => kept[0]!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
      kept[0]!.write('GET /api/local/agent/x/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-key\r\n\r\n');
      assert.match(await answered, /^HTTP\/1\.1 404 /);
    });

    it('answers only requests for its own address (Host): a page reaching it through another name gets 421', async () => {
      await start();
      const port = server!.port;
      const raw = async (target: string, host: string | undefined, version = '1.1'): Promise<{ status: number; body: string }> => {
        const socket = connect(port, '127.0.0.1');
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.write(
          `GET ${target} HTTP/${version}\r\n${host === undefined ? '' : `Host: ${host}\r\n`}Authorization: Bearer test-key\r\nConnection: close\r\n\r\n`,
        );
        await closed;
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]);
        return { status, body: received.slice(received.indexOf('\r\n\r\n') + 4) };
      };
      const path = '/api/local/agent/00000000-0000-0000-0000-000000000000/status';
      for (const host of [
        `127.0.0.1:${port}`,
        '127.0.0.1',
        `localhost:${port}`,
        'LocalHost',
        `[::1]:${port}`,
        '[::1]',
        '127.0.0.2',
        'app.localhost',
      ]) {
        assert.equal((await raw(path, host)).status, 404, `${host}: served (unknown execution)`);
      }
      assert.equal((await raw(path, undefined, '1.0')).status, 404, 'HTTP/1.0 without Host: served');
      for (const host of [
        `evil.example:${port}`,
        'evil.example',
        '127.0.0.1.nip.io',
        `localhost.evil.example:${port}`,
        '10.1.2.3',
        '0.0.0.0',
        `[::1].evil.example`,
        `127.0.0.1:${port}@evil.example`,
      ]) {
        const answer = await raw(path, host);
        assert.equal(answer.status, 421, host);
        const body = JSON.parse(answer.body) as { code: string; error: string };
        assert.equal(body.code, 'wrong-host');
        assert.match(
          body.error,
          /^This server answers only requests whose Host header names this machine's loopback names \(localhost, 127\.0\.0\.1, \[::1\]\); this one names ".+"\. A web page may be trying to reach the server through a name of its own \(DNS rebinding\)\. Connect to http:\/\/127\.0\.0\.1:\d+\.$/,
        );
      }
      const absolute = await raw(`http://evil.example${path}`, `127.0.0.1:${port}`);
      assert.equal(absolute.status, 421, 'a request target with another authority');
      assert.equal((await raw(`http://127.0.0.1:${port}${path}`, `127.0.0.1:${port}`)).status, 404);
      const long = await raw(path, `${'a'.repeat(5000)}.example`);
      assert.equal(long.status, 421);
      assert.ok(long.body.length < 1000, `a short answer to a long Host (${long.body.length} bytes)`);
      const wrongHostsWithWrongKeys = await raw(path, 'evil.example');
      assert.equal(wrongHostsWithWrongKeys.status, 421);
      assert.equal((await call('GET', path)).status, 404, 'the client on 127.0.0.1 is still served');
    });

    it('answers requests for the --host it was given and the names it is told to allow', async () => {
      await start({ allowedHosts: ['agents.test', '[fd00::1]'] });
      const path = '/api/local/agent/00000000-0000-0000-0000-000000000000/status';
      const asHost = (host: string): Promise<Answer> => call('GET', path, { headers: { host } });
      assert.equal((await asHost(`agents.test:${server!.port}`)).status, 404);
      assert.equal((await asHost('AGENTS.test')).status, 404);
      assert.equal((await asHost('[fd00:0::1]:9')).status, 404);
      const refused = await asHost('other.test');
      assert.equal(refused.status, 421);
      assert.match(refused.body.error as string, /names agents\.test, \[fd00::1\], this machine's loopback names/);
      // Without a server on such an address: which names the --host given lets in.
      const named = new AllowedHosts('myhost.lan');
      assert.deepEqual(
        ['myhost.lan:8787', 'MyHost.lan', '192.168.1.5:8787', '192.168.1.6', 'other.lan'].map((host) => named.allows(host, '192.168.1.5')),
        [true, true, true, false, false],
        'the name given, and the address the request came in on',
      );
      const everywhere = new AllowedHosts('0.0.0.0');
      assert.deepEqual(
        ['10.0.0.7:8787', '[fd00::7]', 'localhost', 'evil.example', '0x7f.1'].map((host) => everywhere.allows(host, '172.17.0.2')),
        [true, true, true, false, true],
        'listening on every address: any IP address, and no name but loopback ones',
      );
      assert.match(everywhere.described, /^any IP address of this machine, this machine's loopback names/);
    });
  });

  describe('wrong-key delays', () => {
    it('doubles the wait after each further wrong key up to a minute, forgets after a quiet minute, and keeps at most 10 000 addresses', () => {
      let now = 0;
      const failures = new KeyFailures(2, () => now);
      assert.deepEqual(
        [1, 2, 3, 4, 5].map(() => failures.failed('10.0.0.1')),
        [0, 1000, 2000, 4000, 8000],
      );
      for (let n = 0; n < 10; n++) failures.failed('10.0.0.1');
      assert.equal(failures.waitMs('10.0.0.1'), 60_000, 'at most a minute');
      now += 60_000;
      assert.equal(failures.waitMs('10.0.0.1'), 0);
      assert.equal(failures.failed('10.0.0.1'), 0, 'a quiet minute starts the count again');
      for (let n = 0; n < 20_000; n++) failures.failed(`10.1.${n >> 8}.${n & 255}`);
      assert.equal(failures.size, 10_000);
    });
  });

  describe('shutting down', () => {
    it('cancels running executions, removes their uploads and stops listening', async () => {
      await start();
      const doc = dir.write('in/a.txt', 'a');
      const photo = dir.write('in/b.png', 'b');
      const target = { baseUrl: server!.url, account: 'local', agent: 'files', apiKey: 'test-key' };
      await startMultipartExecution(target, { delay: 60_000 }, [
        { field: 'doc', path: doc },
        { field: 'photo', path: photo },
      ]);
      await waitFor(() => api.requests.length === 1, 'the node to call the API');
      assert.equal(readdirSync(uploads.path).length, 1);
      const url = server!.url;
      const started = Date.now();
      await server!.close();
      server = undefined;
      assert.ok(Date.now() - started < 2000, `close took ${Date.now() - started} ms`);
      assert.deepEqual(readdirSync(uploads.path), []);
      await assert.rejects(request(`${url}/api/local/agent/echo/execute`, { method: 'POST', body: '{}' }), /ECONNREFUSED/);
    });

    it('says clearly when the port is taken', async () => {
      const first = await start();
      await assert.rejects(
        startAgentServer({ directory: dir.path, port: first.port, apiKey: 'k' }),
        /^Error: Port \d+ on 127\.0\.0\.1 is already in use/,
      );
    });
  });
});
