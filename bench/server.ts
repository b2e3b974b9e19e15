// The local agent server under load: `agent-workflows serve` (the built command line) gets 500
// executions started at once of a workflow whose API nodes call an echo API that answers after
// 50 to 150 ms, like a fast real API. Once every start is answered, this client reads each execution's
// status every 500 ms (the service client's interval) until it ends, the first read at a random
// point of the first interval as independent clients would: status latency is measured while the
// executions run, start latency separately for the burst of starts. The server, the echo API and this client each run in
// a process of their own, and the client's connections are opened before measuring, so the numbers
// are the server's work and not the kernel accepting 500 connections at once. Targets: no errors,
// status p99 under 50 ms, and ten independent nodes that each wait 200 ms finishing in under
// 1.3 x 200 ms. For reference, the same burst of 500 POSTs goes to a bare node:http server (the
// echo API): what this machine's network stack allows.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { POLL_DEFAULTS } from '../src/core/service/poller';
import { table } from './support';

const EXECUTIONS = 500;
const POLL_INTERVAL_MS = POLL_DEFAULTS.initialIntervalMs;
const API_DELAY_MS = 100;
/** Real APIs do not all answer in exactly the same time. */
const API_JITTER_MS = 50;
const PARALLEL_NODES = 10;
const NODE_DELAY_MS = 200;
const OVERLAP_RUNS = 3;

const loadAgent = (api: string) => `version: 1
name: Order enrichment
inputs:
  n: { type: number, required: true }
nodes:
  fetch_order:
    type: api
    method: GET
    url: ${api}/orders/{{ inputs.n }}?delay=${API_DELAY_MS}&jitter=${API_JITTER_MS}
    settings: ["Accept: application/json"]
  enrich:
    type: api
    method: POST
    url: ${api}/enrich?delay=${API_DELAY_MS}&jitter=${API_JITTER_MS}
    settings: ["Content-Type: application/json"]
    body: { order: "{{ nodes.fetch_order.body.path }}", n: "{{ inputs.n }}" }
  audit:
    type: api
    method: POST
    url: ${api}/audit?delay=${API_DELAY_MS}&jitter=${API_JITTER_MS}
    settings: ["Content-Type: application/json"]
    body: { order: "{{ nodes.fetch_order.body.path }}" }
  summary:
    type: template
    text: "{{ nodes.enrich.body.body }} {{ nodes.audit.status }}"
outputs:
  summary: { from: "{{ nodes.summary.body }}" }
`;

const parallelAgent = (api: string) => `version: 1
name: Ten at once
nodes:
${Array.from({ length: PARALLEL_NODES }, (_, i) => `  call_${i}:\n    type: api\n    method: GET\n    url: ${api}/slow/${i}?delay=${NODE_DELAY_MS}\n`).join('')}  joined:
    type: template
    text: "${Array.from({ length: PARALLEL_NODES }, (_, i) => `{{ nodes.call_${i}.body.path }}`).join(' ')}"
outputs:
  joined: { from: "{{ nodes.joined.body }}" }
`;

interface StatusBody {
  readonly status: string;
  readonly outputs?: { readonly summary?: string; readonly joined?: string };
  readonly error?: string;
  readonly endedAt?: string;
  readonly durationMs?: number;
  readonly trace?: ReadonlyArray<{ readonly startedAt?: string; readonly endedAt?: string }>;
}

/** Starts a node script and waits for the first output line that matches. */
async function startProcess(args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it was ready`)));
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const found = ready.exec(line);
      if (found) resolve(found);
    });
  });
  // Keep reading, so a full pipe never stalls the process.
  child.stdout!.resume();
  return { child, match };
}

function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : Number.NaN;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runServerBenchmark(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-workflows-bench-server-'));
  const key = randomBytes(16).toString('hex');
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const children: ChildProcess[] = [];
  try {
    const echo = await startProcess([join(__dirname, 'echoServer.js')], /^(\d+)$/);
    children.push(echo.child);
    const api = `http://127.0.0.1:${echo.match[1]}`;
    writeFileSync(join(dir, 'orders.agent.yaml'), loadAgent(api));
    writeFileSync(join(dir, 'parallel.agent.yaml'), parallelAgent(api));
    const server = await startProcess(
      [join(__dirname, '..', '..', 'dist', 'cli.js'), 'serve', dir, '--port', '0', '--api-key', key],
      /listening on (http:\/\/\S+)/,
    );
    children.push(server.child);
    const base = server.match[1]!;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const errors: string[] = [];
    const startLatencies: number[] = [];
    const statusLatencies: number[] = [];
    const endTimes: number[] = [];

    const startExecution = async (agent: string, inputs: Record<string, unknown>): Promise<string | undefined> => {
      const began = performance.now();
      const answer = await request(`${base}/api/local/agent/${agent}/execute`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ inputs, stream: false }),
        dispatcher,
      });
      const body = (await answer.body.json()) as { status?: string; executionId?: string; error?: string };
      startLatencies.push(performance.now() - began);
      if (answer.statusCode !== 200 || body.status !== 'ok' || !body.executionId) {
        errors.push(`start answered ${answer.statusCode}: ${JSON.stringify(body)}`);
        return undefined;
      }
      return body.executionId;
    };
    // Independent clients do not poll in step: the first read comes at a random point of the
    // first interval, then one every interval.
    const poll = async (executionId: string, record: boolean): Promise<StatusBody | undefined> => {
      for (let wait = Math.random() * POLL_INTERVAL_MS; ; wait = POLL_INTERVAL_MS) {
        await sleep(wait);
        const began = performance.now();
        const answer = await request(`${base}/api/local/agent/${executionId}/status`, { headers, dispatcher });
        const body = (await answer.body.json()) as StatusBody;
        if (record) statusLatencies.push(performance.now() - began);
        if (answer.statusCode !== 200) {
          errors.push(`status answered ${answer.statusCode}: ${JSON.stringify(body)}`);
          return undefined;
        }
        if (body.status !== 'running' && body.status !== 'queued') return body;
      }
    };
    const check = (n: number, done: StatusBody | undefined, record: boolean): void => {
      if (!done) return;
      const expected = JSON.stringify({ order: `/orders/${n}`, n });
      if (done.status !== 'finished') errors.push(`execution ${n} ${done.status}: ${done.error ?? ''}`);
      else if (done.outputs?.summary !== `${expected} 200`) errors.push(`execution ${n} gave ${JSON.stringify(done.outputs)}`);
      else if (record) endTimes.push(Date.parse(done.endedAt!));
    };
    const guarded = async <T>(what: string, work: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await work();
      } catch (error) {
        errors.push(`${what}: ${(error as Error).message}`);
        return undefined;
      }
    };
    /** Starts every execution at once, then polls them all while they run. */
    const load = async (count: number, record: boolean): Promise<void> => {
      const ids = await Promise.all(
        Array.from({ length: count }, (_, n) => guarded(`starting execution ${n}`, () => startExecution('orders', { n }))),
      );
      await Promise.all(
        ids.map(async (id, n) => (id ? check(n, await guarded(`polling execution ${n}`, () => poll(id, record)), record) : undefined)),
      );
    };

    // Warm up code paths and open the connections the load will use, unmeasured.
    await load(20, false);
    const warmId = await startExecution('orders', { n: 0 });
    await Promise.all(
      Array.from({ length: EXECUTIONS + 100 }, async () => {
        const answer = await request(`${base}/api/local/agent/${warmId}/status`, { headers, dispatcher });
        await answer.body.text();
      }),
    );
    errors.length = 0;
    startLatencies.length = 0;

    // The reference: the same burst against a server that does nothing but answer.
    const bare: number[] = [];
    await Promise.all(
      Array.from({ length: EXECUTIONS }, async (_, n) => {
        const began = performance.now();
        const answer = await request(`${api}/execute`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ inputs: { n }, stream: false }),
          dispatcher,
        });
        await answer.body.text();
        bare.push(performance.now() - began);
      }),
    );
    bare.sort((a, b) => a - b);

    const loadStarted = Date.now();
    await load(EXECUTIONS, true);
    const wallSeconds = (Math.max(...endTimes) - loadStarted) / 1000;

    const overlap: Array<{ durationMs: number; spanMs: number }> = [];
    for (let run = 0; run < OVERLAP_RUNS; run++) {
      const id = await startExecution('parallel', {});
      const done = id ? await poll(id, false) : undefined;
      if (!done || done.status !== 'finished') {
        errors.push(`the parallel agent ended ${done?.status ?? 'without an answer'}: ${done?.error ?? ''}`);
        continue;
      }
      const calls = (done.trace ?? []).slice(0, PARALLEL_NODES);
      const spanMs =
        Math.max(...calls.map((node) => Date.parse(node.endedAt!))) - Math.min(...calls.map((node) => Date.parse(node.startedAt!)));
      overlap.push({ durationMs: done.durationMs ?? Number.NaN, spanMs });
    }

    const exitCode = await stop(server.child);
    if (exitCode !== 0) errors.push(`serve exited ${exitCode} on SIGTERM instead of 0`);

    statusLatencies.sort((a, b) => a - b);
    startLatencies.sort((a, b) => a - b);
    const medianDuration = overlap.map((run) => run.durationMs).sort((a, b) => a - b)[Math.floor(overlap.length / 2)] ?? Number.NaN;
    const limit = NODE_DELAY_MS * 1.3;
    const p99 = percentile(statusLatencies, 0.99);
    const ok = errors.length === 0 && endTimes.length === EXECUTIONS && p99 < 50 && medianDuration < limit;

    console.log(
      `Local agent server: ${EXECUTIONS} executions started at once (4 nodes, 3 API calls each to a local echo API answering after ${API_DELAY_MS - API_JITTER_MS} to ${API_DELAY_MS + API_JITTER_MS} ms), status read every ${POLL_INTERVAL_MS} ms (first read at random within that); server, API and client in separate processes`,
    );
    console.log(
      table([
        ['measure', 'result', 'target'],
        ['executions finished', `${endTimes.length}/${EXECUTIONS}`, `${EXECUTIONS}`],
        ['errors', String(errors.length), '0'],
        ['throughput', `${(EXECUTIONS / wallSeconds).toFixed(0)} executions/s (${wallSeconds.toFixed(2)} s)`, ''],
        [
          'start latency p50 / p99',
          `${percentile(startLatencies, 0.5).toFixed(1)} / ${percentile(startLatencies, 0.99).toFixed(1)} ms`,
          '',
        ],
        ['  reference: bare server', `${percentile(bare, 0.5).toFixed(1)} / ${percentile(bare, 0.99).toFixed(1)} ms`, ''],
        [
          'status latency p50 / p99',
          `${percentile(statusLatencies, 0.5).toFixed(1)} / ${p99.toFixed(1)} ms (${statusLatencies.length} requests)`,
          'p99 < 50 ms',
        ],
        [
          `${PARALLEL_NODES} parallel ${NODE_DELAY_MS} ms nodes`,
          `${medianDuration.toFixed(0)} ms median execution (runs: ${overlap.map((run) => `${run.durationMs.toFixed(0)}`).join(', ')} ms; nodes spanned ${overlap.map((run) => run.spanMs).join(', ')} ms)`,
          `< ${limit} ms`,
        ],
      ]),
    );
    for (const error of errors.slice(0, 10)) console.log(`  error: ${error}`);
    if (errors.length > 10) console.log(`  … and ${errors.length - 10} more errors`);
    return ok;
  } finally {
    await Promise.all(children.map((child) => stop(child)));
    await dispatcher.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
