// Issue 23's bound on Send Request: `sendNode` (building the node's request, the secrets looked up
// and masked, the exchange recorded) adds at most 5 ms, median of 200, over the same request made
// with undici alone, both in this process, in alternation, against the echo API in a process of
// its own (so its work is not counted on either side).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { loadAgent } from '../src/core/engine/agentPlan';
import { resolveInputs } from '../src/core/engine/inputs';
import { sendNode } from '../src/core/exchange/sendNode';
import { table, waitForReadyLine } from './support';

const RUNS = 200;
const WARMUP = 20;
const TARGET_MS = 5;
const TOKEN = 'bench-send-token-0123456789';

export async function runSendBenchmark(): Promise<boolean> {
  const echo = spawn(process.execPath, [join(__dirname, 'echoServer.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [, port] = await waitForReadyLine(echo, /^(\d+)$/, (code) => `the echo API exited (${code}) before it was ready`);
    const base = `http://127.0.0.1:${port}`;
    const agent = loadAgent(
      `version: 1
name: Bench send
inputs:
  city: { type: string }
nodes:
  call:
    type: api
    method: POST
    url: "${base}/weather/{{ inputs.city }}?units=metric"
    settings: ["Authorization: Bearer {{ secrets.TOKEN }}", "Accept: application/json"]
    body: { city: "{{ inputs.city }}", days: 3 }
`,
      'bench.agent.yaml',
    );
    const inputs = resolveInputs(agent.model, { values: { city: 'Lisbon' } });
    const secrets = async (): Promise<string> => TOKEN;
    const viaSend = async (): Promise<void> => {
      const outcome = await sendNode(agent, 'call', { inputs, secrets });
      if (outcome.exchange.response?.status !== 200) throw new Error(`send answered ${outcome.exchange.response?.status}`);
    };
    const viaUndici = async (): Promise<void> => {
      const response = await request(`${base}/weather/Lisbon?units=metric`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          Accept: 'application/json',
          'User-Agent': 'agent-workflows/bench',
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ city: 'Lisbon', days: 3 }),
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`undici answered ${response.statusCode}`);
    };
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const [side, work] of [
        [0, viaSend],
        [1, viaUndici],
      ] as const) {
        const start = process.hrtime.bigint();
        await work();
        if (i >= WARMUP) times[side].push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
    const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const send = median(times[0]);
    const undici = median(times[1]);
    const added = send - undici;
    console.log(`Send Request: sendNode against undici alone (median of ${RUNS}, alternating; target: adds <= ${TARGET_MS} ms)`);
    console.log(
      table([
        ['request', 'median'],
        ['sendNode (build, secrets, exchange)', `${send.toFixed(2)} ms`],
        ['undici request alone', `${undici.toFixed(2)} ms`],
        ['added by send', `${added.toFixed(2)} ms`],
      ]),
    );
    return added <= TARGET_MS;
  } finally {
    echo.kill('SIGTERM');
  }
}
