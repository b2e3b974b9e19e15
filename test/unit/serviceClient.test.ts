// The agent client against real servers on 127.0.0.1: start (JSON and multipart), status, errors.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { getStatus, startExecution, startMultipartExecution } from '../../src/core/service/agentClient';
import { parseRetryAfter, ServiceError } from '../../src/core/service/serviceError';
import { checkBaseUrl, checkExecutionId, firstSet, resolveDeployment, statusUrl } from '../../src/core/service/target';
import type { AgentTarget } from '../../src/core/service/target';
import { startFakeService } from '../support/fakeAgentService';
import type { FakeService } from '../support/fakeAgentService';
import { closedPort, json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'sk-test-0123456789';

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
    assert.doesNotMatch(error.message, new RegExp(KEY), 'the key must never appear in a message');
    return error;
  }
  assert.fail('expected a failure');
}

describe('agent client', () => {
  let service: FakeService;
  let target: AgentTarget;
  const servers: TestServer[] = [];
  let dir: TempDir;

  beforeEach(async () => {
    service = await startFakeService(KEY);
    target = { baseUrl: service.url, account: 'acme', agent: 'ticket-summarizer', apiKey: KEY, requestTimeoutMs: 2000 };
    dir = makeTempDir();
  });
  afterEach(async () => {
    await service.close();
    await Promise.all(servers.splice(0).map((server) => server.close()));
    dir.remove();
  });
  async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
    const server = await startServer(handler);
    servers.push(server);
    return server;
  }

  describe('start', () => {
    it('posts {inputs, stream} with the Bearer key to /api/{account}/agent/{agent}/execute', async () => {
      const started = await startExecution(target, { ticket: 'He said "hi" — ünïcödé ✓', count: 3, urgent: true });
      assert.match(started.executionId, /^[0-9a-f-]{36}$/);
      const [request] = service.starts;
      assert.equal(request?.path, '/api/acme/agent/ticket-summarizer/execute');
      assert.equal(request?.authorization, `Bearer ${KEY}`);
      assert.deepEqual(request?.payload, { inputs: { ticket: 'He said "hi" — ünïcödé ✓', count: 3, urgent: true }, stream: false });
      await startExecution(target, {}, { stream: true });
      assert.deepEqual(service.starts[1]?.payload, { inputs: {}, stream: true });
    });

    it('encodes every path segment', async () => {
      await startExecution({ ...target, account: 'team a/b', agent: 'ünï' }, {});
      assert.equal(service.starts[0]?.path, '/api/team%20a%2Fb/agent/%C3%BCn%C3%AF/execute');
    });

    it('rejects answers that are not {status: ok, executionId}, quoting them', async () => {
      const cases: Array<[string, RegExp]> = [
        ['<html><body>Bad gateway page</body></html>', /not JSON but an HTML page.*Bad gateway page/],
        ['{"status":"ok"}', /without an execution id/],
        ['{"status":"queued","executionId":"x"}', /did not start the agent: it answered "\{"status":"queued"/],
        ['{"status":"ok","executionId":"../../etc"}', /cannot be polled/],
        ['[1,2]', /not a JSON object/],
        [`{"status":"x","long":"${'y'.repeat(1000)}"}`, /…"/],
      ];
      for (const [body, message] of cases) {
        service.startAnswer = (response) => {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end(body);
        };
        const error = await failure(startExecution(target, {}));
        assert.equal(error.kind, 'bad-response');
        assert.match(error.message, message);
      }
    });

    it('explains each error status, and never retries a start', async () => {
      const statuses: Array<[number, string, RegExp]> = [
        [401, 'auth', /set or check the API key.*Builder license/],
        [403, 'auth', /403 Forbidden/],
        [404, 'not-found', /account and agent paths.*Agents tab/],
        [413, 'too-large', /413/],
        [429, 'rate-limited', /wait 7 s/],
        [400, 'bad-request', /rejected \(400\)/],
        [500, 'server', /service's side \(500\)/],
        [503, 'server', /503/],
      ];
      for (const [status, kind, message] of statuses) {
        const before = service.starts.length;
        service.startAnswer = (response) =>
          json(response, status, { error: `nope ${status}`, echo: `Bearer ${KEY}` }, status === 429 ? { 'retry-after': '7' } : {});
        const error = await failure(startExecution(target, {}));
        assert.equal(error.kind, kind, String(status));
        assert.equal(error.status, status);
        assert.match(error.message, message);
        assert.equal(service.starts.length, before + 1, 'exactly one POST');
      }
    });

    it('fails clearly for a refused connection and a server that never answers', async () => {
      const refused = await failure(startExecution({ ...target, baseUrl: `http://127.0.0.1:${await closedPort()}` }, {}));
      assert.equal(refused.kind, 'network');
      assert.match(refused.message, /connection refused/);
      const hanging = await serve(() => undefined);
      const timedOut = await failure(startExecution({ ...target, baseUrl: hanging.url, requestTimeoutMs: 200 }, {}));
      assert.equal(timedOut.kind, 'timeout');
    });

    it('follows no redirect to another origin: nothing is sent there, and the error names it', async () => {
      const other = await serve((_request, response) => json(response, 200, { status: 'ok', executionId: 'taken-elsewhere' }));
      const file = dir.write('a.txt', 'abc');
      for (const status of [301, 302, 303, 307, 308]) {
        const redirector = await serve((request, response) => {
          response.writeHead(status, { location: `http://localhost:${other.port}${request.url ?? '/'}` });
          response.end();
        });
        for (const start of [
          () => startExecution({ ...target, baseUrl: redirector.url }, { ticket: 'x' }),
          () => startMultipartExecution({ ...target, baseUrl: redirector.url }, { ticket: 'x' }, [{ field: 'doc', path: file }]),
        ]) {
          const error = await failure(start());
          assert.equal(error.kind, 'network', `${status}: ${error.message}`);
          assert.match(
            error.message,
            new RegExp(
              `^Starting the agent: ${redirector.url}/api/acme/agent/ticket-summarizer/execute(/multipart)? redirected \\(${status}\\) to another origin, http://localhost:${other.port}, which is not followed`,
            ),
          );
          assert.doesNotMatch(error.message, /may be running/, 'the service answered: nothing started');
        }
      }
      assert.equal(other.requests.length, 0, 'nothing was sent to the other origin');
      const naming = await serve((_request, response) => {
        response.writeHead(307, { location: `http://${KEY}.example.com/` });
        response.end();
      });
      assert.match(
        (await failure(startExecution({ ...target, baseUrl: naming.url }, {}))).message,
        /another origin, http:\/\/•••\.example\.com,/,
      );
    });

    it('is cancelled by its signal', async () => {
      const hanging = await serve(() => undefined);
      const controller = new AbortController();
      const pending = startExecution({ ...target, baseUrl: hanging.url, requestTimeoutMs: 10_000 }, {}, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      assert.equal((await failure(pending)).kind, 'cancelled');
    });

    it('never repeats the key, even when the service echoes it without "Bearer"', async () => {
      const answers: Array<[number, string]> = [
        [401, `{"error":"unknown key ${KEY}"}`],
        [500, `<html><pre>Authorization: Bearer ${KEY}\nkey=${KEY}</pre></html>`],
        [200, `{"status":"rejected","key":"${KEY}"}`],
        [200, `not json, but the key: ${KEY}`],
      ];
      for (const [status, body] of answers) {
        service.startAnswer = (response) => {
          response.writeHead(status, { 'content-type': 'text/plain' });
          response.end(body);
        };
        const error = await failure(startExecution(target, {}));
        assert.match(error.message, /•••/, `${status} ${body}`);
        assert.doesNotMatch(error.details.body ?? '', new RegExp(KEY));
      }
    });

    it("masks the key lower-cased or percent-encoded, and a key cut by the quote's limit", async () => {
      const mixedKey = 'Sk-Live/ABCdef+0123456789';
      service.apiKey = mixedKey;
      const answers = [
        `{"error":"unknown key ${mixedKey.toLowerCase()}"}`,
        `<a href="/login?key=${encodeURIComponent(mixedKey)}">`,
        // The 300-character quote ends inside the key.
        `${'e'.repeat(290)}key=${mixedKey} and more`,
      ];
      for (const body of answers) {
        service.startAnswer = (response) => {
          response.writeHead(500, { 'content-type': 'text/plain' });
          response.end(body);
        };
        const error = await failure(startExecution({ ...target, apiKey: mixedKey }, {}));
        for (const shown of [error.message, error.details.body ?? '']) {
          assert.doesNotMatch(shown, /sk-live|Sk-Live|ABCdef/i, shown);
        }
        assert.match(error.message, /•••/);
      }
    });

    it('refuses a key with a line break before sending anything, without showing it', async () => {
      const error = await failure(startExecution({ ...target, apiKey: `${KEY}\r\nX-Injected: 1` }, {}));
      assert.equal(error.kind, 'auth');
      assert.match(error.message, /line breaks/);
      assert.equal(service.server.requests.length, 0);
    });

    it('waits for a slow answer within the limit, and times out one that trickles past it', async () => {
      const trickle = (parts: number) => (_request: unknown, response: ServerResponse) => {
        const body = JSON.stringify({ status: 'ok', executionId: 'slow-1' });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        let sent = 0;
        const step = Math.ceil(body.length / parts);
        const timer = setInterval(() => {
          response.write(body.slice(sent, sent + step));
          sent += step;
          if (sent >= body.length) {
            clearInterval(timer);
            response.end();
          }
        }, 60);
        response.on('close', () => clearInterval(timer));
      };
      const slow = await serve(trickle(4));
      assert.equal((await startExecution({ ...target, baseUrl: slow.url, requestTimeoutMs: 3000 }, {})).executionId, 'slow-1');
      const slower = await serve(trickle(200));
      const started = Date.now();
      const error = await failure(startExecution({ ...target, baseUrl: slower.url, requestTimeoutMs: 400 }, {}));
      assert.equal(error.kind, 'timeout');
      assert.match(error.message, /did not answer after 0\.4 s/);
      assert.ok(Date.now() - started < 2000, 'the limit covers the whole answer, not each chunk');
      assert.equal(slower.requests.length, 1, 'a start is never repeated');
    });

    it('reports a reset in the middle of the answer, without repeating the start', async () => {
      const resetting = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
        response.write('{"status":"ok","execu');
        setTimeout(() => response.socket?.destroy(), 20);
      });
      const error = await failure(startExecution({ ...target, baseUrl: resetting.url }, {}));
      assert.equal(error.kind, 'network');
      assert.match(error.message, /closed before the answer was complete/);
      assert.equal(resetting.requests.length, 1);
    });

    it('refuses to send a streamed upload again for a 307 redirect', async () => {
      const file = dir.write('a.txt', 'abc');
      const redirector = await serve((_request, response) => {
        response.writeHead(307, { location: '/api/acme/agent/a/execute/multipart' });
        response.end();
      });
      const error = await failure(startMultipartExecution({ ...target, baseUrl: redirector.url }, {}, [{ field: 'doc', path: file }]));
      assert.equal(error.kind, 'network');
      assert.match(error.message, /cannot be sent twice/);
      assert.equal(redirector.requests.length, 1);
    });
  });

  describe('multipart start', () => {
    it('sends a payload part with the JSON, then one part per file input named as the input', async () => {
      const report = dir.write('report.pdf', Buffer.from('%PDF-1.4 fake'));
      const picture = dir.write('shot.png', Buffer.alloc(300_000, 7));
      const started = await startMultipartExecution(target, { ticket: 'quote " and ✓' }, [
        { field: 'document', path: report },
        { field: 'screenshot', path: picture },
      ]);
      assert.deepEqual(started.fileSizes, { document: 13, screenshot: 300_000 });
      const [request] = service.starts;
      assert.equal(request?.path, '/api/acme/agent/ticket-summarizer/execute/multipart');
      assert.match(request?.contentType ?? '', /^multipart\/form-data; boundary=/);
      assert.deepEqual(request?.payload, { inputs: { ticket: 'quote " and ✓' }, stream: false });
      assert.deepEqual(
        request?.parts.map((p) => [p.name, p.filename, p.mimeType, p.data.length]),
        [
          ['payload', undefined, undefined, Buffer.byteLength(JSON.stringify(request?.payload))],
          ['document', 'report.pdf', 'application/pdf', 13],
          ['screenshot', 'shot.png', 'image/png', 300_000],
        ],
      );
      assert.ok(request?.parts[2]?.data.every((byte) => byte === 7));
    });

    it('encodes names and filenames with quotes, non-ASCII and line breaks safely', async () => {
      mkdirSync(join(dir.path, 'odd'));
      const odd = join(dir.path, 'odd', 'ré"sumé\r\nX-Injected: 1.txt');
      writeFileSync(odd, 'content');
      await startMultipartExecution(target, {}, [{ field: 'fi"le\r\nname', path: odd }]);
      const part = service.starts[0]?.parts[1];
      assert.equal(part?.name, 'fi%22le%0D%0Aname');
      assert.equal(part?.filename, 'ré%22sumé%0D%0AX-Injected: 1.txt');
      assert.equal(part?.data.toString(), 'content');
      assert.equal(service.starts[0]?.parts.length, 2);
    });

    it('refuses a missing file or a directory before sending anything', async () => {
      const missing = await failure(startMultipartExecution(target, {}, [{ field: 'doc', path: join(dir.path, 'nope.pdf') }]));
      assert.equal(missing.kind, 'config');
      assert.match(missing.message, /input "doc" does not exist/);
      const directory = await failure(startMultipartExecution(target, {}, [{ field: 'doc', path: dir.path }]));
      assert.match(directory.message, /is a directory/);
      const fifo = join(dir.path, 'pipe.txt');
      execFileSync('mkfifo', [fifo]);
      assert.match((await failure(startMultipartExecution(target, {}, [{ field: 'doc', path: fifo }]))).message, /not a regular file/);
      assert.equal(service.starts.length, 0);
      assert.equal(service.server.requests.length, 0);
    });

    it("gives an upload the time its size needs on top of the request's limit, within the caller's limit", async () => {
      // 1 MiB: 4 s of upload allowance at the slowest rate allowed (256 KiB/s).
      const big = dir.write('big.bin', Buffer.alloc(1024 * 1024, 7));
      // The service answers 700 ms after the whole upload came: more than the request's own 300 ms.
      const slow = await serve((_request, response) => {
        setTimeout(() => json(response, 200, { status: 'ok', executionId: 'big-1' }), 700);
      });
      const slowTarget = { ...target, baseUrl: slow.url, requestTimeoutMs: 300 };
      // A caller's limit (run --timeout, a case's, a batch row's) well above it does not cut the allowance to the request's 300 ms.
      const started = await startMultipartExecution(slowTarget, {}, [{ field: 'data', path: big }], { limitMs: 60_000 });
      assert.equal(started.executionId, 'big-1');
      // A caller's limit below the allowance wins.
      const begun = Date.now();
      const error = await failure(startMultipartExecution(slowTarget, {}, [{ field: 'data', path: big }], { limitMs: 500 }));
      assert.equal(error.kind, 'timeout');
      assert.match(error.message, /did not answer after 0\.5 s/);
      assert.ok(Date.now() - begun < 2000);
      // A JSON start has no allowance: the request's own limit, within the caller's.
      const json300 = await failure(startExecution(slowTarget, {}, { limitMs: 60_000 }));
      assert.match(json300.message, /did not answer after 0\.3 s/);
    });

    it('declares the exact length up front instead of sending chunks', async () => {
      const empty = dir.write('empty.csv', '');
      const data = dir.write('data.json', JSON.stringify({ rows: [1, 2, 3] }));
      await startMultipartExecution(target, { note: 'ünï' }, [
        { field: 'empty', path: empty },
        { field: 'data', path: data },
      ]);
      const [received] = service.server.requests;
      assert.equal(received?.headers['content-length'], String(received?.body.length));
      assert.equal(received?.headers['transfer-encoding'], undefined);
      assert.deepEqual(
        service.starts[0]?.parts.map((p) => [p.name, p.filename, p.mimeType, p.data.toString()]),
        [
          ['payload', undefined, undefined, JSON.stringify({ inputs: { note: 'ünï' }, stream: false })],
          ['empty', 'empty.csv', 'text/csv', ''],
          ['data', 'data.json', 'application/json', JSON.stringify({ rows: [1, 2, 3] })],
        ],
      );
    });

    it('sends the whole payload JSON with quotes, backslashes, line breaks and non-ASCII intact', async () => {
      const file = dir.write('x.bin', Buffer.from([0, 1, 2, 255]));
      const inputs = { text: 'say "hi"\\ \r\n--boundary-like\r\n', emoji: '😀 ✓ 日本語', n: 1.5, yes: false };
      await startMultipartExecution(target, inputs, [{ field: 'blob', path: file }]);
      assert.deepEqual(service.starts[0]?.payload, { inputs, stream: false });
      assert.deepEqual([...(service.starts[0]?.parts[1]?.data ?? [])], [0, 1, 2, 255]);
      assert.equal(service.starts[0]?.parts[1]?.mimeType, 'application/octet-stream');
    });

    it('refuses a file input named "payload", which would clash with the JSON part', async () => {
      const file = dir.write('a.txt', 'abc');
      const error = await failure(startMultipartExecution(target, {}, [{ field: 'payload', path: file }]));
      assert.equal(error.kind, 'config');
      assert.equal(service.server.requests.length, 0);
    });
  });

  describe('status', () => {
    it('reads the status and outputs from the default path, or from a template', async () => {
      service.statusAnswer = (_n, id, response) => json(response, 200, { status: 'finished', outputs: { id } });
      const answer = await getStatus(target, 'abc-123');
      assert.deepEqual(answer.outputs, { id: 'abc-123' });
      assert.equal(service.statusRequests[0], '/api/acme/agent/abc-123/status');
      await getStatus({ ...target, statusPathTemplate: '/v2/{account}/executions/{executionId}/status' }, 'abc-123');
      assert.equal(service.statusRequests[1], '/v2/acme/executions/abc-123/status');
    });

    it('checks the execution id before it goes into a path', async () => {
      for (const bad of ['../x', 'a/b', '', 'a b', '..']) {
        assert.equal((await failure(getStatus(target, bad))).kind, 'config', bad);
      }
      assert.equal(service.statusRequests.length, 0);
      assert.equal(checkExecutionId(' 3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01 '), '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01');
    });

    it('rejects a status answer without a status', async () => {
      service.statusAnswer = (_n, _id, response) => json(response, 200, { outputs: {} });
      assert.equal((await failure(getStatus(target, 'x1'))).kind, 'bad-response');
    });

    it('rejects an HTML page or other non-JSON status answer, quoting it truncated', async () => {
      service.statusAnswer = (_n, _id, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(`<!doctype html><title>Sign in</title>${'<p>padding</p>'.repeat(100)}`);
      };
      const html = await failure(getStatus(target, 'x1'));
      assert.equal(html.kind, 'bad-response');
      assert.match(html.message, /not JSON but an HTML page \(is the base URL right\?\): "<!doctype html><title>Sign in<\/title>.*…"\.$/);
      assert.ok(html.message.length < 450, `quoted in full: ${html.message.length} characters`);
      service.statusAnswer = (_n, _id, response) => json(response, 200, 'finished');
      assert.match((await failure(getStatus(target, 'x1'))).message, /not a JSON object: ""finished""/);
    });

    it('explains each error status of the status read', async () => {
      const statuses: Array<[number, string, RegExp]> = [
        [401, 'auth', /Reading the execution status was refused \(401 Unauthorized\): set or check the API key.*Builder license/],
        [403, 'auth', /403 Forbidden/],
        [404, 'not-found', /account and agent paths/],
        [410, 'not-found', /410 Gone\): the service no longer keeps this execution.*Run the agent again/],
        [413, 'too-large', /413/],
        [429, 'rate-limited', /429 Too Many Requests/],
        [500, 'server', /service's side \(500\)/],
        [502, 'server', /502/],
        [504, 'server', /504/],
        [409, 'bad-request', /rejected \(409\)/],
      ];
      for (const [status, kind, message] of statuses) {
        service.statusAnswer = (_n, _id, response) => json(response, status, { error: `status ${status}`, key: KEY });
        const error = await failure(getStatus(target, 'e-1'));
        assert.equal(error.kind, kind, String(status));
        assert.equal(error.status, status);
        assert.match(error.message, message);
      }
    });

    it('keeps the key on a same-origin redirect and follows none to another origin', async () => {
      const other = await serve((_request, response) => json(response, 200, { status: 'finished', outputs: { from: 'elsewhere' } }));
      const redirector = await serve((_request, response) => {
        response.writeHead(302, { location: `http://localhost:${other.port}/elsewhere` });
        response.end();
      });
      const moved = await serve((request, response) => {
        if ((request.url ?? '').endsWith('/moved'))
          json(response, 200, { status: 'finished', outputs: { sawKey: request.headers.authorization === `Bearer ${KEY}` } });
        else {
          response.writeHead(302, { location: '/api/acme/agent/e-2/moved' });
          response.end();
        }
      });
      assert.deepEqual((await getStatus({ ...target, baseUrl: moved.url }, 'e-2')).outputs, { sawKey: true });
      const error = await failure(getStatus({ ...target, baseUrl: redirector.url }, 'e-3'));
      assert.equal(error.kind, 'network');
      assert.match(
        error.message,
        new RegExp(
          `^Reading the execution status: ${redirector.url}/api/acme/agent/e-3/status redirected \\(302\\) to another origin, http://localhost:${other.port}, which is not followed`,
        ),
      );
      assert.equal(other.requests.length, 0, 'nothing was sent to the other origin');
    });
  });

  describe('target', () => {
    it('refuses plain http to a remote host unless allowed, and odd base URLs', () => {
      assert.throws(() => checkBaseUrl('http://agents.example.com'), /clear text/);
      assert.doesNotThrow(() => checkBaseUrl('http://agents.example.com', true));
      assert.doesNotThrow(() => checkBaseUrl('http://127.0.0.1:8787'));
      assert.doesNotThrow(() => checkBaseUrl('http://localhost:8787'));
      assert.throws(() => checkBaseUrl('ftp://x.example.com'), /https:\/\//);
      assert.throws(() => checkBaseUrl('https://user:pw@x.example.com'), /user name, password/);
      assert.throws(() => checkBaseUrl('not a url'), /not a valid URL/);
      assert.throws(() => statusUrl({ ...target, statusPathTemplate: '/status' }, 'x'), /has no \{executionId\}/);
    });

    it('resolves the deployment from options, the file, then settings, naming what is missing', () => {
      assert.deepEqual(
        resolveDeployment({ agent: 'cli' }, { baseUrl: 'https://a.example.com', account: 'file', agent: 'file' }, { account: 'settings' }),
        {
          baseUrl: 'https://a.example.com',
          account: 'file',
          agent: 'cli',
        },
      );
      assert.throws(() => resolveDeployment({ baseUrl: 'https://a.example.com' }), /account, agent are not set/);
      assert.throws(() => resolveDeployment({ baseUrl: 'https://a.example.com', account: '  ', agent: '' }), /account, agent are not set/);
      // Blank counts as not set, and the value is trimmed.
      assert.equal(firstSet(undefined, '', '  ', ' b ', 'c'), 'b');
      assert.equal(firstSet(undefined, ' '), undefined);
    });

    it('fills a status template, encoding every segment', () => {
      const odd = { ...target, baseUrl: 'https://agents.example.com/base/', account: 'a b', agent: 'x/y' };
      assert.equal(statusUrl(odd, 'e-1'), 'https://agents.example.com/base/api/a%20b/agent/e-1/status');
      assert.equal(
        statusUrl({ ...odd, statusPathTemplate: '{baseUrl}/v2/{account}/{agent}/runs/{executionId}' }, 'e.1~x'),
        'https://agents.example.com/base/v2/a%20b/x%2Fy/runs/e.1~x',
      );
      assert.throws(() => statusUrl(odd, 'e%2F..'), /not an execution id/);
    });

    it('refuses a status template that would take the key to another host', async () => {
      for (const template of [
        '{baseUrl}@attacker.example/{executionId}',
        '{baseUrl}.attacker.example/{executionId}',
        'https://attacker.example/{executionId}{baseUrl}',
        '{baseUrl}:8080/{executionId}',
      ]) {
        assert.throws(
          () => statusUrl({ ...target, statusPathTemplate: template }, 'e-1'),
          /leads away from http:\/\/127\.0\.0\.1:\d+; it must be a path on the base URL/,
          template,
        );
      }
      assert.equal(
        (await failure(getStatus({ ...target, statusPathTemplate: '{baseUrl}@attacker.example/{executionId}' }, 'e-1'))).kind,
        'config',
      );
      assert.equal(service.server.requests.length, 0);
    });
  });

  describe('Retry-After', () => {
    it('reads delta-seconds and HTTP dates, and ignores anything else', () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      assert.equal(parseRetryAfter('7', now), 7000);
      assert.equal(parseRetryAfter(' 0 ', now), 0);
      assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now), 3000);
      assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a date in the past means now');
      assert.equal(parseRetryAfter('soon', now), undefined);
      assert.equal(parseRetryAfter('-5', now), undefined);
      assert.equal(parseRetryAfter(undefined, now), undefined);
    });
  });
});
