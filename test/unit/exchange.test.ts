// Exchanges of API nodes (src/core/exchange/): Send Request on one node (sendNode) and the engine's
// onExchange hook, against real HTTP and HTTPS servers on 127.0.0.1: what arrived for each auth form
// of the seed, secrets written by name and never by value, the same bytes through send and through
// a run, decoded and cut bodies, text that is not UTF-8, redirects that drop credentials, failures.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Agent } from 'undici';
import { classifyNetworkError } from '../../src/core/http/networkError';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { buildApiRequest } from '../../src/core/engine/apiRequest';
import { Redactor } from '../../src/core/redaction';
import { curlForExchange, curlForRequest, shellWordWithSecrets } from '../../src/core/exchange/curl';
import { unparsedBodyBytes } from '../../src/core/engine/deferredJson';
import { executeAgent } from '../../src/core/engine/engine';
import { resolveInputs } from '../../src/core/engine/inputs';
import type { NodeResult } from '../../src/core/engine/evaluate';
import type { Exchange, RecordedBody } from '../../src/core/exchange/exchange';
import { bodyMismatch, recordBody } from '../../src/core/exchange/recordExchange';
import {
  MissingValuesError,
  NodeKindError,
  nodeNeeds,
  renderTemplateNode,
  sendNode,
  UnknownNodeError,
} from '../../src/core/exchange/sendNode';
import type { SendNodeOptions, SendOutcome } from '../../src/core/exchange/sendNode';
import { resultBytes } from '../../src/core/nodeValues/nodeResultMemory';
import { closedPort, json, startServer } from '../support/httpServer';
import type { RecordedRequest, TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';

const TOKEN = 'tok-Bearer-7Qx9secret';
const PASSWORD = 'pw-Basic-Zz81secret';
const API_KEY = 'key-Header-55a1secret';
const QUERY_KEY = 'key/Query+9=secret';
const SECRETS: Record<string, string> = { TOKEN, PASSWORD, API_KEY, QUERY_KEY };
const secretResolver = async (name: string): Promise<string | undefined> => SECRETS[name];

function agentOf(yaml: string): ReturnType<typeof loadAgent> {
  return loadAgent(yaml, 'test.agent.yaml');
}

async function send(yaml: string, node: string, options: Partial<SendNodeOptions> = {}): Promise<SendOutcome> {
  const agent = agentOf(yaml);
  return sendNode(agent, node, { inputs: resolveInputs(agent.model, { values: {} }), secrets: secretResolver, ...options });
}

/** Asserts no secret value appears anywhere in the exchange (as JSON). */
function assertNoSecretValues(exchange: Exchange): void {
  const text = JSON.stringify(exchange);
  for (const [name, value] of Object.entries(SECRETS)) {
    assert.ok(!text.includes(value), `secret ${name} appears in the exchange`);
    assert.ok(!text.includes(encodeURIComponent(value)), `secret ${name} appears percent-encoded in the exchange`);
  }
}

function header(exchange: Exchange, name: string, side: 'request' | 'response' = 'request'): string | undefined {
  const headers = side === 'request' ? exchange.request.headers : (exchange.response?.headers ?? []);
  return headers.find((item) => item.name.toLowerCase() === name.toLowerCase())?.value;
}

describe('exchanges: Send Request on one node and the engine hook', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
    const server = await startServer(handler);
    servers.push(server);
    return server;
  }
  const echo = (): Promise<TestServer> => serve((request, response) => json(response, 200, { ok: true, path: request.url }));

  describe('each auth form of the seed: what arrived, and the exchange names the secret', () => {
    it('Bearer in the Authorization header', async () => {
      const server = await echo();
      const { exchange, result } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/me\n    settings: ["Authorization: Bearer {{ secrets.TOKEN }}"]\n`,
        'call',
      );
      assert.equal(server.requests[0]!.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(header(exchange, 'Authorization'), 'Bearer {{ secrets.TOKEN }}');
      assert.deepEqual(result?.body, { ok: true, path: '/me' });
      assert.equal(exchange.response?.status, 200);
      assert.equal(exchange.response?.statusText, 'OK');
      assertNoSecretValues(exchange);
    });

    it('Basic in a header and as user:password in the URL', async () => {
      const server = await echo();
      const basic = Buffer.from(`alice:${PASSWORD}`).toString('base64');
      const viaHeader = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/h\n    settings: ["Authorization: Basic {{ secrets.PASSWORD }}"]\n`,
        'call',
      );
      assert.equal(server.requests[0]!.headers.authorization, `Basic ${PASSWORD}`);
      assert.equal(header(viaHeader.exchange, 'Authorization'), 'Basic {{ secrets.PASSWORD }}');
      const viaUrl = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: "http://alice:{{ secrets.PASSWORD }}@127.0.0.1:${server.port}/u"\n`,
        'call',
      );
      assert.equal(server.requests[1]!.headers.authorization, `Basic ${basic}`, 'URL credentials arrive as Basic');
      assert.equal(header(viaUrl.exchange, 'Authorization'), 'Basic base64(alice:{{ secrets.PASSWORD }})');
      assert.equal(viaUrl.exchange.request.url, `${server.url}/u`, 'the URL no longer carries the credentials');
      assertNoSecretValues(viaHeader.exchange);
      assertNoSecretValues(viaUrl.exchange);
      assert.ok(!JSON.stringify(viaUrl.exchange).includes(basic));
    });

    it('x-api-key header', async () => {
      const server = await echo();
      const { exchange } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: POST\n    url: ${server.url}/k\n    settings: ["x-api-key: {{ secrets.API_KEY }}"]\n    body: { q: 1 }\n`,
        'call',
      );
      assert.equal(server.requests[0]!.headers['x-api-key'], API_KEY);
      assert.equal(header(exchange, 'x-api-key'), '{{ secrets.API_KEY }}');
      assert.deepEqual(exchange.request.body, { kind: 'text', text: '{"q":1}', size: 7, truncated: false });
      assertNoSecretValues(exchange);
    });

    it('?api_key= on a GET: arrives percent-encoded, shown by name', async () => {
      const server = await echo();
      const { exchange } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: "${server.url}/q?api_key={{ secrets.QUERY_KEY }}&page=2"\n`,
        'call',
      );
      assert.equal(server.requests[0]!.url, `/q?api_key=${encodeURIComponent(QUERY_KEY)}&page=2`);
      assert.equal(exchange.request.url, `${server.url}/q?api_key={{ secrets.QUERY_KEY }}&page=2`);
      assertNoSecretValues(exchange);
    });
  });

  it('a node sends the same bytes through Send Request and through a run', async () => {
    const server = await serve((_request, response) => json(response, 200, { ok: true }));
    const dir = makeTempDir();
    try {
      const file = dir.write('doc.bin', Buffer.from([0, 1, 2, 250]));
      const yaml = `version: 1
name: Same
inputs:
  who: { type: string }
  doc: { type: file }
nodes:
  first:
    type: api
    method: GET
    url: ${server.url}/first
  call:
    type: api
    method: POST
    url: "${server.url}/c/{{ inputs.who }}?api_key={{ secrets.QUERY_KEY }}&n={{ nodes.first.body.ok }}"
    settings:
      - "Authorization: Bearer {{ secrets.TOKEN }}"
      - "X-Who: {{ inputs.who }}"
      - "X-Who: again"
    body: { who: "{{ inputs.who }}", nested: ["{{ nodes.first.body }}", 1, true, null] }
  upload:
    type: api
    method: PUT
    url: "http://bob:{{ secrets.PASSWORD }}@127.0.0.1:${server.port}/upload"
    body: "{{ inputs.doc }}"
outputs:
  out: { from: "{{ nodes.call.status }}{{ nodes.upload.status }}" }
`;
      const agent = agentOf(yaml);
      const inputs = resolveInputs(agent.model, {
        values: { who: 'a b/ü' },
        files: { doc: { name: 'doc.bin', size: 4, type: 'application/octet-stream', path: file } },
      });
      const exchanges: Exchange[] = [];
      const run = await executeAgent(agent, inputs, { secrets: secretResolver, onExchange: (record) => exchanges.push(record()) });
      assert.equal(run.status, 'finished');
      const ran = server.requests.splice(0);
      const nodes = new Map<string, NodeResult>([['first', { status: 200, headers: {}, body: { ok: true } }]]);
      for (const node of ['call', 'upload']) await sendNode(agent, node, { inputs, nodes, secrets: secretResolver });
      const sent = server.requests.splice(0);
      const strip = (request: RecordedRequest): unknown => {
        const { host: _host, connection: _connection, ...headers } = request.headers;
        return { method: request.method, url: request.url, headers, body: request.body.toString('base64') };
      };
      const byUrl = (a: RecordedRequest, b: RecordedRequest): number => a.url.localeCompare(b.url);
      assert.deepEqual(
        sent.sort(byUrl).map(strip),
        ran
          .filter((request) => request.url !== '/first')
          .sort(byUrl)
          .map(strip),
      );
      assert.equal(sent.length, 2);
      assert.equal(exchanges.length, 3, 'one exchange per API node call of the run');
      assert.deepEqual(exchanges.find((exchange) => exchange.node === 'upload')?.request.body, {
        kind: 'file',
        name: 'doc.bin',
        size: 4,
      });
      for (const exchange of exchanges) assertNoSecretValues(exchange);
    } finally {
      dir.remove();
    }
  });

  describe('answer bodies', () => {
    for (const [encoding, encode] of [
      ['gzip', gzipSync],
      ['br', brotliCompressSync],
      ['deflate', deflateSync],
    ] as const) {
      it(`decodes ${encoding}`, async () => {
        const server = await serve((_request, response) => {
          response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
          response.end(encode(Buffer.from(JSON.stringify({ hello: 'wörld' }))));
        });
        const { exchange, result } = await send(
          `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n`,
          'call',
        );
        assert.deepEqual(result?.body, { hello: 'wörld' });
        assert.equal(exchange.response?.contentEncoding, encoding);
        assert.deepEqual(exchange.response?.body, { kind: 'text', text: '{"hello":"wörld"}', size: 18, truncated: false });
      });
    }

    it('parses a JSON answer when its result is first read; JSON that is not fails the send as it fails a run', async () => {
      const bodies: Record<string, string> = {
        '/ok': JSON.stringify({ rows: [1, 2, { city: 'Zürich' }] }),
        '/bad-escape': '{"a":"\\x"}',
        '/trailing': '{"a":1} {"b":2}',
        '/bom': '\ufeff{"a":1}',
        '/deep': `${'['.repeat(300)}${']'.repeat(300)}`,
      };
      const server = await serve((request, response) => {
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        response.end(bodies[request.url ?? ''] ?? '');
      });
      const yaml = (path: string): string =>
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}${path}\n`;

      const ok = await send(yaml('/ok'), 'call');
      const result = ok.result!;
      const bytes = Buffer.byteLength(bodies['/ok']!);
      assert.equal(unparsedBodyBytes(result), bytes, 'not parsed by the send');
      assert.ok(resultBytes(result) > bytes);
      assert.equal(unparsedBodyBytes(result), bytes, 'not parsed to be sized');
      assert.deepEqual(result.body, { rows: [1, 2, { city: 'Zürich' }] });
      assert.equal(unparsedBodyBytes(result), undefined, 'parsed once read');
      assert.equal(result.body, result.body, 'parsed once');
      assert.deepEqual(JSON.parse(JSON.stringify(result)), { status: 200, headers: result.headers, body: result.body });
      assert.deepEqual(ok.exchange.response?.body, { kind: 'text', text: bodies['/ok'], size: bytes, truncated: false });

      for (const [path, message] of [
        ['/bad-escape', /says it is JSON \(application\/json; charset=utf-8\) but is not valid JSON/],
        ['/trailing', /is not valid JSON/],
        ['/bom', /is not valid JSON/],
        ['/deep', /JSON that nests arrays and objects deeper than 256 levels/],
      ] as const) {
        const sent = await send(yaml(path), 'call');
        assert.equal(sent.result, undefined, path);
        assert.equal(sent.failure?.kind, 'response', path);
        assert.match(sent.failure?.message ?? '', message, path);
        const agent = agentOf(yaml(path));
        const run = await executeAgent(agent, resolveInputs(agent.model, {}));
        assert.equal(run.status, 'failed', path);
        assert.equal(
          run.status === 'failed' ? run.error.message : '',
          `Node "call" failed: ${sent.failure?.message}`,
          `${path}: the run says what the send says`,
        );
      }
    });

    it('reads a body that says its size whole, however it is split, and one that says none', async () => {
      const text = Array.from({ length: 200_000 }, (_, index) => `row ${index} é`).join('\n');
      const bytes = Buffer.from(text);
      const server = await serve((request, response) => {
        response.writeHead(200, {
          'content-type': 'text/plain; charset=utf-8',
          ...(request.url === '/sized' ? { 'content-length': String(bytes.length) } : {}),
        });
        // Pieces of odd sizes, a character split across two of them.
        let at = 0;
        const next = (): void => {
          if (at >= bytes.length) {
            response.end();
            return;
          }
          const piece = bytes.subarray(at, at + 65_537);
          at += piece.length;
          if (response.write(piece)) setImmediate(next);
          else response.once('drain', next);
        };
        next();
      });
      for (const path of ['/sized', '/unsized']) {
        const sent = await send(
          `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}${path}\n`,
          'call',
        );
        assert.equal(sent.result?.body, text, path);
        assert.deepEqual(sent.exchange.response?.body, { kind: 'text', text, size: bytes.length, truncated: false }, path);
      }
    });

    it('records the text the engine decoded only where it is what decoding the bytes gives', () => {
      const redactor = new Redactor();
      const record = (bytes: Buffer, contentType: string): ReturnType<typeof recordBody> =>
        recordBody(bytes, contentType, redactor, 1024, {}, bytes.toString('utf8'));
      assert.deepEqual(record(Buffer.from('{"city":"Zürich"}'), 'application/json'), {
        kind: 'text',
        text: '{"city":"Zürich"}',
        size: 18,
        truncated: false,
      });
      // A byte order mark: decoding drops it, as without the engine's text.
      assert.deepEqual(record(Buffer.from('\ufeffplain'), 'text/plain'), { kind: 'text', text: 'plain', size: 8, truncated: false });
      // Bytes that are not UTF-8 (the engine's text has U+FFFD for them): bytes, never mojibake.
      const latin1 = Buffer.from('café', 'latin1');
      assert.deepEqual(record(latin1, 'text/plain'), { kind: 'binary', base64: latin1.toString('base64'), size: 4, truncated: false });
      // Another charset: decoded in it, not taken as UTF-8.
      assert.deepEqual(record(latin1, 'text/plain; charset=latin1'), { kind: 'text', text: 'café', size: 4, truncated: false });
      assert.deepEqual(record(Buffer.from('a\u0000b'), 'text/plain'), {
        kind: 'binary',
        base64: Buffer.from('a\u0000b').toString('base64'),
        size: 3,
        truncated: false,
      });
    });

    it('caps the decoded bytes: a small gzip bomb fails a run, and is cut by Send Request', async () => {
      const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a'));
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        response.end(bomb);
      });
      assert.ok(bomb.length < 100_000);
      const yaml = `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n`;
      const agent = agentOf(yaml);
      const run = await executeAgent(agent, resolveInputs(agent.model, {}), { maxResponseBytes: 1024 * 1024 });
      assert.equal(run.status, 'failed');
      assert.match(run.status === 'failed' ? run.error.message : '', /larger than 1048576 bytes once decoded \(gzip\)/);
      const sent = await send(yaml, 'call', { bodyLimit: 1024 * 1024 });
      assert.equal(sent.truncated, true);
      assert.equal(sent.failure, undefined, 'a cut answer is no failure');
      const body = sent.exchange.response?.body;
      assert.ok(body?.kind === 'text');
      assert.equal(body.text.length, 1024 * 1024);
      assert.equal(body.truncated, true);
      assert.equal(body.sizeUnknown, true, 'an encoded answer does not say its decoded size');
    });

    it('cuts a huge answer at the limit and says its full size from Content-Length', async () => {
      const size = 3 * 1024 * 1024;
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) });
        response.end(Buffer.alloc(size, 'x'));
      });
      const { exchange, truncated, result } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n`,
        'call',
        {
          bodyLimit: 1024,
        },
      );
      assert.equal(truncated, true);
      assert.equal(result, undefined, 'the start of an answer is not a result to use');
      assert.deepEqual(exchange.response?.body, { kind: 'text', text: 'x'.repeat(1024), size, truncated: true });
    });

    it('keeps a body in its declared charset, and bytes that are not text as Base64, never mojibake', async () => {
      const latin1 = Buffer.from('café crème', 'latin1');
      const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]);
      const server = await serve((request, response) => {
        if (request.url === '/latin1') {
          response.writeHead(200, { 'content-type': 'text/plain; charset=ISO-8859-1' });
          response.end(latin1);
        } else if (request.url === '/undeclared') {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end(latin1);
        } else {
          response.writeHead(200, { 'content-type': 'image/png' });
          response.end(binary);
        }
      });
      const yaml = (path: string): string =>
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}${path}\n`;
      const declared = await send(yaml('/latin1'), 'call');
      assert.deepEqual(declared.exchange.response?.body, { kind: 'text', text: 'café crème', size: 10, truncated: false });
      const undeclared = await send(yaml('/undeclared'), 'call');
      assert.deepEqual(undeclared.exchange.response?.body, {
        kind: 'binary',
        base64: latin1.toString('base64'),
        size: 10,
        truncated: false,
      });
      const image = await send(yaml('/image'), 'call');
      assert.deepEqual(image.exchange.response?.body, { kind: 'binary', base64: binary.toString('base64'), size: 7, truncated: false });
      assert.equal(image.exchange.response?.contentType, 'image/png');
    });

    it('a cut in the middle of a character keeps the text valid', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('éééé');
      });
      const { exchange } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n`,
        'call',
        {
          bodyLimit: 3,
        },
      );
      assert.deepEqual(exchange.response?.body, { kind: 'text', text: 'é', size: 3, truncated: true, sizeUnknown: true });
    });

    it('writes a secret an answer echoes by name, also when the cut splits it', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end(`you sent ${TOKEN} and ${TOKEN}`);
      });
      const yaml = `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n    settings: ["Authorization: Bearer {{ secrets.TOKEN }}"]\n`;
      const whole = await send(yaml, 'call');
      assert.equal(
        whole.exchange.response?.body.kind === 'text' && whole.exchange.response.body.text,
        'you sent {{ secrets.TOKEN }} and {{ secrets.TOKEN }}',
      );
      const cut = await send(yaml, 'call', { bodyLimit: 9 + TOKEN.length + 5 + 8 });
      assert.equal(
        cut.exchange.response?.body.kind === 'text' && cut.exchange.response.body.text,
        'you sent {{ secrets.TOKEN }} and {{ secrets.TOKEN }}',
      );
      assertNoSecretValues(cut.exchange);
    });

    it('writes a secret by name in an answer that is not text too: Latin-1, UTF-8 beside a NUL, cut short', async () => {
      const server = await serve((request, response) => {
        response.writeHead(401, { 'content-type': request.url === '/png' ? 'image/png' : 'text/plain' });
        // Not UTF-8 (é in Latin-1), so kept as bytes; the second one holds a NUL.
        if (request.url === '/latin1') response.end(Buffer.from(`Jeton refusé: Bearer ${TOKEN}`, 'latin1'));
        else response.end(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]), Buffer.from(`token=${TOKEN};`)]));
      });
      const yaml = (path: string): string =>
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}${path}\n    settings: ["Authorization: Bearer {{ secrets.TOKEN }}"]\n`;
      const bytesOf = (exchange: { response?: { body: RecordedBody } }): Buffer => {
        const body = exchange.response?.body;
        assert.ok(body?.kind === 'binary', JSON.stringify(body));
        return Buffer.from(body.base64, 'base64');
      };
      const latin1 = bytesOf((await send(yaml('/latin1'), 'call')).exchange);
      assert.equal(latin1.toString('latin1'), 'Jeton refusé: Bearer {{ secrets.TOKEN }}');
      const png = bytesOf((await send(yaml('/png'), 'call')).exchange);
      assert.equal(png.subarray(5).toString('utf8'), 'token={{ secrets.TOKEN }};');
      // Cut in the middle of the token: its start is masked as well.
      const cut = await send(yaml('/png'), 'call', { bodyLimit: 5 + 6 + 12 });
      assert.equal(bytesOf(cut.exchange).subarray(5).toString('utf8'), 'token={{ secrets.TOKEN }}');
      for (const sent of [latin1, png, bytesOf(cut.exchange)]) assert.ok(!sent.toString('latin1').includes(TOKEN.slice(0, 12)));
    });
  });

  describe('redirects and failures', () => {
    it('follows a redirect to another origin without the credentials, and says so', async () => {
      const target = await echo();
      const origin = await serve((_request, response) => {
        response.writeHead(302, { location: `http://localhost:${target.port}/landed` });
        response.end();
      });
      const { exchange } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: "${origin.url}/start?api_key={{ secrets.QUERY_KEY }}"\n    settings: ["Authorization: Bearer {{ secrets.TOKEN }}", "X-Custom: plain", "Accept: application/json"]\n`,
        'call',
      );
      assert.equal(target.requests[0]!.headers.authorization, undefined, 'no credentials on the other origin');
      assert.equal(target.requests[0]!.headers['x-custom'], undefined);
      assert.equal(target.requests[0]!.headers.accept, 'application/json');
      assert.deepEqual(exchange.redirects, [
        {
          status: 302,
          from: `${origin.url}/start?api_key={{ secrets.QUERY_KEY }}`,
          to: `http://localhost:${target.port}/landed`,
          droppedHeaders: ['Authorization', 'X-Custom'],
        },
      ]);
      assert.equal(exchange.response?.status, 200);
      assertNoSecretValues(exchange);
    });

    it('a redirect loop is said to be one', async () => {
      const server = await serve((request, response) => {
        response.writeHead(302, { location: request.url === '/a' ? '/b' : '/a' });
        response.end();
      });
      const { failure, exchange } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/a\n`,
        'call',
      );
      assert.equal(failure?.kind, 'redirect');
      assert.match(failure?.message ?? '', /redirect loop/);
      assert.equal(exchange.redirects.length, 1);
    });

    it('a 4xx answer is a failure with its response; refused and DNS failures in words', async () => {
      const server = await serve((_request, response) => json(response, 404, { error: 'no such thing' }));
      const notFound = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/x\n`,
        'call',
      );
      assert.equal(notFound.failure?.kind, 'status');
      assert.equal(notFound.exchange.response?.status, 404);
      assert.equal(notFound.exchange.response?.statusText, 'Not Found');
      assert.deepEqual(notFound.exchange.response?.body, { kind: 'text', text: '{"error":"no such thing"}', size: 25, truncated: false });
      const port = await closedPort();
      const refused = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: http://127.0.0.1:${port}/\n`,
        'call',
      );
      assert.equal(refused.failure?.kind, 'refused');
      assert.match(refused.failure?.message ?? '', /connection refused/);
      assert.equal(refused.exchange.response, undefined);
      const dns = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: http://no-such-host.invalid/\n`,
        'call',
      );
      assert.equal(dns.failure?.kind, 'dns');
      assert.match(dns.failure?.message ?? '', /could not be found/);
    });

    it('an answer that never ends is bounded by the time limit', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('start…');
      });
      const { failure } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n`,
        'call',
        {
          timeoutMs: 300,
        },
      );
      assert.equal(failure?.kind, 'timeout');
    });

    it('names TLS failures in words: self-signed, another host name, expired', async function () {
      const dir = makeTempDir();
      try {
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'rsa:2048',
            '-nodes',
            '-days',
            '2',
            '-subj',
            '/CN=localhost',
            '-keyout',
            `${dir.path}/key.pem`,
            '-out',
            `${dir.path}/cert.pem`,
          ],
          { stdio: 'ignore' },
        );
      } catch {
        dir.remove();
        this.skip();
      }
      const server = createHttpsServer(
        { key: readFileSync(`${dir.path}/key.pem`), cert: readFileSync(`${dir.path}/cert.pem`) },
        (_request, response) => response.end('hi'),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const { failure } = await send(
          `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: https://localhost:${port}/\n`,
          'call',
        );
        assert.equal(failure?.kind, 'tls');
        assert.match(failure?.message ?? '', /it is self-signed/);
        // Trusted, but called by another name than the one it was issued for.
        const trusting = new Agent({ connect: { ca: readFileSync(`${dir.path}/cert.pem`) } });
        try {
          const trusted = await send(
            `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: https://localhost:${port}/\n`,
            'call',
            {
              dispatcher: trusting,
            },
          );
          assert.equal(trusted.exchange.response?.status, 200);
          const wrongHost = await send(
            `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: https://127.0.0.1:${port}/\n`,
            'call',
            {
              dispatcher: trusting,
            },
          );
          assert.equal(wrongHost.failure?.kind, 'tls');
          assert.match(wrongHost.failure?.message ?? '', /issued for another host name/);
        } finally {
          await trusting.close();
        }
        const expired = classifyNetworkError(
          Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' }),
          'https://x.test/',
          {
            timedOut: false,
            cancelled: false,
          },
        );
        assert.match(expired.message, /could not be verified: it has expired \(CERT_HAS_EXPIRED\)/);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        dir.remove();
      }
    });
  });

  describe('the values a node needs', () => {
    const yaml = `version: 1
name: Needs
inputs:
  who: { type: string }
  unused: { type: string }
nodes:
  first:
    type: api
    method: GET
    url: http://127.0.0.1:1/
  call:
    type: api
    method: POST
    url: "http://127.0.0.1:1/{{ inputs.who }}"
    settings: ["Authorization: Bearer {{ secrets.TOKEN }}"]
    body: { a: ["{{ nodes.first.body }}", "{{ secrets.API_KEY }}"] }
  note:
    type: template
    text: "Hello {{ inputs.who }} from {{ nodes.first.status }} with {{ secrets.TOKEN }}"
`;
    it('nodeNeeds lists inputs, secrets and upstream nodes', () => {
      const agent = agentOf(yaml);
      assert.deepEqual(nodeNeeds(agent, 'call'), { inputs: ['who'], secrets: ['API_KEY', 'TOKEN'], nodes: ['first'] });
      assert.deepEqual(nodeNeeds(agent, 'first'), { inputs: [], secrets: [], nodes: [] });
      assert.throws(
        () => nodeNeeds(agent, 'nope'),
        (error: unknown) => error instanceof UnknownNodeError && /its nodes are first, call, note/.test(error.message),
      );
    });

    it('sends nothing when a secret or an upstream result is missing, and names them', async () => {
      const agent = agentOf(yaml);
      await assert.rejects(
        sendNode(agent, 'call', { inputs: { values: { who: 'x' } }, secrets: async () => undefined }),
        (error: unknown) =>
          error instanceof MissingValuesError && error.secrets.join() === 'API_KEY,TOKEN' && error.nodes.join() === 'first',
      );
      await assert.rejects(sendNode(agent, 'note', { inputs: { values: {} } }), NodeKindError);
    });

    it('renders a template node with the values, secrets by name', async () => {
      const agent = agentOf(yaml);
      const rendered = await renderTemplateNode(agent, 'note', {
        inputs: { values: { who: 'Ann' } },
        nodes: new Map([['first', { status: 201, body: null }]]),
        secrets: secretResolver,
      });
      assert.deepEqual(rendered, { text: 'Hello Ann from 201 with {{ secrets.TOKEN }}' });
    });
  });

  describe('Copy as curl', () => {
    it('quotes secrets as shell variables, and the command sends what the node sends', async function () {
      try {
        execFileSync('curl', ['--version'], { stdio: 'ignore' });
      } catch {
        this.skip();
      }
      const server = await echo();
      const yaml = `version: 1
name: Curl
inputs:
  note: { type: string }
nodes:
  call:
    type: api
    method: POST
    url: "http://ann:{{ secrets.PASSWORD }}@127.0.0.1:${server.port}/c?api_key={{ secrets.API_KEY }}&x={{ inputs.note }}"
    settings: ["X-Token: pre-{{ secrets.TOKEN }}", "X-Note: {{ inputs.note }}", "X-${TOKEN}: named"]
    body: { note: "{{ inputs.note }}", key: "{{ secrets.API_KEY }}" }
`;
      const agent = agentOf(yaml);
      const inputs = resolveInputs(agent.model, { values: { note: `it's "$HOME" \\ \`x\`` } });
      const { exchange } = await sendNode(agent, 'call', { inputs, secrets: secretResolver });
      const node = agent.plan.nodes.find((plan) => plan.id === 'call');
      assert.ok(node?.kind === 'api');
      const secrets = new Map(Object.entries(SECRETS));
      const fromRequest = curlForRequest(
        buildApiRequest(node, { inputs: inputs.values, nodes: new Map(), secrets }, new Redactor()),
        secrets,
      );
      const fromExchange = curlForExchange(exchange);
      assert.equal(fromRequest, fromExchange, 'the same command from the request and from its exchange');
      for (const value of Object.values(SECRETS)) assert.ok(!fromExchange.includes(value));
      assert.match(fromExchange, /-u "ann:\$\{AGENT_SECRET_PASSWORD\}"/);
      // Not execFileSync: the server answering curl runs in this process.
      await promisify(execFile)('bash', ['-c', fromExchange], {
        env: {
          PATH: process.env.PATH,
          HOME: '/nowhere',
          ...Object.fromEntries(Object.entries(SECRETS).map(([name, value]) => [`AGENT_SECRET_${name}`, value])),
        },
      });
      const [sent, curled] = server.requests;
      assert.equal(curled!.url, sent!.url.replace(encodeURIComponent(API_KEY), API_KEY), 'the query, the secret as given');
      assert.equal(curled!.body.toString(), sent!.body.toString());
      // A header whose name holds a secret (written out: validation refuses a {{ }} in a name).
      assert.match(fromExchange, /-H "X-\$\{AGENT_SECRET_TOKEN\}: named"/);
      for (const name of ['authorization', 'x-token', 'x-note', 'content-type', 'user-agent', `x-${TOKEN.toLowerCase()}`])
        assert.equal(curled!.headers[name], sent!.headers[name], name);
      assert.equal(shellWordWithSecrets('plain'), 'plain');
    });
  });

  describe('the engine hook', () => {
    it('records one exchange per API node call, failed ones too, bodies cut to the limit', async () => {
      const server = await serve((request, response) =>
        request.url === '/bad' ? json(response, 500, { error: `boom ${TOKEN}` }) : json(response, 200, { ok: 1 }),
      );
      const agent = agentOf(`version: 1
name: Hook
nodes:
  good:
    type: api
    method: GET
    url: ${server.url}/good
    settings: ["Authorization: Bearer {{ secrets.TOKEN }}"]
  bad:
    type: api
    method: GET
    url: ${server.url}/bad
    settings: ["Authorization: Bearer {{ secrets.TOKEN }}"]
  text:
    type: template
    text: "{{ nodes.good.body.ok }}"
`);
      const exchanges: Exchange[] = [];
      const run = await executeAgent(agent, resolveInputs(agent.model, {}), {
        secrets: secretResolver,
        concurrency: 1,
        onExchange: (record) => exchanges.push(record()),
        exchangeBodyLimit: 8,
      });
      assert.equal(run.status, 'failed');
      assert.deepEqual(exchanges.map((exchange) => [exchange.node, exchange.response?.status, exchange.failure?.kind]).sort(), [
        ['bad', 500, 'status'],
        ['good', 200, undefined],
      ]);
      const bad = exchanges.find((exchange) => exchange.node === 'bad')!;
      assert.deepEqual(bad.response?.body, { kind: 'text', text: '{"error"', size: 38, truncated: true });
      assert.match(bad.failure?.message ?? '', /answered 500/);
      assert.ok(bad.timing.totalMs >= (bad.timing.firstByteMs ?? 0));
      for (const exchange of exchanges) assertNoSecretValues(exchange);
    });

    it("keeps with a record waiting to be made the call's facts, not the execution's values", async () => {
      // Made once, before the heap is first measured: what the server holds is the same then and after.
      const bigAnswer = Buffer.from(JSON.stringify({ big: 'x'.repeat(8_000_000) }));
      const server = await serve((request, response) => {
        if (request.url !== '/big') return json(response, 200, { ok: 1 });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(bigAnswer);
      });
      const agent = agentOf(`version: 1
name: Kept
nodes:
  big:
    type: api
    method: GET
    url: ${server.url}/big
  small:
    type: api
    method: GET
    url: ${server.url}/small?after={{ nodes.big.status }}
`);
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      gc();
      const before = process.memoryUsage().heapUsed;
      // As a log does: the small call's record is kept to be made later; the big one's is let go.
      const waiting: Array<() => Exchange> = [];
      await executeAgent(agent, resolveInputs(agent.model, {}), {
        secrets: secretResolver,
        onExchange: (record, node) => {
          if (node === 'small') waiting.push(record);
        },
      });
      gc();
      const grown = process.memoryUsage().heapUsed - before;
      // Holding the execution's values would keep the big answer, 8 MB.
      assert.ok(grown < 4_000_000, `the heap grew by ${Math.round(grown / 1e6)} MB`);
      assert.equal(waiting.length, 1);
      assert.equal(waiting[0]!().response?.status, 200);
    });

    it('says when a JSON answer is not JSON, and not otherwise', () => {
      const json = (text: string, type = 'application/json') =>
        bodyMismatch({ contentType: type, body: { kind: 'text', text, size: text.length, truncated: false } });
      assert.equal(json(' {"a": [1, 2.5e3, "\\u00e9"]} '), undefined);
      assert.equal(json('{"a": 1,}'), 'not-json');
      assert.equal(json('{"a": "\\x41"}'), 'not-json');
      assert.equal(json('not json', 'application/problem+json'), 'not-json');
      assert.equal(json('not json', 'text/plain'), undefined);
      assert.equal(json('   '), undefined);
    });

    it('gives a record made later the time the call took, not the time until it was made', async () => {
      // The url is not one once filled in: the call ends before anything is sent.
      const agent = agentOf(
        `version: 1\nname: A\ninputs:\n  u: { type: string, required: true }\nnodes:\n  call:\n    type: api\n    method: GET\n    url: "{{ inputs.u }}"\n`,
      );
      let record: (() => Exchange) | undefined;
      let handedAt = 0;
      const started = performance.now();
      const run = await executeAgent(agent, resolveInputs(agent.model, { values: { u: 'not a url' } }), {
        onExchange: (made) => {
          handedAt = performance.now();
          record = made;
        },
      });
      assert.equal(run.status, 'failed');
      // Made 50 ms after it was handed over, as a server makes it when it is read.
      while (performance.now() - handedAt < 50);
      const exchange = record!();
      assert.equal(exchange.failure?.kind, 'expression');
      assert.ok(exchange.timing.totalMs <= handedAt - started + 0.1, `${exchange.timing.totalMs} ms`);
    });

    it('calls the listener once per call, even when the listener throws', async () => {
      const server = await echo();
      const agent = agentOf(`version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n`);
      let calls = 0;
      await executeAgent(agent, resolveInputs(agent.model, {}), {
        onExchange: () => {
          calls++;
          throw new Error('listener failed');
        },
      });
      assert.equal(calls, 1);
    });

    it('a fake clock gives the times', async () => {
      const server = await echo();
      let now = 1000;
      const { exchange } = await send(
        `version: 1\nname: A\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${server.url}/\n`,
        'call',
        {
          now: () => (now += 5),
        },
      );
      // Started at 1005; the headers at 1010, the end at 1015.
      assert.deepEqual(exchange.timing, { totalMs: 10, firstByteMs: 5 });
    });
  });
});
