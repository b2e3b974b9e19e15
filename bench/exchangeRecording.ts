// What keeping every API node's exchange costs (issue 23): the same work with recording on and off,
// in the same run, rounds interleaved so a slow spell of the machine lands on both. Target: at most
// 1.05x on each.
// - Agent tests: 1,000 cases of a 5-node agent (3 API nodes answered by mocks), 8 at a time, as the
//   agent-test bench runs them; recording is what `runCase` does by default.
// - The local server: 500 executions started at once of a 3-API-node workflow against an echo API
//   (in a process of its own) that answers after 50 to 150 ms, as the server bench's; the server
//   in this process, so its CPU time is measured. Time and CPU until every execution has ended.
// Each has a control, recording off on both sides of a pair: how far apart the same work lands on
// this machine, beside the ratio it is read against.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { startAgentServer } from '../src/core/server/agentServer';
import { keptForReport } from '../src/core/testing/report';
import { loadSuite, runSuite } from '../src/core/testing/suite';
import { table } from './support';

const TARGET_RATIO = 1.05;
/**
 * Pairs of runs, one with and one without, in alternating order; the verdict is their median ratio.
 * A control pair on this machine lands up to 18 % apart: 16 pairs keep the median within about 2 %.
 * The agent tests take a fifth of a server run and vary more: they get more pairs.
 */
const ROUNDS = 16;
const TEST_ROUNDS = 32;
const CASES = 1000;
const EXECUTIONS = 500;

const TESTED_AGENT = `version: 1
name: Five nodes
inputs:
  customer: { type: string, required: true }
nodes:
  profile:
    type: api
    method: GET
    url: https://crm.example.com/customers/{{ inputs.customer }}
    settings: ["Authorization: Bearer {{ secrets.CRM_TOKEN }}"]
  orders:
    type: api
    method: GET
    url: https://shop.example.com/orders?customer={{ inputs.customer }}
    settings: ["x-api-key: {{ secrets.SHOP_KEY }}"]
  score:
    type: api
    method: POST
    url: https://score.example.com/v1/score
    settings: ["Content-Type: application/json", "x-api-key: {{ secrets.SHOP_KEY }}"]
    body: { name: "{{ nodes.profile.body.name }}", orders: "{{ nodes.orders.body.count }}" }
  line:
    type: template
    text: "{{ nodes.profile.body.name }}: {{ nodes.orders.body.count }} orders"
  report:
    type: template
    text: "{{ nodes.line.body }}, score {{ nodes.score.body.value }}"
outputs:
  report: { from: "{{ nodes.report.body }}" }
`;

const testFile = (): string =>
  `agent: five.agent.yaml\ncases:\n${Array.from(
    { length: CASES },
    (_, i) => `  case ${i}:
    inputs: { customer: C${i} }
    secrets: { CRM_TOKEN: bench-crm-token, SHOP_KEY: bench-shop-key }
    mocks:
      profile: { body: { name: Ada } }
      orders: { body: { count: 3 } }
      score: { body: { value: 42 } }
    expect:
      outputs: { report: "Ada: 3 orders, score 42" }
`,
  ).join('')}`;

const servedAgent = (api: string): string => `version: 1
name: Order enrichment
inputs:
  n: { type: number, required: true }
nodes:
  fetch_order:
    type: api
    method: GET
    url: ${api}/orders/{{ inputs.n }}?delay=100&jitter=50
    settings: ["Accept: application/json", "Authorization: Bearer {{ secrets.ORDERS_TOKEN }}"]
  enrich:
    type: api
    method: POST
    url: ${api}/enrich?delay=100&jitter=50
    settings: ["Content-Type: application/json"]
    body: { order: "{{ nodes.fetch_order.body.path }}", n: "{{ inputs.n }}" }
  audit:
    type: api
    method: POST
    url: ${api}/audit?delay=100&jitter=50
    settings: ["Content-Type: application/json"]
    body: { order: "{{ nodes.fetch_order.body.path }}" }
outputs:
  order: { from: "{{ nodes.enrich.body.body }}" }
`;

interface Measured {
  readonly ms: number;
  /** CPU time of this process (user + system). */
  readonly cpuMs: number;
}

async function measure(work: () => Promise<void>): Promise<Measured> {
  global.gc?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

async function agentTests(file: string, recordExchanges: boolean): Promise<Measured> {
  const suite = loadSuite(file);
  if (!('suite' in suite)) throw new Error(`the bench's test file does not load: ${suite.message}`);
  return measure(async () => {
    // As `agent-workflows test` keeps them: each case's report, the exchanges let go.
    const results = await runSuite(suite, { concurrency: 8, recordExchanges, keep: (result) => keptForReport(result) });
    const failed = results.filter((result) => !result.passed);
    if (failed.length) throw new Error(`${failed.length} cases failed: ${failed[0]?.failures[0]?.message ?? ''}`);
  });
}

async function server(dir: string, recordExchanges: boolean): Promise<Measured> {
  let ended = 0;
  let allEnded: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allEnded = resolve));
  const failures: string[] = [];
  const served = await startAgentServer({
    directory: dir,
    port: 0,
    apiKey: 'bench-key',
    watch: false,
    secrets: async () => 'bench-orders-token',
    limits: recordExchanges ? {} : { maxRetainedExchangeBytes: 0 },
    onEvent: (event) => {
      if (event.kind !== 'execution-ended') return;
      if (event.execution.status !== 'finished') failures.push(`${event.execution.status}: ${event.execution.error ?? ''}`);
      if (++ended === EXECUTIONS) allEnded();
    },
  });
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  try {
    const start = async (n: number): Promise<string> => {
      const answer = await request(`${served.url}/api/local/agent/orders/execute`, {
        method: 'POST',
        headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: { n }, stream: false }),
        dispatcher,
      });
      const body = (await answer.body.json()) as { executionId?: string };
      if (answer.statusCode !== 200 || !body.executionId) throw new Error(`start answered ${answer.statusCode}`);
      return body.executionId;
    };
    const measured = await measure(async () => {
      const ids = await Promise.all(Array.from({ length: EXECUTIONS }, (_, n) => start(n)));
      await done;
      // The exchanges are there (or not) as asked.
      const answer = await request(`${served.url}/api/local/agent/${ids[0]}/exchanges`, {
        headers: { authorization: 'Bearer bench-key' },
        dispatcher,
      });
      await answer.body.text();
      if (answer.statusCode !== (recordExchanges ? 200 : 410)) throw new Error(`exchanges answered ${answer.statusCode}`);
    });
    if (failures.length) throw new Error(`${failures.length} executions failed: ${failures[0]}`);
    return measured;
  } finally {
    await dispatcher.close();
    await served.close();
  }
}

async function startEcho(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(__dirname, 'echoServer.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the echo API exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  child.stdout!.resume();
  return { child, url: `http://127.0.0.1:${port.trim()}` };
}

export async function runExchangeRecordingBenchmark(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-workflows-bench-exchanges-'));
  const echo = await startEcho();
  try {
    const testsDir = join(dir, 'tests');
    const serverDir = join(dir, 'served');
    mkdirSync(testsDir);
    mkdirSync(serverDir);
    writeFileSync(join(testsDir, 'five.agent.yaml'), TESTED_AGENT);
    writeFileSync(join(testsDir, 'five.agent.test.yaml'), testFile());
    writeFileSync(join(serverDir, 'orders.agent.yaml'), servedAgent(echo.url));

    const runs = {
      testsOn: [] as Measured[],
      testsOff: [] as Measured[],
      serverOn: [] as Measured[],
      serverOff: [] as Measured[],
      // The controls: recording off on both sides of a pair, to show how far apart two runs of the
      // same work land on this machine.
      testsControlA: [] as Measured[],
      testsControlB: [] as Measured[],
      controlA: [] as Measured[],
      controlB: [] as Measured[],
    };
    // Warm-up, unmeasured.
    await agentTests(join(testsDir, 'five.agent.test.yaml'), true);
    await server(serverDir, true);
    // Which side goes first alternates too.
    const orderOf = (round: number): boolean[] => (round % 2 === 0 ? [true, false] : [false, true]);
    for (let round = 0; round < TEST_ROUNDS; round++) {
      const order = orderOf(round);
      for (const on of order) (on ? runs.testsOn : runs.testsOff).push(await agentTests(join(testsDir, 'five.agent.test.yaml'), on));
      for (const first of order)
        (first ? runs.testsControlA : runs.testsControlB).push(await agentTests(join(testsDir, 'five.agent.test.yaml'), false));
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = orderOf(round);
      for (const on of order) (on ? runs.serverOn : runs.serverOff).push(await server(serverDir, on));
      for (const first of order) (first ? runs.controlA : runs.controlB).push(await server(serverDir, false));
    }
    // The machine is shared: each pair's ratio, then their median, rides out a slow spell that best-of
    // alone would credit to one side.
    const median = (values: number[]): number => {
      const sorted = [...values].sort((a, b) => a - b);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
    };
    const pairRatio = (on: Measured[], off: Measured[], key: keyof Measured): number =>
      median(on.map((run, index) => run[key] / off[index]![key]));
    const best = (of: Measured[], key: keyof Measured): number => Math.min(...of.map((run) => run[key]));
    const ms = (value: number): string => `${Math.round(value)} ms`;
    const row = (label: string, on: Measured[], off: Measured[]): string[] => [
      label,
      ms(best(off, 'ms')),
      ms(best(on, 'ms')),
      `${pairRatio(on, off, 'ms').toFixed(3)}x`,
      ms(best(off, 'cpuMs')),
      ms(best(on, 'cpuMs')),
      `${pairRatio(on, off, 'cpuMs').toFixed(3)}x`,
    ];
    console.log(
      `Exchange recording: the same work with and without it, ${TEST_ROUNDS} pairs of agent-test runs and ${ROUNDS} of server runs (best times; ratios: the median of the pairs'; target: <= ${TARGET_RATIO}x)`,
    );
    console.log(
      table([
        ['work', 'time off', 'time on', 'time ratio', 'CPU off', 'CPU on', 'CPU ratio'],
        row(`agent tests: ${CASES} cases, 3 API nodes each`, runs.testsOn, runs.testsOff),
        row('control: the agent tests, recording off on both sides', runs.testsControlA, runs.testsControlB),
        row(`local server: ${EXECUTIONS} executions at once, 3 API nodes each`, runs.serverOn, runs.serverOff),
        row('control: the local server, recording off on both sides', runs.controlA, runs.controlB),
      ]),
    );
    // The tests are CPU-bound: their time is the verdict. The server waits on its API: its CPU is.
    const tests = pairRatio(runs.testsOn, runs.testsOff, 'ms');
    const served = pairRatio(runs.serverOn, runs.serverOff, 'cpuMs');
    console.log(
      `Verdict: recording costs ${tests.toFixed(3)}x on the agent tests (time) and ${served.toFixed(3)}x on the local server (CPU; time ${pairRatio(runs.serverOn, runs.serverOff, 'ms').toFixed(3)}x).`,
    );
    // The spread of a control's pairs says how much of a ratio this machine's noise can make.
    const spread = (a: Measured[], b: Measured[], key: keyof Measured): string => {
      const ratios = a.map((run, index) => run[key] / b[index]![key]).sort((x, y) => x - y);
      return `${median(ratios).toFixed(3)}x, its pairs from ${ratios[0]!.toFixed(3)}x to ${ratios[ratios.length - 1]!.toFixed(3)}x`;
    };
    console.log(
      `Controls (the same work on both sides): agent tests ${spread(runs.testsControlA, runs.testsControlB, 'ms')} (time); local server ${spread(runs.controlA, runs.controlB, 'cpuMs')} (CPU).`,
    );
    return tests <= TARGET_RATIO && served <= TARGET_RATIO;
  } finally {
    echo.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
