// The HTTP primitive against real servers on 127.0.0.1.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { httpRequest } from '../../src/core/http/httpRequest';
import { NetworkError, safeUrl } from '../../src/core/http/networkError';
import { closedPort, json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';

async function rejection(promise: Promise<unknown>): Promise<NetworkError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof NetworkError, `expected a NetworkError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the request to fail');
}

describe('httpRequest', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  async function serve(...args: Parameters<typeof startServer>): Promise<TestServer> {
    const server = await startServer(...args);
    servers.push(server);
    return server;
  }

  it('sends the method, headers and body, and returns status, lower-case headers and body', async () => {
    const server = await serve((_request, response, body) => json(response, 201, { got: body.toString() }, { 'X-Trace': 'abc' }));
    const response = await httpRequest({
      method: 'POST',
      url: `${server.url}/items?q=1`,
      headers: { 'Content-Type': 'text/plain' },
      body: 'hello',
      timeoutMs: 5000,
    });
    assert.equal(response.status, 201);
    assert.equal(response.headers['x-trace'], 'abc');
    assert.deepEqual(JSON.parse(response.body.toString()), { got: 'hello' });
    assert.equal(server.requests[0]?.url, '/items?q=1');
    assert.equal(server.requests[0]?.headers['content-type'], 'text/plain');
  });

  it('times out a server that never answers', async () => {
    const server = await serve(() => undefined);
    const started = Date.now();
    const error = await rejection(httpRequest({ method: 'GET', url: `${server.url}/hang`, timeoutMs: 300 }));
    assert.equal(error.kind, 'timeout');
    assert.ok(Date.now() - started < 3000);
    assert.match(error.message, /did not answer after 0\.3 s/);
  });

  it('times out a body that stops coming', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    });
    const error = await rejection(httpRequest({ method: 'GET', url: server.url, timeoutMs: 300 }));
    assert.equal(error.kind, 'timeout');
  });

  it('is cancelled by its signal at once', async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const pending = httpRequest({ method: 'GET', url: server.url, timeoutMs: 10_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(pending);
    assert.equal(error.kind, 'aborted');
  });

  it('reports a refused connection', async () => {
    const error = await rejection(httpRequest({ method: 'GET', url: `http://127.0.0.1:${await closedPort()}/x`, timeoutMs: 2000 }));
    assert.equal(error.kind, 'refused');
    assert.match(error.message, /connection refused/);
    assert.equal(error.transient, true);
  });

  it('reports a connection reset in the middle of the body', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('only part of it');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const error = await rejection(httpRequest({ method: 'GET', url: server.url, timeoutMs: 5000 }));
    assert.equal(error.kind, 'reset');
  });

  it('stops reading an answer larger than the cap', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.end(Buffer.alloc(256 * 1024, 0x61));
    });
    const error = await rejection(httpRequest({ method: 'GET', url: server.url, timeoutMs: 5000, maxResponseBytes: 64 * 1024 }));
    assert.equal(error.kind, 'too-large');
  });

  it('follows a same-origin redirect keeping credentials', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/old') {
        response.writeHead(307, { location: '/new' });
        response.end();
      } else json(response, 200, { auth: request.headers.authorization ?? null });
    });
    const response = await httpRequest({
      method: 'GET',
      url: `${server.url}/old`,
      headers: { Authorization: 'Bearer k' },
      timeoutMs: 5000,
    });
    assert.deepEqual(JSON.parse(response.body.toString()), { auth: 'Bearer k' });
    assert.equal(response.url, `${server.url}/new`);
  });

  it('never sends credentials to another origin on a redirect', async () => {
    const other = await serve((request, response) =>
      json(response, 200, {
        authorization: request.headers.authorization ?? null,
        key: request.headers['x-api-key'] ?? null,
        accept: request.headers.accept ?? null,
      }),
    );
    // localhost and 127.0.0.1 are different origins.
    const target = `http://localhost:${other.port}/landing`;
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: target });
      response.end();
    });
    const response = await httpRequest({
      method: 'GET',
      url: server.url,
      headers: { Authorization: 'Bearer secret', 'x-api-key': 'k', Accept: 'application/json' },
      timeoutMs: 5000,
    });
    assert.deepEqual(JSON.parse(response.body.toString()), { authorization: null, key: null, accept: 'application/json' });
  });

  it('sends only safelisted headers, and none named as holding a secret, to another origin on a redirect', async () => {
    // Two servers on 127.0.0.1: different ports are different origins.
    const other = await serve((_request, response) => json(response, 200, {}));
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: `${other.url}/landing` });
      response.end();
    });
    const headers = {
      'X-Custom-Token': 'tok-custom',
      Cookie: 'session=1',
      'X-Request-Id': 'r1',
      Accept: 'application/json',
      'User-Agent': 'ua',
      'Accept-Language': 'secret-lang',
    };
    await httpRequest({ method: 'GET', url: `${server.url}/start`, headers, timeoutMs: 5000, secretHeaders: ['accept-language'] });
    assert.equal(server.requests[0]!.headers['x-custom-token'], 'tok-custom');
    const landed = other.requests[0]!.headers;
    assert.deepEqual(
      [landed['x-custom-token'], landed.cookie, landed['x-request-id'], landed['accept-language']],
      [undefined, undefined, undefined, undefined],
    );
    assert.deepEqual([landed.accept, landed['user-agent']], ['application/json', 'ua']);
  });

  describe('a kept-alive connection the server closed', () => {
    // One connection, so every request after the first goes out on the kept-alive one.
    let pool: Pool | undefined;
    afterEach(async () => {
      await pool?.close();
      pool = undefined;
    });
    /** Answers the first request of each connection, and closes the connection when a second one arrives on it, answering nothing. */
    async function closesReusedConnections(): Promise<TestServer> {
      const seen = new WeakMap<object, number>();
      return serve((request, response) => {
        const count = (seen.get(request.socket) ?? 0) + 1;
        seen.set(request.socket, count);
        if (count > 1) request.socket.destroy();
        else json(response, 200, { n: count });
      });
    }

    it('retries a GET (and a HEAD) once on a new connection', async () => {
      const server = await closesReusedConnections();
      pool = new Pool(server.url, { connections: 1 });
      for (const method of ['GET', 'GET', 'HEAD'] as const) {
        assert.equal((await httpRequest({ method, url: `${server.url}/status`, timeoutMs: 5000, dispatcher: pool })).status, 200);
      }
      // The second and third requests each went out twice: once on the closed connection, once anew.
      assert.equal(server.requests.length, 5);
    });

    it('does not repeat a POST, which could run twice', async () => {
      const server = await closesReusedConnections();
      pool = new Pool(server.url, { connections: 1 });
      assert.equal(
        (await httpRequest({ method: 'POST', url: `${server.url}/execute`, body: '{}', timeoutMs: 5000, dispatcher: pool })).status,
        200,
      );
      const error = await rejection(
        httpRequest({ method: 'POST', url: `${server.url}/execute`, body: '{}', timeoutMs: 5000, dispatcher: pool }),
      );
      assert.equal(error.kind, 'reset');
      assert.equal(server.requests.length, 2);
    });
  });

  it('turns a POST into a GET on 303, and refuses to replay a stream on 307', async () => {
    const server = await serve((request, response, body) => {
      if (request.url === '/see-other' || request.url === '/temporary') {
        response.writeHead(request.url === '/see-other' ? 303 : 307, { location: '/done' });
        response.end();
      } else json(response, 200, { method: request.method, body: body.toString() });
    });
    const seeOther = await httpRequest({
      method: 'POST',
      url: `${server.url}/see-other`,
      body: 'x',
      headers: { 'content-type': 'text/plain' },
      timeoutMs: 5000,
    });
    assert.deepEqual(JSON.parse(seeOther.body.toString()), { method: 'GET', body: '' });
    const replay = await httpRequest({ method: 'POST', url: `${server.url}/temporary`, body: 'again', timeoutMs: 5000 });
    assert.deepEqual(JSON.parse(replay.body.toString()), { method: 'POST', body: 'again' });
    const error = await rejection(
      httpRequest({ method: 'POST', url: `${server.url}/temporary`, body: Readable.from(['streamed']), timeoutMs: 5000 }),
    );
    assert.equal(error.kind, 'redirect');
  });

  it('stops a redirect loop, and can leave redirects to the caller', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: '/again' });
      response.end();
    });
    assert.equal((await rejection(httpRequest({ method: 'GET', url: server.url, timeoutMs: 5000 }))).kind, 'redirect');
    const manual = await httpRequest({ method: 'GET', url: server.url, timeoutMs: 5000, followRedirects: false });
    assert.equal(manual.status, 302);
    assert.equal(manual.headers.location, '/again');
  });

  it('keeps query strings and user info out of messages', () => {
    assert.equal(safeUrl('https://user:pw@api.example.com/v1/x?api_key=secret#frag'), 'https://api.example.com/v1/x');
  });
});
