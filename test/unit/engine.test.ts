// The workflow engine against real HTTP servers on 127.0.0.1: ordering, concurrency, the API and
// template nodes, expressions, every failure path, redaction, cancellation and secrets.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { AgentFileError, loadAgent } from '../../src/core/engine/agentPlan';
import { executeAgent } from '../../src/core/engine/engine';
import type { EngineOptions, ExecutionResult } from '../../src/core/engine/engine';
import { resolveInputs } from '../../src/core/engine/inputs';
import type { GivenFile } from '../../src/core/engine/inputs';
import type { GivenInputs } from '../../src/core/inputs/inputValues';
import { envSecretHint, envSecretResolver } from '../../src/core/engine/secrets';
import type { NodeTrace } from '../../src/core/engine/trace';
import { closedPort, json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';

async function run(yaml: string, given: GivenInputs<unknown, GivenFile> = {}, options: EngineOptions = {}): Promise<ExecutionResult> {
  const agent = loadAgent(yaml, 'test.agent.yaml');
  return executeAgent(agent, resolveInputs(agent.model, given), options);
}

function finished(result: ExecutionResult): Readonly<Record<string, unknown>> {
  assert.equal(result.status, 'finished', result.status !== 'finished' ? result.error.message : '');
  return result.status === 'finished' ? result.outputs : {};
}

function failed(result: ExecutionResult): Extract<ExecutionResult, { status: 'failed' | 'cancelled' }> {
  assert.notEqual(
    result.status,
    'finished',
    `expected a failure, got outputs ${JSON.stringify(result.status === 'finished' ? result.outputs : null)}`,
  );
  return result as Extract<ExecutionResult, { status: 'failed' | 'cancelled' }>;
}

function traceOf(result: ExecutionResult, node: string): NodeTrace {
  const entry = result.trace.find((item) => item.node === node);
  assert.ok(entry, `no trace for ${node}`);
  return entry;
}

/** A server that answers each request after `?delay=` ms with JSON describing it, and records how many were in flight at once. */
async function delayServer(): Promise<TestServer & { maxInFlight: () => number }> {
  let inFlight = 0;
  let max = 0;
  const server = await startServer((request, response, body) => {
    inFlight++;
    max = Math.max(max, inFlight);
    const delay = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('delay') ?? 0);
    setTimeout(() => {
      inFlight--;
      json(response, 200, { path: request.url, body: body.toString() });
    }, delay);
  });
  return Object.assign(server, { maxInFlight: () => max });
}

describe('workflow engine', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  async function serve(handler: (request: IncomingMessage, response: ServerResponse, body: Buffer) => void): Promise<TestServer> {
    const server = await startServer(handler);
    servers.push(server);
    return server;
  }

  describe('ordering and concurrency', () => {
    it('runs a node after the nodes it references and passes their results on', async () => {
      const server = await serve((request, response, body) =>
        json(response, 200, { seen: request.url, got: body.length ? JSON.parse(body.toString()) : null }),
      );
      const result = await run(`version: 1
name: Chain
nodes:
  third:
    type: template
    text: "{{ nodes.second.body.got.from_first }}!"
  second:
    type: api
    method: POST
    url: ${server.url}/second
    settings: ["Content-Type: application/json"]
    body: { from_first: "{{ nodes.first.body.seen }}" }
  first:
    type: api
    method: GET
    url: ${server.url}/first
outputs:
  out: { from: "{{ nodes.third.body }}" }
`);
      assert.deepEqual(finished(result), { out: '/first!' });
      assert.deepEqual(
        server.requests.map((request) => request.url),
        ['/first', '/second'],
      );
      const [first, second, third] = ['first', 'second', 'third'].map((id) => traceOf(result, id));
      assert.ok(first!.endedAt! <= second!.startedAt!, 'second starts after first ends');
      assert.ok(second!.endedAt! <= third!.startedAt!, 'third starts after second ends');
      assert.deepEqual(
        result.trace.map((entry) => entry.node),
        ['first', 'second', 'third'],
        'the trace lists nodes in execution order',
      );
    });

    it('runs independent nodes at the same time (they overlap on a server that answers after 300 ms)', async () => {
      const server = await delayServer();
      servers.push(server);
      const nodes = ['a', 'b', 'c', 'd']
        .map((id) => `  ${id}:\n    type: api\n    method: GET\n    url: ${server.url}/${id}?delay=300\n`)
        .join('');
      const started = Date.now();
      const result = await run(`version: 1
name: Fan out
nodes:
${nodes}  join:
    type: template
    text: "{{ nodes.a.body.path }} {{ nodes.b.body.path }} {{ nodes.c.body.path }} {{ nodes.d.body.path }}"
outputs:
  all: { from: "{{ nodes.join.body }}" }
`);
      const elapsed = Date.now() - started;
      assert.equal(finished(result).all, '/a?delay=300 /b?delay=300 /c?delay=300 /d?delay=300');
      assert.equal(server.maxInFlight(), 4, 'all four requests were in flight together');
      assert.ok(elapsed < 900, `four 300 ms calls in parallel took ${elapsed} ms`);
      const starts = ['a', 'b', 'c', 'd'].map((id) => Date.parse(traceOf(result, id).startedAt!));
      const ends = ['a', 'b', 'c', 'd'].map((id) => Date.parse(traceOf(result, id).endedAt!));
      assert.ok(Math.max(...starts) < Math.min(...ends), 'every node started before any ended');
    });

    it('never runs more nodes at once than the concurrency allows', async () => {
      const server = await delayServer();
      servers.push(server);
      const nodes = [1, 2, 3, 4, 5, 6]
        .map((n) => `  n${n}:\n    type: api\n    method: GET\n    url: ${server.url}/${n}?delay=60\n`)
        .join('');
      const result = await run(
        `version: 1\nname: Bounded\nnodes:\n${nodes}outputs:\n  last: { from: "{{ nodes.n6.body.path }}" }\n`,
        {},
        { concurrency: 2 },
      );
      assert.equal(finished(result).last, '/6?delay=60');
      assert.equal(server.requests.length, 6);
      assert.equal(server.maxInFlight(), 2);
    });
  });

  describe('the API node', () => {
    it('sends method, URL, header strings and a JSON body, and reads status, lower-case headers and a JSON body', async () => {
      const server = await serve((_request, response) =>
        json(response, 201, { id: 7, tags: ['a', 'b'] }, { 'X-Request-Id': 'r-1', 'content-type': 'application/problem+json' }),
      );
      const result = await run(
        `version: 1
name: Api
inputs:
  who: { type: string }
  count: { type: number }
  flag: { type: boolean }
nodes:
  call:
    type: api
    method: PUT
    url: ${server.url}/items/{{ inputs.who }}?q={{ inputs.who }}&n={{ inputs.count }}
    settings:
      - "Content-Type: application/json"
      - "X-Who: {{ inputs.who }}"
    body:
      who: "{{ inputs.who }}"
      count: "{{ inputs.count }}"
      flag: "{{ inputs.flag }}"
      text: "count={{ inputs.count }}"
      fixed: [1, true, null]
outputs:
  status: { from: "{{ nodes.call.status }}" }
  id: { from: "{{ nodes.call.body.id }}" }
  tag: { from: "{{ nodes.call.body.tags[1] }}" }
  request_id: { from: "{{ nodes.call.headers.x-request-id }}" }
  whole: { from: "{{ nodes.call.body }}" }
  text: { from: "id {{ nodes.call.body.id }} tags {{ nodes.call.body.tags }}" }
`,
        { values: { who: 'a b/c&d', count: '5', flag: true } },
      );
      assert.deepEqual(finished(result), {
        status: 201,
        id: 7,
        tag: 'b',
        request_id: 'r-1',
        whole: { id: 7, tags: ['a', 'b'] },
        text: 'id 7 tags ["a","b"]',
      });
      const request = server.requests[0]!;
      assert.equal(request.method, 'PUT');
      assert.equal(request.url, '/items/a%20b%2Fc%26d?q=a%20b%2Fc%26d&n=5', 'values in the path and query are percent-encoded');
      assert.equal(request.headers['x-who'], 'a b/c&d');
      assert.equal(request.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(request.body.toString()), {
        who: 'a b/c&d',
        count: 5,
        flag: true,
        text: 'count=5',
        fixed: [1, true, null],
      });
      const trace = traceOf(result, 'call');
      assert.equal(trace.httpStatus, 201);
      assert.equal(trace.method, 'PUT');
      assert.equal(trace.url, `${server.url}/items/a%20b%2Fc%26d`, 'the trace shows the URL without its query');
      assert.equal(trace.bytes, Buffer.byteLength(JSON.stringify({ id: 7, tags: ['a', 'b'] })));
      assert.equal(trace.status, 'succeeded');
      assert.ok(typeof trace.durationMs === 'number' && trace.durationMs >= 0);
    });

    it('sends a string body as text, keeps a text answer as text, and uses a whole base URL from an input as it is', async () => {
      const server = await serve((request, response, body) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end(`got ${request.headers['content-type']}: ${body.toString()}`);
      });
      const result = await run(
        `version: 1
name: Text
inputs:
  base: { type: string }
nodes:
  call:
    type: api
    method: POST
    url: "{{ inputs.base }}/echo"
    body: "Hello {{ inputs.base }}"
outputs:
  answer: { from: "{{ nodes.call.body }}" }
`,
        { values: { base: server.url } },
      );
      assert.equal(finished(result).answer, `got text/plain; charset=utf-8: Hello ${server.url}`);
      assert.equal(server.requests[0]!.url, '/echo');
    });

    it('follows a redirect to another origin without the Authorization header', async () => {
      const target = await serve((request, response) =>
        json(response, 200, { authorization: request.headers.authorization ?? null, key: request.headers['x-api-key'] ?? null }),
      );
      const origin = await serve((_request, response) => {
        response.writeHead(302, { location: `${target.url}/landed` });
        response.end();
      });
      const result = await run(
        `version: 1
name: Redirect
nodes:
  call:
    type: api
    method: GET
    url: ${origin.url}/start
    settings:
      - "Authorization: Bearer {{ secrets.TOKEN }}"
      - "x-api-key: {{ secrets.TOKEN }}"
outputs:
  seen: { from: "{{ nodes.call.body }}" }
`,
        {},
        { secrets: envSecretResolver({ AGENT_SECRET_TOKEN: 'tok-123' }) },
      );
      assert.deepEqual(finished(result).seen, { authorization: null, key: null });
      assert.equal(origin.requests[0]!.headers.authorization, 'Bearer tok-123');
    });

    it('sends no header built from a secret, and no custom header, to another origin on a redirect', async () => {
      // Two servers on 127.0.0.1: different ports are different origins.
      const target = await serve((_request, response) => json(response, 200, {}));
      const origin = await serve((_request, response) => {
        response.writeHead(302, { location: `${target.url}/landed` });
        response.end();
      });
      const result = await run(
        `version: 1
name: Redirect
nodes:
  call:
    type: api
    method: GET
    url: ${origin.url}/start
    settings:
      - "X-Custom-Token: {{ secrets.T }}"
      - "X-Trace: plain"
      - "Accept-Language: {{ secrets.LANG }}"
      - "Accept: application/json"
outputs:
  status: { from: "{{ nodes.call.status }}" }
`,
        {},
        { secrets: envSecretResolver({ AGENT_SECRET_T: 'tok-custom-4711', AGENT_SECRET_LANG: 'lang-secret-0815' }) },
      );
      assert.deepEqual(finished(result), { status: 200 });
      assert.equal(origin.requests[0]!.headers['x-custom-token'], 'tok-custom-4711');
      const landed = target.requests[0]!;
      assert.equal(landed.url, '/landed');
      for (const name of ['x-custom-token', 'x-trace', 'accept-language'])
        assert.equal(landed.headers[name], undefined, `${name} reached the other origin`);
      assert.equal(landed.headers.accept, 'application/json');
      assert.doesNotMatch(JSON.stringify(landed.headers), /tok-custom|lang-secret/);
    });

    it('sends a body holding a secret to no other origin on a 307 or 308; one without, or on the same origin, follows', async () => {
      const target = await serve((_request, response) => json(response, 200, { landed: true }));
      const origin = await serve((request, response) => {
        const url = new URL(request.url ?? '/', 'http://x');
        if (url.pathname === '/landed') return json(response, 200, { landed: true });
        const status = Number(url.searchParams.get('status'));
        response.writeHead(status, { location: url.searchParams.get('same') ? '/landed' : `${target.url}/landed` });
        response.end();
      });
      const agent = (body: string, query: string) => `version: 1
name: Redirect
nodes:
  call:
    type: api
    method: POST
    url: ${origin.url}/token?${query}
    settings: ["Content-Type: application/json"]
    body: ${body}
outputs:
  status: { from: "{{ nodes.call.status }}" }
`;
      const secrets = { secrets: envSecretResolver({ AGENT_SECRET_CLIENT: 'client-secret-4711' }) };
      for (const status of [307, 308]) {
        const refused = await run(agent('{ client_secret: "{{ secrets.CLIENT }}" }', `status=${status}`), {}, secrets);
        assert.equal(refused.status, 'failed');
        assert.match(
          refused.error?.message ?? '',
          new RegExp(
            `redirected \\(${status}\\) to another origin, ${target.url.replace(/[.]/g, '\\.')}, which would be sent the request's body again, and the body holds a secret`,
          ),
        );
      }
      assert.equal(target.requests.length, 0, 'the secret reached the other origin');
      // A body without a secret follows, as fetch and curl do; so does one to the same origin.
      assert.deepEqual(finished(await run(agent('{ q: plain }', 'status=307'), {}, secrets)), { status: 200 });
      assert.equal(target.requests.length, 1);
      assert.equal(target.requests[0]!.body.toString(), '{"q":"plain"}');
      assert.deepEqual(finished(await run(agent('{ client_secret: "{{ secrets.CLIENT }}" }', 'status=308&same=1'), {}, secrets)), {
        status: 200,
      });
    });

    it('can leave redirects unfollowed, so a node reads the 3xx answer', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(303, { location: '/elsewhere' });
        response.end();
      });
      const result = await run(
        `version: 1\nname: R\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/x\noutputs:\n  where: { from: "{{ nodes.call.headers.location }}" }\n  status: { from: "{{ nodes.call.status }}" }\n`,
        {},
        { followRedirects: false },
      );
      assert.deepEqual(finished(result), { where: '/elsewhere', status: 303 });
    });
  });

  describe('expressions', () => {
    it('keeps the type of a single expression and renders longer strings as text', async () => {
      const result = await run(
        `version: 1
name: Types
inputs:
  n: { type: number, default: 2.5 }
  yes: { type: boolean, default: true }
  missing: { type: string }
nodes:
  render:
    type: template
    text: "n={{ inputs.n }} yes={{ inputs.yes }} missing=[{{ inputs.missing }}]"
outputs:
  n: { from: "{{ inputs.n }}" }
  yes: { from: " {{ inputs.yes }} " }
  missing: { from: "{{ inputs.missing }}" }
  text: { from: "{{ nodes.render.body }}" }
`,
      );
      assert.deepEqual(finished(result), { n: 2.5, yes: true, missing: null, text: 'n=2.5 yes=true missing=[]' });
    });

    it('fails with the node, the field and the expression when a reference points at nothing, and skips what follows', async () => {
      const server = await serve((_request, response) => json(response, 200, { id: 1, email: 'a@example.com' }));
      const result = failed(
        await run(`version: 1
name: Missing
nodes:
  lookup:
    type: api
    method: GET
    url: ${server.url}/customer
  summarize:
    type: api
    method: POST
    url: ${server.url}/summarize
    settings: ["Content-Type: application/json"]
    body: { customer: "{{ nodes.lookup.body.name }}" }
  after:
    type: template
    text: "{{ nodes.summarize.body }}"
outputs:
  out: { from: "{{ nodes.after.body }}" }
`),
      );
      assert.equal(result.status, 'failed');
      assert.equal(result.error.node, 'summarize');
      assert.equal(result.error.kind, 'expression');
      assert.equal(
        result.error.message,
        'Node "summarize" failed: body.customer: {{ nodes.lookup.body.name }} points at nothing: nodes.lookup.body has no "name" (it has: "id", "email").',
      );
      assert.deepEqual(
        result.trace.map((entry) => [entry.node, entry.status]),
        [
          ['lookup', 'succeeded'],
          ['summarize', 'failed'],
          ['after', 'skipped'],
        ],
      );
      assert.equal(server.requests.length, 1, 'summarize made no request');
    });

    for (const [expression, reason] of [
      ['{{ nodes.lookup.body.items[3] }}', 'nodes.lookup.body.items is a list of 2 items, so there is no [3].'],
      [
        '{{ nodes.lookup.body.items.first }}',
        'nodes.lookup.body.items is a list of 2 items, so it has no field "first"; use an index such as nodes.lookup.body.items[0].',
      ],
      ['{{ nodes.lookup.body.count.value }}', 'nodes.lookup.body.count is a number, so it has no field "value".'],
      ['{{ nodes.lookup.body.none.value }}', 'nodes.lookup.body.none is empty (null), so it has no field "value".'],
      ['{{ nodes.lookup.headers.location }}', 'the response of node "lookup" has no "location" header'],
      ['{{ inputs.note.length }}', 'inputs.note is text, so it has no field "length".'],
    ] as const) {
      it(`explains why ${expression} points at nothing`, async () => {
        const server = await serve((_request, response) => json(response, 200, { items: [1, 2], count: 3, none: null }));
        const result = failed(
          await run(
            `version: 1\nname: E\ninputs:\n  note: { type: string, default: hi }\nnodes:\n  lookup:\n    type: api\n    method: GET\n    url: ${server.url}/\noutputs:\n  out: { from: "x {{ nodes.lookup.body }} ${expression}" }\n`,
          ),
        );
        assert.equal(result.error.kind, 'output');
        assert.equal(result.error.output, 'out');
        assert.ok(result.error.message.startsWith(`Output "out": ${expression} points at nothing: ${reason}`), result.error.message);
      });
    }

    it('does not let an expression read where an uploaded file is stored', async () => {
      const dir = makeTempDir();
      try {
        const path = dir.write('stored-name.bin', 'abc');
        const yaml = `version: 1\nname: F\ninputs:\n  doc: { type: file }\nnodes:\n  show:\n    type: template\n    text: "{{ inputs.doc }}"\noutputs:\n  name: { from: "{{ inputs.doc.name }}" }\n  size: { from: "{{ inputs.doc.size }}" }\n  type: { from: "{{ inputs.doc.type }}" }\n  shown: { from: "{{ nodes.show.body }}" }\n  whole: { from: "{{ inputs.doc }}" }\n`;
        const files = { doc: { name: 'report.pdf', size: 3, type: 'application/pdf', path } };
        const outputs = finished(await run(yaml, { files }));
        assert.deepEqual(outputs, {
          name: 'report.pdf',
          size: 3,
          type: 'application/pdf',
          shown: '{"name":"report.pdf","size":3,"type":"application/pdf"}',
          whole: { name: 'report.pdf', size: 3, type: 'application/pdf' },
        });
        const leak = failed(await run(yaml.replace('{{ inputs.doc.name }}', '{{ inputs.doc.localPath }}'), { files }));
        assert.match(leak.error.message, /inputs\.doc has no "localPath" \(it has: "name", "size", "type"\)/);
        assert.doesNotMatch(JSON.stringify(leak), /stored-name/);
      } finally {
        dir.remove();
      }
    });

    it('sends the bytes of a file input as a body', async () => {
      const server = await serve((request, response, body) =>
        json(response, 200, {
          type: request.headers['content-type'],
          length: request.headers['content-length'],
          bytes: body.toString('base64'),
        }),
      );
      const dir = makeTempDir();
      try {
        const bytes = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
        const path = dir.write('upload', bytes);
        const outputs = finished(
          await run(
            `version: 1\nname: Up\ninputs:\n  shot: { type: file }\nnodes:\n  upload:\n    type: api\n    method: POST\n    url: ${server.url}/upload\n    body: "{{ inputs.shot }}"\noutputs:\n  seen: { from: "{{ nodes.upload.body }}" }\n`,
            {
              files: { shot: { name: 'shot.png', size: bytes.length, type: 'image/png', path } },
            },
          ),
        );
        assert.deepEqual(outputs.seen, { type: 'image/png', length: String(bytes.length), bytes: bytes.toString('base64') });
      } finally {
        dir.remove();
      }
    });

    it('refuses a header value that an input would split into two headers', async () => {
      const server = await serve((_request, response) => json(response, 200, {}));
      const result = failed(
        await run(
          `version: 1\nname: H\ninputs:\n  who: { type: string }\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n    settings: ["X-Who: {{ inputs.who }}"]\n`,
          { values: { who: 'me\r\nX-Admin: yes' } },
        ),
      );
      assert.equal(result.error.kind, 'expression');
      assert.match(result.error.message, /^Node "call" failed: The value of header "X-Who" contains a line break/);
      assert.equal(server.requests.length, 0);
    });
  });

  describe('failures', () => {
    const oneCall = (url: string) => `version: 1
name: One call
nodes:
  call:
    type: api
    method: GET
    url: ${url}
  next:
    type: template
    text: "{{ nodes.call.body }}"
outputs:
  out: { from: "{{ nodes.next.body }}" }
`;

    it('fails on an error status, quoting the answer, and skips the nodes that depend on it', async () => {
      const server = await serve((_request, response) => json(response, 503, { error: 'maintenance' }));
      const result = failed(await run(oneCall(`${server.url}/x?token=abc`)));
      assert.equal(result.error.kind, 'status');
      assert.equal(result.error.node, 'call');
      assert.equal(result.error.message, `Node "call" failed: GET ${server.url}/x answered 503: "{"error":"maintenance"}".`);
      assert.deepEqual(
        result.trace.map((entry) => [entry.node, entry.status, entry.httpStatus]),
        [
          ['call', 'failed', 503],
          ['next', 'skipped', undefined],
        ],
      );
    });

    it('fails when nothing listens', async () => {
      const port = await closedPort();
      const result = failed(await run(oneCall(`http://127.0.0.1:${port}/x`)));
      assert.equal(result.error.kind, 'request');
      assert.match(
        result.error.message,
        new RegExp(
          `^Node "call" failed: GET http://127\\.0\\.0\\.1:${port}/x failed: Nothing is listening at http://127\\.0\\.0\\.1:${port} \\(connection refused\\)`,
        ),
      );
    });

    it('fails a node that does not answer within the node time limit', async () => {
      const server = await serve(() => undefined);
      const started = Date.now();
      const result = failed(await run(oneCall(`${server.url}/hang`), {}, { nodeTimeoutMs: 200 }));
      assert.ok(Date.now() - started < 2000);
      assert.equal(result.error.kind, 'request');
      assert.match(result.error.message, /^Node "call" failed: GET http:\/\/127\.0\.0\.1:\d+\/hang failed: .* did not answer after 0\.2 s/);
    });

    it('fails a node whose answer is larger than the cap', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('x'.repeat(5000));
      });
      const result = failed(await run(oneCall(server.url), {}, { maxResponseBytes: 1000 }));
      assert.equal(result.error.kind, 'request');
      assert.match(result.error.message, /is larger than 1000 bytes/);
    });

    const fromInput = (url: string, setting = '') => `version: 1
name: Built URL
inputs:
  base: { type: string }
  header: { type: string, default: X-Fine }
nodes:
  call:
    type: api
    method: GET
    url: "${url}"
    settings: ["${setting || 'X-Fixed: 1'}"]
outputs:
  out: { from: "{{ nodes.call.body }}" }
`;

    it('fails a URL that is not valid once its expressions are filled in, before any call', async () => {
      const result = failed(await run(fromInput('{{ inputs.base }}/v1/items'), { values: { base: 'http://127.0.0.1:99999' } }));
      assert.equal(result.error.kind, 'expression');
      assert.equal(result.error.node, 'call');
      assert.equal(
        result.error.message,
        'Node "call" failed: The url is not a valid URL once its expressions are filled in: "http://127.0.0.1:99999/v1/items". Check the values it is built from.',
      );
    });

    it('fails a URL that is not http:// or https:// once its expressions are filled in', async () => {
      const result = failed(await run(fromInput('{{ inputs.base }}'), { values: { base: 'ftp://127.0.0.1/file.txt' } }));
      assert.equal(result.error.kind, 'expression');
      assert.equal(
        result.error.message,
        'Node "call" failed: The url must be http:// or https://, not ftp:// (after filling in its expressions).',
      );
    });

    it('fails a URL expression that gives an object, not text', async () => {
      const server = await serve((_request, response) => json(response, 200, { href: 'http://127.0.0.1/' }));
      const result = failed(
        await run(`version: 1
name: Object URL
nodes:
  first:
    type: api
    method: GET
    url: ${server.url}/link
  call:
    type: api
    method: GET
    url: "{{ nodes.first.body }}"
outputs:
  out: { from: "{{ nodes.call.body }}" }
`),
      );
      assert.equal(result.error.kind, 'expression');
      assert.equal(result.error.node, 'call');
      assert.equal(
        result.error.message,
        'Node "call" failed: The url is an object after filling in {{ nodes.first.body }}, not a URL. Make the expression give the URL as text.',
      );
      assert.equal(server.requests.length, 1);
    });

    it('refuses a header name built from an expression: a name carries no data, a secret least of all', () => {
      assert.throws(
        () => loadAgent(fromInput('http://127.0.0.1/x', 'X-{{ secrets.TOKEN }}: yes'), 'named.agent.yaml'),
        (error: unknown) =>
          error instanceof AgentFileError &&
          /^named\.agent\.yaml:\d+:\d+: expression-in-header-name The header name "X-\{\{ secrets\.TOKEN \}\}" is built from an expression/m.test(
            error.message,
          ),
      );
    });

    it('fails on a redirect to a URL that is not http:// or https://', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(302, { location: 'ftp://127.0.0.1/file.txt' });
        response.end();
      });
      const result = failed(await run(oneCall(`${server.url}/moved?token=abc`)));
      assert.equal(result.error.kind, 'request');
      assert.equal(
        result.error.message,
        `Node "call" failed: GET ${server.url}/moved failed: ${server.url}/moved redirected to a "ftp:" address, which is not followed: only redirects to http:// and https:// are. Call an address that answers over http:// or https://.`,
      );
      assert.equal(server.requests.length, 1);
    });

    it('fails on an answer that says it is JSON but is not', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{not json');
      });
      const result = failed(await run(oneCall(server.url)));
      assert.equal(result.error.kind, 'response');
      assert.equal(
        result.error.message,
        'Node "call" failed: The answer says it is JSON (application/json) but is not valid JSON: "{not json".',
      );
    });

    it('stops the nodes still running when another fails, without waiting for them', async () => {
      const hang = await serve(() => undefined);
      const broken = await serve((_request, response) => json(response, 500, { error: 'boom' }));
      const started = Date.now();
      const result = failed(
        await run(
          `version: 1\nname: Two\nnodes:\n  slow:\n    type: api\n    method: GET\n    url: ${hang.url}/slow\n  bad:\n    type: api\n    method: GET\n    url: ${broken.url}/bad\n`,
          {},
          { nodeTimeoutMs: 20_000 },
        ),
      );
      assert.ok(Date.now() - started < 3000, 'the hanging node was stopped');
      assert.equal(result.error.node, 'bad');
      assert.equal(traceOf(result, 'slow').status, 'cancelled');
      assert.equal(traceOf(result, 'bad').status, 'failed');
    });

    it('fails when the whole execution takes longer than its time limit', async () => {
      const hang = await serve(() => undefined);
      const result = failed(await run(oneCall(`${hang.url}/slow`), {}, { timeoutMs: 200 }));
      assert.equal(result.status, 'failed');
      assert.equal(result.error.kind, 'timeout');
      assert.equal(result.error.message, 'The execution did not finish within its time limit of 0.2 s (stopped: "call").');
    });

    it('caps a time limit beyond what a timer takes (2^31 - 1 ms) instead of stopping at once', async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning.name);
      process.on('warning', onWarning);
      try {
        const slow = await serve((_request, response) => setTimeout(() => json(response, 200, { ok: true }), 50));
        // Both the execution's limit and the node's: either timer, uncapped, would fire in about 1 ms.
        const outputs = finished(await run(oneCall(`${slow.url}/slow`), {}, { timeoutMs: 9_999_999_999, nodeTimeoutMs: 9_999_999_999 }));
        assert.match(String(outputs.out), /"ok"/);
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(warnings, []);
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('refuses to load a file with errors, saying where they are', () => {
      assert.throws(
        () =>
          loadAgent('version: 1\nname: Broken\nnodes:\n  a:\n    type: template\n    text: "{{ nodes.b.body }}"\n', 'broken.agent.yaml'),
        (error: unknown) =>
          error instanceof AgentFileError &&
          /^broken\.agent\.yaml has 1 error and cannot run until it is fixed:\nbroken\.agent\.yaml:6:21: unknown-node There is no node "b"/.test(
            error.message,
          ),
      );
    });
  });

  describe('secrets', () => {
    const SECRET = 'sk-live/4f9a+c8e&b2=d7 "q"';
    const agent = (url: string) => `version: 1
name: Secret
nodes:
  call:
    type: api
    method: POST
    url: ${url}/echo/{{ secrets.API_KEY }}?api_key={{ secrets.API_KEY }}
    settings:
      - "Authorization: Bearer {{ secrets.TOKEN }}"
      - "Content-Type: application/json"
    body: { key: "{{ secrets.API_KEY }}" }
outputs:
  echoed: { from: "{{ nodes.call.body }}" }
  direct: { from: "token {{ secrets.TOKEN }}" }
`;
    const secrets = envSecretResolver({ AGENT_SECRET_API_KEY: SECRET, AGENT_SECRET_TOKEN: 'tok-9f8e7d6c' });
    const assertNoSecret = (value: unknown): void => {
      const text = JSON.stringify(value);
      for (const secret of [SECRET, encodeURIComponent(SECRET), JSON.stringify(SECRET).slice(1, -1), 'tok-9f8e7d6c'])
        assert.ok(!text.includes(secret), `"${secret}" appears in ${text}`);
    };

    it('sends secrets but redacts them from outputs and the trace, even when the API echoes them back', async () => {
      const server = await serve((request, response, body) =>
        json(response, 200, { url: request.url, authorization: request.headers.authorization, body: body.toString() }),
      );
      const traces: NodeTrace[] = [];
      const result = await run(agent(server.url), {}, { secrets, onTrace: (entry) => traces.push(entry) });
      const outputs = finished(result);
      const request = server.requests[0]!;
      assert.equal(request.headers.authorization, 'Bearer tok-9f8e7d6c');
      assert.equal(request.url, `/echo/${encodeURIComponent(SECRET)}?api_key=${encodeURIComponent(SECRET)}`);
      assert.deepEqual(JSON.parse(request.body.toString()), { key: SECRET });
      assert.equal(outputs.direct, 'token [redacted]');
      assert.deepEqual(outputs.echoed, {
        url: '/echo/[redacted]?api_key=[redacted]',
        authorization: 'Bearer [redacted]',
        body: '{"key":"[redacted]"}',
      });
      assert.equal(traceOf(result, 'call').url, `${server.url}/echo/[redacted]`);
      assertNoSecret(result);
      assertNoSecret(traces);
    });

    it('sends a user name and password in the URL as Basic credentials, redacted like the secret they hold', async () => {
      const server = await serve((request, response) =>
        json(response, 200, { url: request.url, authorization: request.headers.authorization }),
      );
      const port = server.url.slice(server.url.lastIndexOf(':') + 1);
      const result = await run(
        `version: 1\nname: U\nnodes:\n  call:\n    type: api\n    method: GET\n    url: http://alice:{{ secrets.TOKEN }}@127.0.0.1:${port}/x\noutputs:\n  echoed: { from: "{{ nodes.call.body }}" }\n`,
        {},
        { secrets },
      );
      const outputs = finished(result);
      const basic = `Basic ${Buffer.from('alice:tok-9f8e7d6c').toString('base64')}`;
      assert.equal(server.requests[0]!.headers.authorization, basic);
      assert.equal(server.requests[0]!.url, '/x');
      assert.deepEqual(outputs.echoed, { url: '/x', authorization: 'Basic [redacted]' });
      const both = failed(
        await run(
          `version: 1\nname: U\nnodes:\n  call:\n    type: api\n    method: GET\n    url: http://alice:{{ secrets.TOKEN }}@127.0.0.1:${port}/x\n    settings: ["Authorization: Bearer {{ secrets.TOKEN }}"]\n`,
          {},
          { secrets },
        ),
      );
      assert.equal(
        both.error.message,
        'Node "call" failed: The url carries a user name and password, and the settings an Authorization header: only one can be sent. Remove one of them.',
      );
      assert.equal(server.requests.length, 1);
    });

    it('redacts secrets from errors', async () => {
      const server = await serve((request, response) =>
        json(response, 401, { error: `bad key ${decodeURIComponent(request.url!.split('=')[1]!)}` }),
      );
      const traces: NodeTrace[] = [];
      const result = failed(await run(agent(server.url), {}, { secrets, onTrace: (entry) => traces.push(entry) }));
      assert.match(result.error.message, /answered 401: "\{"error":"bad key \[redacted\]"\}"/);
      assertNoSecret(result);
      assertNoSecret(traces);
    });

    it('redacts a secret before cutting the quote of an answer, even when it straddles the cut', async () => {
      const token = 'tok-SUPERSECRET-7f3a9c2e';
      // 176 characters, then the request's Authorization header: the quote's 200-character cut falls inside the token.
      const server = await serve((request, response) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`${'e'.repeat(176)}${request.headers.authorization}`);
      });
      const traces: NodeTrace[] = [];
      const result = failed(
        await run(
          `version: 1\nname: Cut\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/x\n    settings:\n      - "Authorization: Bearer {{ secrets.T }}"\noutputs:\n  s: { from: "{{ nodes.call.status }}" }\n`,
          {},
          { secrets: envSecretResolver({ AGENT_SECRET_T: token }), onTrace: (entry) => traces.push(entry) },
        ),
      );
      assert.match(result.error.message, /answered 500: "e{176}Bearer \[redacted\]"\.$/);
      for (const text of [result.error.message, traceOf(result, 'call').error!, JSON.stringify(traces)]) {
        assert.doesNotMatch(text, /tok-/, text);
      }
    });

    it('redacts a secret lower-cased by URL parsing in a host name', async () => {
      const port = await closedPort();
      const result = failed(
        await run(
          `version: 1\nname: Host\nnodes:\n  call:\n    type: api\n    method: GET\n    url: http://{{ secrets.HOST }}:${port}/x\noutputs:\n  s: { from: "{{ nodes.call.status }}" }\n`,
          {},
          { secrets: envSecretResolver({ AGENT_SECRET_HOST: 'LocalHost' }) },
        ),
      );
      assert.equal(result.error.kind, 'request');
      assert.match(result.error.message, /\[redacted\]/);
      assert.doesNotMatch(JSON.stringify(result), /localhost/i);
    });

    it('fails before any call when a secret is missing, naming it and how to provide it', async () => {
      const server = await serve((_request, response) => json(response, 200, {}));
      const result = failed(
        await run(agent(server.url), {}, { secrets: envSecretResolver({ AGENT_SECRET_TOKEN: 'tok-9f8e7d6c' }), secretHint: envSecretHint }),
      );
      assert.equal(result.error.kind, 'secret');
      assert.equal(
        result.error.message,
        'The agent uses a secret that is not available. Secret "API_KEY" is not set: set the environment variable AGENT_SECRET_API_KEY where the server or command runs.',
      );
      assert.equal(server.requests.length, 0);
      assert.deepEqual(
        result.trace.map((entry) => entry.status),
        ['skipped'],
      );
    });

    it('reports a resolver that fails', async () => {
      const result = failed(
        await run(
          agent('http://127.0.0.1:9'),
          {},
          {
            secrets: async (name) => {
              if (name === 'TOKEN') throw new Error('keychain locked');
              return 'value';
            },
          },
        ),
      );
      assert.equal(result.error.kind, 'secret');
      assert.match(result.error.message, /Secret "TOKEN" could not be read: keychain locked\./);
    });
  });

  describe('cancellation', () => {
    it('stops at once when cancelled: running nodes are cancelled, the rest skipped', async () => {
      let arrived!: () => void;
      const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
      const server = await serve(() => arrived());
      const controller = new AbortController();
      const traces: NodeTrace[] = [];
      const pending = run(
        `version: 1\nname: C\nnodes:\n  slow:\n    type: api\n    method: GET\n    url: ${server.url}/slow\n  after:\n    type: template\n    text: "{{ nodes.slow.body }}"\n`,
        {},
        { signal: controller.signal, nodeTimeoutMs: 20_000, onTrace: (entry) => traces.push(entry) },
      );
      await requestArrived;
      const started = Date.now();
      controller.abort();
      const result = failed(await pending);
      assert.ok(Date.now() - started < 1000);
      assert.equal(result.status, 'cancelled');
      assert.equal(result.error.kind, 'cancelled');
      assert.equal(result.error.message, 'The execution was cancelled (stopped: "slow").');
      assert.deepEqual(
        result.trace.map((entry) => [entry.node, entry.status]),
        [
          ['slow', 'cancelled'],
          ['after', 'skipped'],
        ],
      );
      assert.deepEqual(
        traces.map((entry) => `${entry.node}:${entry.status}`),
        ['slow:running', 'slow:cancelled'],
      );
    });

    it('does not start when already cancelled', async () => {
      const server = await serve((_request, response) => json(response, 200, {}));
      const result = failed(
        await run(
          `version: 1\nname: C\nnodes:\n  a:\n    type: api\n    method: GET\n    url: ${server.url}/\n`,
          {},
          { signal: AbortSignal.abort() },
        ),
      );
      assert.equal(result.status, 'cancelled');
      assert.equal(server.requests.length, 0);
    });
  });

  it('can load every complete agent in docs/local-server.md', () => {
    const text = readFileSync(join(repoRoot, 'docs', 'local-server.md'), 'utf8');
    const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((match) => match[1]!)
      .filter((block) => block.startsWith('version: 1'));
    assert.ok(blocks.length > 0);
    for (const block of blocks) assert.doesNotThrow(() => loadAgent(block, 'docs/local-server.md'));
  });

  describe('inputs', () => {
    const yaml = `version: 1
name: Inputs
inputs:
  ticket: { type: string, required: true, description: Ticket text }
  count: { type: number, default: 10 }
  urgent: { type: boolean }
  priority: { type: string, enum: [low, high], default: low }
  shot: { type: file, accept: [image/png, .jpg] }
nodes:
  show:
    type: template
    text: "{{ inputs.ticket }}|{{ inputs.count }}|{{ inputs.urgent }}|{{ inputs.priority }}"
outputs:
  text: { from: "{{ nodes.show.body }}" }
`;
    const model = loadAgent(yaml).model;

    it('applies defaults, converts text to the input type and leaves optional inputs empty', async () => {
      assert.deepEqual(resolveInputs(model, { values: { ticket: 'Printer', count: '3', urgent: 'yes' } }).values, {
        ticket: 'Printer',
        count: 3,
        urgent: true,
        priority: 'low',
        shot: null,
      });
      assert.deepEqual(resolveInputs(model, { values: { ticket: 'x', count: null } }).values, {
        ticket: 'x',
        count: 10,
        urgent: null,
        priority: 'low',
        shot: null,
      });
      assert.equal(finished(await run(yaml, { values: { ticket: 'Printer', priority: 'high' } })).text, 'Printer|10||high');
    });

    it('lists every problem: unknown, missing, wrong type, not allowed, wrong kind of value, file type', () => {
      assert.throws(
        () =>
          resolveInputs(model, {
            values: { tickt: 'x', count: 'many', priority: 'urgent', urgent: { yes: true } },
            files: { shot: { name: 'a.gif', size: 1, type: 'image/gif', path: '/nowhere' } },
          }),
        (error: unknown) => {
          assert.deepEqual((error as { problems: string[] }).problems, [
            'The agent has no input "tickt". Did you mean "ticket"?',
            'Input "count" must be a number, not "many".',
            'Input "priority" must be one of "low", "high", not "urgent".',
            'Input "urgent" must be true or false, not an object.',
            'The file for input "shot" (a.gif, image/gif) is not of an accepted type: image/png, .jpg.',
            'Input "ticket" is required: give it in "inputs". (Ticket text)',
          ]);
          return true;
        },
      );
      assert.throws(
        () => resolveInputs(model, { values: { ticket: 'x', shot: 'a.png' } }),
        /Input "shot" is a file input: send the file as a part named "shot"/,
      );
      assert.throws(
        () =>
          resolveInputs(model, { values: { ticket: 'x' }, files: { ticket: { name: 'a.png', size: 1, type: 'image/png', path: '/x' } } }),
        /Input "ticket" is a string input, not a file/,
      );
    });

    it('treats input names such as "constructor" like any other', async () => {
      const yaml = `version: 1\nname: P\ninputs:\n  constructor: { type: string, default: built }\n  toString: { type: string }\nnodes:\n  show:\n    type: template\n    text: "{{ inputs.constructor }}|{{ inputs.toString }}"\noutputs:\n  text: { from: "{{ nodes.show.body }}" }\n`;
      assert.equal(finished(await run(yaml)).text, 'built|');
      assert.equal(finished(await run(yaml, { values: { toString: 'given' } })).text, 'built|given');
    });

    it('accepts a file by media type or by extension', () => {
      const file = (name: string, type: string) => ({ values: { ticket: 'x' }, files: { shot: { name, size: 1, type, path: '/x' } } });
      assert.equal((resolveInputs(model, file('a.bin', 'image/png')).values.shot as { name: string }).name, 'a.bin');
      assert.equal((resolveInputs(model, file('photo.JPG', 'application/octet-stream')).values.shot as { name: string }).name, 'photo.JPG');
    });
  });
});
