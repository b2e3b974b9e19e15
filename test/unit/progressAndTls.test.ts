// Command line progress output, and TLS failures classified as such.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createProgress } from '../../src/cli/progress';
import { httpRequest } from '../../src/core/http/httpRequest';
import { NetworkError } from '../../src/core/http/networkError';
import { getStatus } from '../../src/core/service/agentClient';
import { ServiceError } from '../../src/core/service/serviceError';
import { FakeClock } from '../support/fakeClock';
import { makeTempDir } from '../support/tempDir';

describe('progress', () => {
  it('prints plain lines only when the state changes, when not on a terminal', () => {
    let out = '';
    const progress = createProgress((text) => (out += text), false);
    progress.update('running: e1 1.0 s (1 request)');
    progress.update('running: e1 2.0 s (2 requests)');
    progress.update('finished: e1 3.0 s (3 requests)');
    progress.line('note');
    progress.done();
    assert.equal(out, 'running: e1 1.0 s (1 request)\nfinished: e1 3.0 s (3 requests)\nnote\n');
  });

  it('redraws one spinner line on a terminal and clears it when done', () => {
    let out = '';
    const progress = createProgress((text) => (out += text), true);
    progress.update('running: e1 1 s');
    progress.update('running: e1 2 s');
    progress.done();
    assert.match(out, /^\r\u001b\[2K⠋ running: e1 1 s\r\u001b\[2K⠙ running: e1 2 s\r\u001b\[2K$/);
  });

  it('with minIntervalMs, shows at most one state an interval: the first at once, the latest when it is over', () => {
    let out = '';
    const clock = new FakeClock();
    const progress = createProgress((text) => (out += text), false, undefined, { minIntervalMs: 50, clock });
    progress.update('1/3 rows');
    progress.update('2/3 rows');
    progress.update('2/3 rows · running 1');
    progress.line('row 2: unknown');
    assert.equal(out, '1/3 rows\nrow 2: unknown\n', 'the updates within the interval are held');
    clock.advance(49);
    assert.equal(out, '1/3 rows\nrow 2: unknown\n', 'still held 1 ms before the interval ends');
    clock.advance(1);
    assert.equal(out, '1/3 rows\nrow 2: unknown\n2/3 rows · running 1\n', 'then the latest is shown');
    clock.advance(100);
    // Printed again though unchanged: a sign of life in a CI log.
    progress.update('2/3 rows · running 1');
    progress.update('3/3 rows');
    progress.done();
    assert.equal(clock.pending, 0, 'done cleared the held state');
    clock.advance(1000);
    assert.equal(out, '1/3 rows\nrow 2: unknown\n2/3 rows · running 1\n2/3 rows · running 1\n', 'nothing after done');
  });
});

describe('TLS failures', () => {
  it('are reported as certificate problems by the HTTP layer and the client', async function () {
    this.timeout(20_000);
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
          '-keyout',
          join(dir.path, 'key.pem'),
          '-out',
          join(dir.path, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      const server = createServer(
        { key: readFileSync(join(dir.path, 'key.pem')), cert: readFileSync(join(dir.path, 'cert.pem')) },
        (_request, response) => response.end('{}'),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        await assert.rejects(
          httpRequest({ method: 'GET', url, timeoutMs: 5000 }),
          (error: unknown) => error instanceof NetworkError && error.kind === 'tls' && /certificate/.test(error.message),
        );
        await assert.rejects(
          getStatus({ baseUrl: url, account: 'a', agent: 'b', apiKey: 'k' }, 'e1'),
          (error: unknown) => error instanceof ServiceError && error.kind === 'network' && /TLS certificate/.test(error.message),
        );
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    } finally {
      dir.remove();
    }
  });
});
