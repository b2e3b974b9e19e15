// Polling cost and latency for executions of 1, 10 and 60 s on a local server: how many status
// requests the client makes, and how long after the server finished the client knew. Targets: at
// most one poll interval of delay (the gap between the last two reads, never more than the 5 s
// cap), and no more than about 20 requests for 60 s. The executions run in real time, watched at
// once, so the whole benchmark takes about a minute.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startExecution } from '../src/core/service/agentClient';
import { pollExecution, POLL_DEFAULTS } from '../src/core/service/poller';
import { table } from './support';

export async function runPollingBenchmark(durationsSeconds: readonly number[] = [1, 10, 60]): Promise<boolean> {
  const executions = new Map<string, { finishesAt: number; requests: number; lastGapMs: number; lastAt: number }>();
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    if (request.method === 'POST') {
      // The run's length comes with its inputs, so concurrent starts cannot mix them up.
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const id = randomUUID();
        const seconds = Number((JSON.parse(body) as { inputs: { seconds: number } }).inputs.seconds);
        executions.set(id, { finishesAt: Date.now() + seconds * 1000, requests: 0, lastGapMs: 0, lastAt: Date.now() });
        response.end(JSON.stringify({ status: 'ok', executionId: id }));
      });
      return;
    }
    const id = (request.url ?? '').split('/').slice(-2)[0] ?? '';
    const execution = executions.get(id);
    if (!execution) {
      response.statusCode = 404;
      response.end('{}');
      return;
    }
    execution.requests++;
    execution.lastGapMs = Date.now() - execution.lastAt;
    execution.lastAt = Date.now();
    response.end(JSON.stringify(Date.now() >= execution.finishesAt ? { status: 'finished', outputs: { id } } : { status: 'running' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    account: 'bench',
    agent: 'poll',
    apiKey: 'bench',
  };
  try {
    // All executions are watched at once, as a user with several runs would.
    const results = await Promise.all(
      durationsSeconds.map(async (seconds) => {
        const { executionId } = await startExecution(target, { seconds });
        const execution = executions.get(executionId)!;
        await pollExecution(target, executionId);
        return { seconds, requests: execution.requests, delayMs: Date.now() - execution.finishesAt, intervalMs: execution.lastGapMs };
      }),
    );
    const rows = [['execution', 'status requests', 'ideal', 'delay after finish', 'last interval']];
    let ok = true;
    for (const result of results) {
      rows.push([
        `${result.seconds} s`,
        String(result.requests),
        '1',
        `${(result.delayMs / 1000).toFixed(2)} s`,
        `${(result.intervalMs / 1000).toFixed(2)} s`,
      ]);
      // A little slack for the answer's trip back to the client.
      if (result.delayMs > Math.min(result.intervalMs, POLL_DEFAULTS.maxIntervalMs) + 100) ok = false;
      if (result.seconds >= 60 && result.requests > 20) ok = false;
    }
    console.log(
      `Polling (interval ${POLL_DEFAULTS.initialIntervalMs} ms x${POLL_DEFAULTS.backoffFactor} up to ${POLL_DEFAULTS.maxIntervalMs} ms; targets: delay <= one interval, <= ~20 requests for 60 s)`,
    );
    console.log(table(rows));
    return ok;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
