// The agent client against real servers on 127.0.0.1: start (JSON and multipart), status, errors.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getStatus, startExecution, startMultipartExecution } from '../../src/core/service/agentClient';
import { ServiceError } from '../../src/core/service/serviceError';
import { checkBaseUrl, checkExecutionId, resolveDeployment, statusUrl } from '../../src/core/service/target';
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
        service.startAnswer = (response) => json(response, status, { error: `nope ${status}`, echo: `Bearer ${KEY}` }, status === 429 ? { 'retry-after': '7' } : {});
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

    it('does not send the key to another origin on a redirect', async () => {
      const other = await serve((request, response) => json(response, 200, { status: 'ok', executionId: request.headers.authorization ? 'leaked-key' : 'no-key-here' }));
      const redirector = await serve((_request, response) => {
        response.writeHead(307, { location: `http://localhost:${other.port}/api/acme/agent/a/execute` });
        response.end();
      });
      const started = await startExecution({ ...target, baseUrl: redirector.url }, {});
      assert.equal(started.executionId, 'no-key-here');
    });

    it('is cancelled by its signal', async () => {
      const hanging = await serve(() => undefined);
      const controller = new AbortController();
      const pending = startExecution({ ...target, baseUrl: hanging.url, requestTimeoutMs: 10_000 }, {}, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      assert.equal((await failure(pending)).kind, 'cancelled');
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
      assert.deepEqual(request?.parts.map((p) => [p.name, p.filename, p.mimeType, p.data.length]), [
        ['payload', undefined, undefined, Buffer.byteLength(JSON.stringify(request?.payload))],
        ['document', 'report.pdf', 'application/pdf', 13],
        ['screenshot', 'shot.png', 'image/png', 300_000],
      ]);
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
      assert.equal(service.starts.length, 0);
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
      assert.deepEqual(resolveDeployment({ agent: 'cli' }, { baseUrl: 'https://a.example.com', account: 'file', agent: 'file' }, { account: 'settings' }), {
        baseUrl: 'https://a.example.com',
        account: 'file',
        agent: 'cli',
      });
      assert.throws(() => resolveDeployment({ baseUrl: 'https://a.example.com' }), /account, agent are not set/);
    });
  });
});
