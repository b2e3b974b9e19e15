// The cost of the agent-test layer: 1,000 cases of a 5-node agent run locally (test file read and
// checked, each case's mocks, expectations checked) against running the same agent 1,000 times in
// this process with the engine and the same mocked answers but no test layer, 8 at a time both.
// Target: the test layer costs at most 1.2x. The verdict is on a file that writes every case out in
// full; the same cases with their shared secrets and mocks under defaults: are timed too.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { loadAgent } from '../src/core/engine/agentPlan';
import { executeAgent } from '../src/core/engine/engine';
import { resolveInputs } from '../src/core/engine/inputs';
import { loadSuite, runSuite } from '../src/core/testing/suite';
import { makeTempDir, removeDir } from '../test/host/common';
import { table } from './support';

const CASES = 1000;
const CONCURRENCY = 8;
const TARGET_RATIO = 1.2;

const AGENT = `version: 1
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
  score: { from: "{{ nodes.score.body.value }}" }
`;

const ANSWERS: Record<string, unknown> = { profile: { name: 'Ada' }, orders: { count: 3 }, score: { value: 42 } };
const SECRETS: Record<string, string> = { CRM_TOKEN: 'bench-crm-token', SHOP_KEY: 'bench-shop-key' };

const MOCKS = `profile: { body: { name: Ada }, expect_request: { headers: { authorization: Bearer bench-crm-token } } }
orders: { body: { count: 3 } }
score: { body: { value: 42 } }`;
const CASE_SECRETS = '{ CRM_TOKEN: bench-crm-token, SHOP_KEY: bench-shop-key }';
const CASE_EXPECT = 'outputs: { report: "Ada: 3 orders, score 42", score: { $gte: 0 } }';
const indent = (text: string, spaces: number): string => text.replace(/^/gm, ' '.repeat(spaces));

/** Every case written out in full: its secrets and mocks repeated (the headline, the most to read). */
function spelledOutTestFile(): string {
  const cases = Array.from(
    { length: CASES },
    (_, i) => `  case ${i}:
    inputs: { customer: C${i} }
    secrets: ${CASE_SECRETS}
    mocks:
${indent(MOCKS, 6)}
    expect:
      ${CASE_EXPECT}
`,
  );
  return `agent: five.agent.yaml\ncases:\n${cases.join('')}`;
}

/** The same cases with the secrets and mocks they share written once, under defaults:. */
function defaultsTestFile(): string {
  const cases = Array.from(
    { length: CASES },
    (_, i) => `  case ${i}:\n    inputs: { customer: C${i} }\n    expect:\n      ${CASE_EXPECT}\n`,
  );
  return `agent: five.agent.yaml\ndefaults:\n  secrets: ${CASE_SECRETS}\n  mocks:\n${indent(MOCKS, 4)}\ncases:\n${cases.join('')}`;
}

/** One run of a test file through the test layer: the time to read it, and in all. */
async function testLayer(testFile: string): Promise<{ load: number; total: number }> {
  const started = performance.now();
  const suite = loadSuite(testFile);
  if (!('suite' in suite)) throw new Error(`the bench's test file does not load: ${suite.message}`);
  const load = performance.now() - started;
  const results = await runSuite(suite, { concurrency: CONCURRENCY });
  const failed = results.filter((result) => !result.passed);
  if (results.length !== CASES || failed.length)
    throw new Error(`${failed.length} of ${results.length} cases failed: ${failed[0]?.failures[0]?.message ?? ''}`);
  return { load, total: performance.now() - started };
}

/** The engine alone: each node answered by a MockAgent, as the test layer does, no checks. */
async function engineOnly(): Promise<number> {
  const agent = loadAgent(AGENT, 'five.agent.yaml');
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < CASES) {
      const i = next++;
      const mocks = new Map(
        Object.entries(ANSWERS).map(([node, body]) => {
          const mockAgent = new MockAgent();
          mockAgent.disableNetConnect();
          mockAgent
            .get(() => true)
            .intercept({ path: () => true, method: () => true })
            .reply(200, JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
            .persist();
          return [node, mockAgent] as const;
        }),
      );
      const result = await executeAgent(agent, resolveInputs(agent.model, { values: { customer: `C${i}` } }), {
        secrets: async (name) => SECRETS[name],
        dispatcherFor: (node) => mocks.get(node),
      });
      if (result.status !== 'finished') throw new Error(`engine run ${i} ended ${result.status}`);
      await Promise.all([...mocks.values()].map((mockAgent) => mockAgent.close()));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return performance.now() - started;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const perSecond = (ms: number): string => (CASES / (ms / 1000)).toFixed(0);

export async function runAgentTestsBenchmark(): Promise<boolean> {
  const dir = makeTempDir('agent-workflows-bench-tests-');
  try {
    writeFileSync(join(dir, 'five.agent.yaml'), AGENT);
    const spelledOut = join(dir, 'five.agent.test.yaml');
    const withDefaults = join(dir, 'defaults', 'five.agent.test.yaml');
    writeFileSync(spelledOut, spelledOutTestFile());
    mkdirSync(join(dir, 'defaults'));
    writeFileSync(join(dir, 'defaults', 'five.agent.yaml'), AGENT);
    writeFileSync(withDefaults, defaultsTestFile());
    const runs: { spelledOut: Array<{ load: number; total: number }>; defaults: Array<{ load: number; total: number }>; engine: number[] } =
      { spelledOut: [], defaults: [], engine: [] };
    for (let round = 0; round < 3; round++) {
      runs.spelledOut.push(await testLayer(spelledOut));
      runs.defaults.push(await testLayer(withDefaults));
      runs.engine.push(await engineOnly());
    }
    const engine = Math.min(...runs.engine);
    /** The fastest run of a file, with the time it took to read it in that same run. */
    const fastest = (of: Array<{ load: number; total: number }>): { load: number; total: number } =>
      of.reduce((best, run) => (run.total < best.total ? run : best));
    const rows = (label: string, run: { load: number; total: number }): string[][] => [
      [label, seconds(run.total), perSecond(run.total), `${(run.total / engine).toFixed(2)}x`],
      ['  of which reading and checking the test file (YAML parse)', seconds(run.load), '', ''],
      [
        '  of which running the cases and checking them',
        seconds(run.total - run.load),
        perSecond(run.total - run.load),
        `${((run.total - run.load) / engine).toFixed(2)}x`,
      ],
    ];
    const headline = fastest(runs.spelledOut);
    const ratio = headline.total / engine;
    console.log(
      `Agent tests: ${CASES} cases of a 5-node agent, ${CONCURRENCY} at a time, best of 3 (target: test layer <= ${TARGET_RATIO}x the engine alone)`,
    );
    console.log(
      table([
        ['run', 'time', 'cases/s', 'ratio'],
        ...rows('test layer, every case written out (read, check, mocks, expectations)', headline),
        ...rows('test layer, shared secrets and mocks under defaults:', fastest(runs.defaults)),
        ['the engine alone, same mocked answers', seconds(engine), perSecond(engine), '1.00x'],
      ]),
    );
    return ratio <= TARGET_RATIO;
  } finally {
    removeDir(dir);
  }
}
