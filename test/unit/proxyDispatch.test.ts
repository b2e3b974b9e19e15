// VS Code's proxy settings applied to agent calls: which hosts bypass the proxy, and real requests
// through a real CONNECT proxy on 127.0.0.1 to a real server.
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { isLoopbackHost } from '../../src/core/http/hosts';
import { anyHostDispatcher, bypassesProxy, dispatcherFor } from '../../src/core/http/proxy';
import { httpRequest } from '../../src/core/http/httpRequest';
import { startConnectProxy } from '../support/connectProxy';
import type { TestProxy } from '../support/connectProxy';
import { closedPort, json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';

describe('proxy settings', () => {
  it('knows loopback hosts', () => {
    for (const host of ['localhost', 'LOCALHOST', 'api.localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]'])
      assert.ok(isLoopbackHost(host), host);
    for (const host of ['128.0.0.1', 'localhost.example.com', 'example.com', '10.0.0.1', '::2']) assert.ok(!isLoopbackHost(host), host);
  });

  it('bypasses the proxy for loopback and noProxy hosts', () => {
    assert.ok(bypassesProxy('127.0.0.1', []));
    assert.ok(bypassesProxy('example.com', ['example.com']));
    assert.ok(bypassesProxy('api.example.com', ['example.com']));
    assert.ok(bypassesProxy('api.example.com', ['.example.com']));
    assert.ok(bypassesProxy('api.example.com', ['*.example.com']));
    assert.ok(bypassesProxy('example.com', ['.example.com']));
    assert.ok(bypassesProxy('anything.org', ['*']));
    assert.ok(!bypassesProxy('badexample.com', ['example.com']));
    assert.ok(!bypassesProxy('example.org', ['', '  ', 'example.com']));
  });

  it('uses no dispatcher of its own without a proxy and with certificate checks', () => {
    assert.equal(dispatcherFor('https://agents.example.com', { proxy: '', strictSSL: true, noProxy: [] }, {}), undefined);
    assert.equal(anyHostDispatcher({ proxy: '', strictSSL: true, noProxy: [] }, {}), undefined);
    assert.ok(dispatcherFor('https://agents.example.com', { proxy: '', strictSSL: false, noProxy: [] }, {}) instanceof Agent);
    assert.equal(
      dispatcherFor('http://127.0.0.1:8787', { proxy: 'http://proxy.invalid:3128', strictSSL: true, noProxy: [] }, {}),
      undefined,
      'loopback never goes through the proxy',
    );
    assert.equal(
      dispatcherFor('https://agents.example.com', { proxy: 'http://proxy.invalid:3128', strictSSL: true, noProxy: ['example.com'] }, {}),
      undefined,
    );
  });

  it('reads NO_PROXY from the environment too', () => {
    assert.equal(
      dispatcherFor(
        'https://agents.example.com',
        { proxy: 'http://proxy.invalid:3128', strictSSL: true, noProxy: [] },
        { NO_PROXY: 'other.org, .example.com' },
      ),
      undefined,
    );
    assert.ok(
      dispatcherFor(
        'https://agents.example.org',
        { proxy: 'http://proxy.invalid:3128', strictSSL: true, noProxy: [] },
        { no_proxy: 'example.com' },
      ),
    );
  });

  it('says when it is the proxy that refuses the connection', async () => {
    const down = await closedPort();
    const url = 'http://agents.invalid:8443/api/acme/agent/x/status';
    const dispatcher = dispatcherFor(url, { proxy: `http://127.0.0.1:${down}`, strictSSL: true, noProxy: [] }, {});
    assert.ok(dispatcher);
    await assert.rejects(httpRequest({ method: 'GET', url, timeoutMs: 5000, dispatcher }), (error: Error) => {
      assert.match(
        error.message,
        new RegExp(
          `The connection to 127\\.0\\.0\\.1:${down} was refused on the way to http://agents\\.invalid:8443\\. If that is your proxy`,
        ),
      );
      return true;
    });
    await dispatcher.destroy();
  });

  describe('through a real proxy', () => {
    let target: TestServer;
    let proxy: TestProxy;
    beforeEach(async () => {
      target = await startServer((request, response) => json(response, 200, { host: request.headers.host, path: request.url }));
      proxy = await startConnectProxy(() => target.port);
    });
    afterEach(async () => {
      await proxy.close();
      await target.close();
    });

    it('sends a service request to a remote host through the proxy of the settings', async () => {
      const url = `http://agents.invalid:${target.port}/api/acme/agent/x/status`;
      const dispatcher = dispatcherFor(url, { proxy: proxy.url, strictSSL: true, noProxy: [] }, {});
      assert.ok(dispatcher);
      const response = await httpRequest({ method: 'GET', url, timeoutMs: 5000, dispatcher });
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(response.body.toString()), { host: `agents.invalid:${target.port}`, path: '/api/acme/agent/x/status' });
      assert.deepEqual(
        proxy.tunnels.map((tunnel) => tunnel.target),
        [`agents.invalid:${target.port}`],
      );
      await dispatcher.destroy();
    });

    it('falls back to HTTPS_PROXY from the environment', async () => {
      const url = `http://agents.invalid:${target.port}/`;
      const dispatcher = dispatcherFor(url, { proxy: '', strictSSL: true, noProxy: [] }, { HTTPS_PROXY: proxy.url });
      assert.ok(dispatcher);
      assert.equal((await httpRequest({ method: 'GET', url, timeoutMs: 5000, dispatcher })).status, 200);
      assert.equal(proxy.tunnels.length, 1);
      await dispatcher.destroy();
    });

    it('lets API nodes reach any host through the proxy, and loopback directly', async () => {
      const dispatcher = anyHostDispatcher({ proxy: proxy.url, strictSSL: true, noProxy: ['direct.invalid'] }, {});
      assert.ok(dispatcher);
      assert.equal(
        (await httpRequest({ method: 'GET', url: `http://api.invalid:${target.port}/a`, timeoutMs: 5000, dispatcher })).status,
        200,
      );
      assert.equal((await httpRequest({ method: 'GET', url: `${target.url}/b`, timeoutMs: 5000, dispatcher })).status, 200);
      assert.deepEqual(
        proxy.tunnels.map((tunnel) => tunnel.target),
        [`api.invalid:${target.port}`],
        'only the remote host went through the proxy',
      );
      await assert.rejects(
        httpRequest({ method: 'GET', url: `http://direct.invalid:${target.port}/c`, timeoutMs: 5000, dispatcher }),
        'a noProxy host is reached directly (and does not resolve)',
      );
      assert.equal(proxy.tunnels.length, 1);
      await dispatcher.destroy();
    });
  });
});
