// The cost of the agent-test layer: 1,000 cases of a 5-node agent run locally (test file read and
// checked, each case's mocks, expectations checked) against running the same agent 1,000 times in
// this process with the engine and the same mocked answers but no test layer, 8 at a time both.
// Target: the test layer costs at most 1.2x.
import { writeFileSync } from 'node:fs';
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

function testFile(): string {
  const cases = Array.from(
    { length: CASES },
    (_, i) => `  case ${i}:
    inputs: { customer: C${i} }
    secrets: { CRM_TOKEN: bench-crm-token, SHOP_KEY: bench-shop-key }
    mocks:
      profile: { body: { name: Ada }, expect_request: { headers: { authorization: Bearer bench-crm-token } } }
      orders: { body: { count: 3 } }
      score: { body: { value: 42 } }
    expect:
      outputs: { report: "Ada: 3 orders, score 42", score: { $gte: 0 } }
`,
  );
  return `agent: five.agent.yaml\ncases:\n${cases.join('')}`;
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

export async function runAgentTestsBenchmark(): Promise<boolean> {
  const dir = makeTempDir('agent-workflows-bench-tests-');
  try {
    writeFileSync(join(dir, 'five.agent.yaml'), AGENT);
    writeFileSync(join(dir, 'five.agent.test.yaml'), testFile());
    const times: { tests: number[]; engine: number[]; load: number[] } = { tests: [], engine: [], load: [] };
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      const suite = loadSuite(join(dir, 'five.agent.test.yaml'));
      if (!('suite' in suite)) throw new Error(`the bench's test file does not load: ${suite.message}`);
      times.load.push(performance.now() - started);
      const results = await runSuite(suite, { concurrency: CONCURRENCY });
      const failed = results.filter((result) => !result.passed);
      if (results.length !== CASES || failed.length)
        throw new Error(`${failed.length} of ${results.length} cases failed: ${failed[0]?.failures[0]?.message ?? ''}`);
      times.tests.push(performance.now() - started);
      times.engine.push(await engineOnly());
    }
    const best = (values: number[]): number => Math.min(...values);
    const tests = best(times.tests);
    const engine = best(times.engine);
    const ratio = tests / engine;
    console.log(
      `Agent tests: ${CASES} cases of a 5-node agent, ${CONCURRENCY} at a time, best of 3 (target: test layer <= ${TARGET_RATIO}x the engine alone)`,
    );
    console.log(
      table([
        ['run', 'time', 'cases/s', 'ratio'],
        [
          'agent-workflows test layer (read, check, mocks, expectations)',
          `${(tests / 1000).toFixed(2)} s`,
          (CASES / (tests / 1000)).toFixed(0),
          `${ratio.toFixed(2)}x`,
        ],
        ['  of which reading and checking the test file (YAML parse)', `${(best(times.load) / 1000).toFixed(2)} s`, '', ''],
        [
          '  of which running the cases and checking them',
          `${((tests - best(times.load)) / 1000).toFixed(2)} s`,
          (CASES / ((tests - best(times.load)) / 1000)).toFixed(0),
          `${((tests - best(times.load)) / engine).toFixed(2)}x`,
        ],
        ['the engine alone, same mocked answers', `${(engine / 1000).toFixed(2)} s`, (CASES / (engine / 1000)).toFixed(0), '1.00x'],
      ]),
    );
    return ratio <= TARGET_RATIO;
  } finally {
    removeDir(dir);
  }
}
