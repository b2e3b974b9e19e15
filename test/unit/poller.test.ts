// Polling against a real server: terminal statuses, backoff, Retry-After, transient faults,
// time limit, cancellation with nothing left behind.
import assert from 'node:assert/strict';
import { intervalAfter, pollExecution } from '../../src/core/service/poller';
import type { PollOptions } from '../../src/core/service/poller';
import { ServiceError } from '../../src/core/service/serviceError';
import type { AgentTarget } from '../../src/core/service/target';
import { startFakeService } from '../support/fakeAgentService';
import type { FakeService } from '../support/fakeAgentService';
import { FakeClock } from '../support/fakeClock';
import { closedPort, json } from '../support/httpServer';

const FAST: PollOptions = { initialIntervalMs: 10, maxIntervalMs: 40, backoffFactor: 2 };

/** Resources that keep the process alive (timers, sockets), by type. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

async function until(condition: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('pollExecution', () => {
  let service: FakeService;
  let target: AgentTarget;
  beforeEach(async () => {
    service = await startFakeService('k');
    target = { baseUrl: service.url, account: 'acme', agent: 'a', apiKey: 'k', requestTimeoutMs: 2000 };
  });
  afterEach(() => service.close());

  async function failure(promise: Promise<unknown>): Promise<ServiceError> {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof ServiceError, String(error));
      return error;
    }
    assert.fail('expected a failure');
  }

  it('polls until finished, reports every answer, and returns the outputs', async () => {
    service.statusAnswer = (n, _id, response) =>
      json(response, 200, n < 3 ? { status: 'running', progress: n } : { status: 'finished', outputs: { summary: 'done' } });
    const updates: string[] = [];
    const outcome = await pollExecution(target, 'e1', {
      ...FAST,
      onUpdate: (answer, progress) => updates.push(`${progress.requests}:${answer.status}`),
    });
    assert.equal(outcome.kind, 'finished');
    assert.deepEqual(outcome.kind === 'finished' && outcome.outputs, { summary: 'done' });
    assert.deepEqual(updates, ['1:running', '2:running', '3:running', '4:finished']);
    assert.equal(service.statusRequests.length, 4, 'never polls after a terminal answer');
  });

  it('says as each status read is sent, before its answer, retries included', async () => {
    service.statusAnswer = (n, _id, response) =>
      n === 0 ? json(response, 503, { error: 'busy' }) : json(response, 200, n < 2 ? { status: 'running' } : { status: 'finished' });
    const events: string[] = [];
    await pollExecution(target, 'e1', {
      ...FAST,
      onRequest: (attempt) => events.push(`sent ${attempt} (${service.statusRequests.length} arrived)`),
      onRetry: () => events.push('retry'),
      onUpdate: (answer, progress) => events.push(`${progress.requests}:${answer.status}`),
    });
    assert.deepEqual(events, ['sent 1 (0 arrived)', 'retry', 'sent 2 (1 arrived)', '2:running', 'sent 3 (2 arrived)', '3:finished']);
  });

  it('ends with a problem on failed, error, cancelled, canceled, timeout and unknown statuses', async () => {
    for (const status of ['failed', 'error', 'cancelled', 'canceled', 'timeout', 'exploded']) {
      const before = service.statusRequests.length;
      service.statusAnswer = (_n, _id, response) => json(response, 200, { status, error: `it ${status}` });
      const outcome = await pollExecution(target, 'e1', FAST);
      assert.equal(outcome.kind, 'problem', status);
      assert.equal(outcome.kind === 'problem' && outcome.status, status);
      assert.deepEqual(outcome.answer.body, { status, error: `it ${status}` });
      assert.equal(service.statusRequests.length, before + 1);
    }
  });

  it('backs off from a short interval to the cap', async () => {
    service.statusAnswer = (n, _id, response) => json(response, 200, { status: n < 6 ? 'running' : 'finished' });
    const clock = new FakeClock(undefined, { autoAdvance: true });
    await pollExecution(target, 'e1', { initialIntervalMs: 20, maxIntervalMs: 80, backoffFactor: 2, clock });
    // Growing, then capped; one wait between two reads.
    assert.deepEqual(clock.waits, [20, 40, 80, 80, 80, 80]);
    assert.equal(service.statusRequests.length, 7);
  });

  it('honours Retry-After on 429 and 503', async () => {
    service.statusAnswer = (n, _id, response) => {
      if (n === 0) json(response, 429, { error: 'slow down' }, { 'retry-after': '1' });
      else if (n === 1) json(response, 503, { error: 'busy' }, { 'retry-after': '2' });
      else json(response, 200, { status: 'finished', outputs: {} });
    };
    const retries: string[] = [];
    const clock = new FakeClock(undefined, { autoAdvance: true });
    await pollExecution(target, 'e1', {
      ...FAST,
      clock,
      onRetry: (error, attempt, delay) => retries.push(`${error.kind} ${attempt} ${delay}`),
    });
    assert.deepEqual(clock.waits, [1000, 2000]);
    assert.deepEqual(retries, ['rate-limited 1 1000', 'server 2 2000']);
  });

  it('retries transient faults a bounded number of times, then fails', async () => {
    service.statusAnswer = (n, _id, response) =>
      n < 2 ? json(response, 502, { error: 'bad gateway' }) : json(response, 200, { status: 'finished' });
    assert.equal((await pollExecution(target, 'e1', FAST)).kind, 'finished');
    const before = service.statusRequests.length;
    service.statusAnswer = (_n, _id, response) => json(response, 500, { error: 'down' });
    const error = await failure(pollExecution(target, 'e1', { ...FAST, maxRetries: 3 }));
    assert.equal(error.kind, 'server');
    assert.equal(service.statusRequests.length - before, 4);
  });

  it('retries a connection reset in the middle of an answer', async () => {
    service.statusAnswer = (n, _id, response) => {
      if (n === 0) {
        response.writeHead(200, { 'content-length': '500', 'content-type': 'application/json' });
        response.write('{"status":');
        setTimeout(() => response.socket?.destroy(), 10);
      } else json(response, 200, { status: 'finished', outputs: 1 });
    };
    const outcome = await pollExecution(target, 'e1', FAST);
    assert.equal(outcome.kind, 'finished');
  });

  it('does not retry an auth failure', async () => {
    service.apiKey = 'rotated';
    const error = await failure(pollExecution(target, 'e1', FAST));
    assert.equal(error.kind, 'auth');
    assert.equal(service.server.requests.length, 1, 'one request, no retry');
  });

  it('stops at the overall time limit', async () => {
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'running' });
    const clock = new FakeClock(undefined, { autoAdvance: true });
    const started = clock.now();
    const error = await failure(pollExecution(target, 'e1', { ...FAST, timeoutMs: 150, clock }));
    assert.equal(error.kind, 'timeout');
    assert.match(error.message, /may still be running/);
    assert.equal(clock.now() - started, 150, 'the last wait ends at the limit, and no read follows it');
    assert.deepEqual(clock.waits, [10, 20, 40, 40, 40]);
  });

  it('is cancelled while waiting and while a request is in flight, leaving nothing behind', async () => {
    service.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'running' });
    const waiting = new AbortController();
    const pendingWait = pollExecution(target, 'e1', { initialIntervalMs: 5000, signal: waiting.signal });
    // Wait until the first answer arrived, so the poller is sleeping.
    while (service.statusRequests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const cancelledAt = Date.now();
    waiting.abort();
    assert.equal((await failure(pendingWait)).kind, 'cancelled');
    assert.ok(Date.now() - cancelledAt < 200, 'cancelling does not wait for the interval');

    let closed = false;
    service.statusAnswer = (_n, _id, response) => {
      response.on('close', () => (closed = true));
    };
    const inFlight = new AbortController();
    const before = service.statusRequests.length;
    const pendingRequest = pollExecution(target, 'e1', { ...FAST, signal: inFlight.signal });
    while (service.statusRequests.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    inFlight.abort();
    assert.equal((await failure(pendingRequest)).kind, 'cancelled');
    while (!closed) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(service.statusRequests.length, before + 1, 'no request after the cancel');
  });

  it('leaves no timer and no request behind once cancelled, whether waiting or in flight', async () => {
    // One finished poll first, so the connection pool exists before counting.
    await pollExecution(target, 'warm-up', FAST);
    let hanging = 0;
    let hangingClosed = 0;
    service.statusAnswer = (n, _id, response) => {
      if (n % 2 === 1) {
        json(response, 200, { status: 'running' });
        return;
      }
      // Every other read hangs, so half the cancels hit a request in flight, half a wait.
      hanging++;
      response.on('close', () => hangingClosed++);
    };
    const before = activeResources();
    for (let i = 0; i < 6; i++) {
      const controller = new AbortController();
      const requestsBefore = service.statusRequests.length;
      let answered = false;
      const pending = pollExecution(target, `e${i}`, {
        initialIntervalMs: 10_000,
        signal: controller.signal,
        onUpdate: () => (answered = true),
      });
      await until(() => service.statusRequests.length > requestsBefore, 'the status read');
      if (i % 2 === 0) await until(() => answered, 'the answer');
      controller.abort();
      assert.equal((await failure(pending)).kind, 'cancelled');
    }
    assert.equal(hanging, 3);
    await until(() => hangingClosed === hanging, 'the connections of the cancelled requests to close');
    const after = activeResources();
    assert.ok((after.Timeout ?? 0) <= (before.Timeout ?? 0), `timers before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
    assert.equal(service.statusRequests.length, 1 + 6, 'exactly one read per poll, none after a cancel');
  });

  it('keeps a slow status read within the overall limit', async () => {
    service.statusAnswer = () => undefined; // never answers
    const started = Date.now();
    const error = await failure(pollExecution({ ...target, requestTimeoutMs: 10_000 }, 'e1', { ...FAST, timeoutMs: 300 }));
    assert.equal(error.kind, 'timeout');
    assert.match(error.message, /Stopped waiting for execution e1 after 0 s; it may still be running/);
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
    assert.equal(service.statusRequests.length, 1);
  });

  it('does not let a long Retry-After carry it past the overall limit', async () => {
    service.statusAnswer = (_n, _id, response) => json(response, 429, { error: 'later' }, { 'retry-after': '30' });
    const clock = new FakeClock(undefined, { autoAdvance: true });
    const error = await failure(pollExecution(target, 'e1', { ...FAST, timeoutMs: 400, clock }));
    assert.equal(error.kind, 'timeout');
    assert.deepEqual(clock.waits, [400]);
    assert.equal(service.statusRequests.length, 1);
  });

  it('reads at once and keeps the schedule it had when a watch is taken up again', async () => {
    service.statusAnswer = (n, _id, response) => json(response, 200, { status: n < 2 ? 'running' : 'finished' });
    const clock = new FakeClock(undefined, { autoAdvance: true });
    const settings = { initialIntervalMs: 500, maxIntervalMs: 5000, backoffFactor: 1.5 };
    // Started 3 s ago: 500 + 750 + 1125 ms of waits are behind it, the next is 1687.5 ms.
    await pollExecution(target, 'e1', { ...settings, clock, startedAt: clock.now() - 3000 });
    assert.deepEqual(clock.waits, [1687.5, 2531.25]);
    // Long ago: at the cap; just now: from the start.
    assert.equal(intervalAfter(60 * 60_000, settings), 5000);
    assert.equal(intervalAfter(0, settings), 500);
    assert.equal(intervalAfter(10_000, { ...settings, initialIntervalMs: 0 }), 0, 'no endless loop on a zero interval');
  });

  it('retries a status read that times out, then goes on', async () => {
    service.statusAnswer = (n, _id, response) => {
      if (n > 0) json(response, 200, { status: 'finished', outputs: { n } });
    };
    const retries: string[] = [];
    const outcome = await pollExecution({ ...target, requestTimeoutMs: 200 }, 'e1', {
      ...FAST,
      onRetry: (error) => retries.push(error.kind),
    });
    assert.deepEqual(outcome.kind === 'finished' && outcome.outputs, { n: 1 });
    assert.deepEqual(retries, ['timeout']);
  });

  it('retries a refused connection a bounded number of times', async () => {
    const attempts: number[] = [];
    const error = await failure(
      pollExecution({ ...target, baseUrl: `http://127.0.0.1:${await closedPort()}` }, 'e1', {
        ...FAST,
        maxRetries: 2,
        onRetry: (_error, attempt) => attempts.push(attempt),
      }),
    );
    assert.equal(error.kind, 'network');
    assert.match(error.message, /connection refused/);
    assert.deepEqual(attempts, [1, 2]);
  });

  it("stops at once on an answer that is not the service's (HTML, 404), without retrying", async () => {
    service.statusAnswer = (_n, _id, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>proxy login</html>');
    };
    assert.equal((await failure(pollExecution(target, 'e1', FAST))).kind, 'bad-response');
    service.statusAnswer = (_n, _id, response) => json(response, 404, { error: 'no such execution' });
    assert.equal((await failure(pollExecution(target, 'e1', FAST))).kind, 'not-found');
    assert.equal(service.statusRequests.length, 2);
  });

  it('accepts the terminal status in any case and spacing, and treats other progress words as running', async () => {
    service.statusAnswer = (n, _id, response) =>
      json(response, 200, { status: ['queued', 'PENDING', 'in_progress', ' Finished '][n], outputs: { n } });
    const outcome = await pollExecution(target, 'e1', FAST);
    assert.equal(outcome.kind, 'finished');
    assert.equal(service.statusRequests.length, 4);
  });
});
