// Which agent calls go through VS Code's proxy, and what reaches the proxy and the service when they
// do: a real CONNECT proxy and real HTTP and HTTPS services on 127.0.0.1, addressed by a host name
// that does not look local (the proxy sends every tunnel to the service, so no DNS is needed).
// proxyDispatch.test.ts covers the common cases and anyHostDispatcher.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent, ProxyAgent } from 'undici';
import type { Dispatcher } from 'undici';
import { httpRequest } from '../../src/core/http/httpRequest';
import { NetworkError } from '../../src/core/http/networkError';
import { isLoopbackHost } from '../../src/core/http/hosts';
import { bypassesProxy, dispatcherFor } from '../../src/core/http/proxy';
import type { ProxyConfig } from '../../src/core/http/proxy';
import { closedPort, json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { startConnectProxy } from '../support/connectProxy';
import type { TestProxy } from '../support/connectProxy';
import { makeTempDir } from '../support/tempDir';

const direct: ProxyConfig = { proxy: '', strictSSL: true, noProxy: [] };

describe('proxy', () => {
  describe('isLoopbackHost', () => {
    it('knows localhost, its subdomains, 127.0.0.0/8 and ::1 with or without brackets, in any case', () => {
      for (const host of [
        'localhost',
        'LocalHost',
        'foo.localhost',
        'a.b.localhost',
        '127.0.0.1',
        '127.255.255.254',
        '127.0.0.53',
        '::1',
        '[::1]',
      ]) {
        assert.equal(isLoopbackHost(host), true, host);
      }
    });

    it('does not take look-alikes for loopback', () => {
      for (const host of [
        '128.0.0.1',
        '126.0.0.1',
        '127.0.0',
        '127.0.0.1.nip.io',
        'localhost.example.com',
        'mylocalhost',
        'localhost-dev',
        '0.0.0.0',
        '::2',
        '[::2]',
        '10.0.0.1',
        '',
      ]) {
        assert.equal(isLoopbackHost(host), false, host);
      }
    });
  });

  describe('bypassesProxy', () => {
    it('matches a plain entry as the host itself and its subdomains, on label boundaries only', () => {
      const noProxy = ['example.com'];
      for (const host of ['example.com', 'api.example.com', 'a.b.example.com']) assert.equal(bypassesProxy(host, noProxy), true, host);
      for (const host of ['notexample.com', 'example.com.evil.org', 'example.org', 'com'])
        assert.equal(bypassesProxy(host, noProxy), false, host);
    });

    it('matches a leading-dot or "*." entry as subdomains and the domain itself', () => {
      for (const entry of ['.example.com', '*.example.com']) {
        for (const host of ['example.com', 'api.example.com', 'a.b.example.com'])
          assert.equal(bypassesProxy(host, [entry]), true, `${host} by ${entry}`);
        for (const host of ['badexample.com', 'example.com.evil.org'])
          assert.equal(bypassesProxy(host, [entry]), false, `${host} by ${entry}`);
      }
    });

    it('bypasses every host for "*", alone or among other entries', () => {
      assert.equal(bypassesProxy('anything.example.org', ['*']), true);
      assert.equal(bypassesProxy('anything.example.org', ['intranet', ' * ']), true);
    });

    it('ignores case, surrounding spaces and empty entries', () => {
      assert.equal(bypassesProxy('API.Example.COM', [' example.com ']), true);
      assert.equal(bypassesProxy('api.example.com', ['  *.EXAMPLE.com']), true);
      assert.equal(bypassesProxy('api.example.com', ['', '   ', '\t']), false, 'an empty entry matches nothing');
    });

    it('always bypasses loopback hosts, even with no entries', () => {
      for (const host of ['localhost', '127.0.0.1', '[::1]', 'foo.localhost']) assert.equal(bypassesProxy(host, []), true, host);
    });
  });

  describe('dispatcherFor', () => {
    const proxied: ProxyConfig = { proxy: 'http://proxy.invalid:3128', strictSSL: true, noProxy: [] };

    it('leaves a loopback base URL to undici, even with a proxy set', () => {
      for (const baseUrl of [
        'http://localhost:8787',
        'http://127.0.0.1:8787',
        'http://[::1]:8787',
        'http://agents.localhost',
        'https://127.3.2.1',
      ]) {
        assert.equal(dispatcherFor(baseUrl, proxied, {}), undefined, baseUrl);
        assert.equal(
          dispatcherFor(baseUrl, direct, { HTTPS_PROXY: 'http://proxy.invalid:3128' }),
          undefined,
          `${baseUrl} with HTTPS_PROXY`,
        );
      }
    });

    it('leaves a noProxy host to undici', () => {
      assert.equal(dispatcherFor('https://agents.corp.example', { ...proxied, noProxy: ['.corp.example'] }, {}), undefined);
      assert.equal(
        dispatcherFor('https://agents.corp.example', { ...direct, noProxy: ['*'] }, { HTTPS_PROXY: 'http://proxy.invalid:3128' }),
        undefined,
      );
    });

    it('uses a ProxyAgent for any other host', () => {
      assert.ok(dispatcherFor('https://agents.example.com', proxied, {}) instanceof ProxyAgent);
      assert.ok(dispatcherFor('https://agents.example.com', direct, { HTTP_PROXY: 'http://proxy.invalid:3128' }) instanceof ProxyAgent);
    });

    it('uses a plain Agent when certificates are not checked and no proxy applies', () => {
      const insecure = dispatcherFor('https://agents.example.com', { ...direct, strictSSL: false }, {});
      assert.ok(insecure instanceof Agent);
      assert.ok(!(insecure instanceof ProxyAgent));
      const loopback = dispatcherFor('https://127.0.0.1:8443', { ...proxied, strictSSL: false }, {});
      assert.ok(
        loopback instanceof Agent && !(loopback instanceof ProxyAgent),
        'loopback skips the proxy but still skips the certificate check',
      );
    });

    it('ignores the environment when it names no proxy', () => {
      assert.equal(dispatcherFor('https://agents.example.com', direct, {}), undefined);
      assert.equal(dispatcherFor('https://agents.example.com', direct, { HTTPS_PROXY: '', NO_PROXY: 'x' }), undefined);
    });
  });

  describe('through a real CONNECT proxy', () => {
    let service: TestServer;
    let proxy: TestProxy;
    let dispatcher: Dispatcher | undefined;
    const hostOf = (): string => `proxied.test:${service.port}`;

    beforeEach(async () => {
      service = await startServer((request, response, body) =>
        json(response, 200, { method: request.method, path: request.url, host: request.headers.host, body: body.toString() }),
      );
      proxy = await startConnectProxy(() => service.port);
    });
    afterEach(async () => {
      await dispatcher?.destroy();
      dispatcher = undefined;
      await proxy.close();
      await service.close();
    });

    it('tunnels a call to a remote-looking host through the proxy and brings the answer back', async () => {
      const url = `http://${hostOf()}/api/acme/agent/summarizer/execute`;
      dispatcher = dispatcherFor(url, { ...direct, proxy: proxy.url }, {});
      assert.ok(dispatcher);
      const response = await httpRequest({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-secret' },
        body: '{"ticket":"Printer on fire"}',
        timeoutMs: 5000,
        dispatcher,
      });
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(response.body.toString()), {
        method: 'POST',
        path: '/api/acme/agent/summarizer/execute',
        host: hostOf(),
        body: '{"ticket":"Printer on fire"}',
      });
      assert.deepEqual(
        proxy.tunnels.map((tunnel) => tunnel.target),
        [hostOf()],
      );
      assert.equal(service.requests[0]?.headers.authorization, 'Bearer sk-secret');
      assert.equal(proxy.tunnels[0]?.headers.authorization, undefined, 'the API key travels inside the tunnel, not in the CONNECT request');
    });

    it('takes the proxy setting over the environment, and HTTPS_PROXY over HTTP_PROXY', async () => {
      const nothing = `http://127.0.0.1:${await closedPort()}`;
      const url = `http://${hostOf()}/status`;
      const cases: [string, ProxyConfig, Record<string, string>][] = [
        ['setting over environment', { ...direct, proxy: proxy.url }, { HTTPS_PROXY: nothing, HTTP_PROXY: nothing }],
        ['HTTPS_PROXY', direct, { HTTPS_PROXY: proxy.url, HTTP_PROXY: nothing }],
        ['https_proxy', direct, { https_proxy: proxy.url, HTTP_PROXY: nothing }],
        ['HTTP_PROXY', direct, { HTTP_PROXY: proxy.url }],
        ['http_proxy', direct, { http_proxy: proxy.url }],
      ];
      for (const [name, config, env] of cases) {
        const through = dispatcherFor(url, config, env);
        assert.ok(through, name);
        try {
          assert.equal((await httpRequest({ method: 'GET', url, timeoutMs: 5000, dispatcher: through })).status, 200, name);
        } finally {
          await through.destroy();
        }
      }
      assert.equal(proxy.tunnels.length, cases.length);
    });

    it('sends the credentials of the proxy URL to the proxy only', async () => {
      const url = `http://${hostOf()}/status`;
      const withCredentials = proxy.url.replace('http://', 'http://me:p%40ss@');
      dispatcher = dispatcherFor(url, { ...direct, proxy: withCredentials }, {});
      assert.ok(dispatcher);
      assert.equal((await httpRequest({ method: 'GET', url, timeoutMs: 5000, dispatcher })).status, 200);
      assert.equal(proxy.tunnels[0]?.headers['proxy-authorization'], `Basic ${Buffer.from('me:p@ss').toString('base64')}`);
      assert.equal(service.requests[0]?.headers['proxy-authorization'], undefined);
    });

    it('reports a proxy that refuses the tunnel, without reaching the service', async () => {
      const refusing = await startConnectProxy(() => service.port, 407);
      try {
        const url = `http://${hostOf()}/status`;
        dispatcher = dispatcherFor(url, { ...direct, proxy: refusing.url }, {});
        assert.ok(dispatcher);
        await assert.rejects(
          httpRequest({ method: 'GET', url, timeoutMs: 5000, dispatcher }),
          (error: unknown) => error instanceof NetworkError && /407/.test(error.message),
        );
        assert.deepEqual(
          refusing.tunnels.map((tunnel) => tunnel.target),
          [hostOf()],
        );
        assert.equal(service.requests.length, 0);
      } finally {
        await refusing.close();
      }
    });
  });

  describe('through a real CONNECT proxy to a self-signed HTTPS service', function () {
    this.timeout(20_000);
    let dir: ReturnType<typeof makeTempDir>;
    let tlsPort: number;
    let closeTls: () => Promise<void>;
    let proxy: TestProxy;

    before(async () => {
      dir = makeTempDir();
      const key = join(dir.path, 'key.pem');
      const cert = join(dir.path, 'cert.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=proxied.test',
        ],
        { stdio: 'ignore' },
      );
      const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) =>
        json(response, 200, { path: request.url }),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      tlsPort = (server.address() as AddressInfo).port;
      closeTls = () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        });
      proxy = await startConnectProxy(() => tlsPort);
    });
    after(async () => {
      await proxy?.close();
      await closeTls?.();
      dir?.remove();
    });

    it('rejects the certificate when http.proxyStrictSSL is on, and accepts it when off', async () => {
      const url = `https://proxied.test:${tlsPort}/api/acme/agent/x/status`;
      const strict = dispatcherFor(url, { ...direct, proxy: proxy.url }, {});
      const lax = dispatcherFor(url, { ...direct, proxy: proxy.url, strictSSL: false }, {});
      assert.ok(strict && lax);
      try {
        await assert.rejects(
          httpRequest({ method: 'GET', url, timeoutMs: 5000, dispatcher: strict }),
          (error: unknown) => error instanceof NetworkError && error.kind === 'tls',
        );
        const response = await httpRequest({ method: 'GET', url, timeoutMs: 5000, dispatcher: lax });
        assert.equal(response.status, 200);
        assert.deepEqual(JSON.parse(response.body.toString()), { path: '/api/acme/agent/x/status' });
        assert.deepEqual(
          proxy.tunnels.map((tunnel) => tunnel.target),
          [`proxied.test:${tlsPort}`, `proxied.test:${tlsPort}`],
        );
      } finally {
        await strict.destroy();
        await lax.destroy();
      }
    });
  });
});
