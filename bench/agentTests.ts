// The cost of the agent-test layer: 1,000 cases of a 5-node agent run locally (test file read and
// checked, each case's mocks, expectations checked) against running the same agent 1,000 times in
// this process without the test layer, 8 at a time both. Target: the test layer costs at most 1.2x.
// Without the test layer is a plain harness: the same file read with yaml's parse (the parser the
// stack fixes, as fast as it reads), then the engine run with each case's inputs, secrets and mocked
// answers, and nothing checked. The verdict is on a file that writes every case out in full; the
// same cases with their shared secrets and mocks under defaults: are timed too, and the engine alone
// with its data in code shows what reading 1,000 cases costs by itself.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { parse } from 'yaml';
import { loadAgent } from '../src/core/engine/agentPlan';
import { executeAgent } from '../src/core/engine/engine';
import { resolveInputs } from '../src/core/engine/inputs';
import { writeSnapshots } from '../src/core/testing/snapshot';
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

/** A case as the harness reads it: no checks, defaults merged by hand. */
interface HarnessCase {
  readonly inputs: Record<string, unknown>;
  readonly secrets: Record<string, string>;
  readonly mocks: Record<string, { status?: number; body?: unknown }>;
}

/** Answers each mocked node with a MockAgent, as the test layer does; closes them after the run. */
function mockAgents(mocks: HarnessCase['mocks']): Map<string, MockAgent> {
  return new Map(
    Object.entries(mocks).map(([node, mock]) => {
      const mockAgent = new MockAgent();
      mockAgent.disableNetConnect();
      mockAgent
        .get(() => true)
        .intercept({ path: () => true, method: () => true })
        .reply(mock.status ?? 200, JSON.stringify(mock.body), { headers: { 'content-type': 'application/json' } })
        .persist();
      return [node, mockAgent] as const;
    }),
  );
}

/** Runs the agent once per case, CONCURRENCY at a time, with the engine alone. */
async function runWithEngine(cases: readonly HarnessCase[]): Promise<void> {
  const agent = loadAgent(AGENT, 'five.agent.yaml');
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++;
      const testCase = cases[i]!;
      const mocks = mockAgents(testCase.mocks);
      const result = await executeAgent(agent, resolveInputs(agent.model, { values: testCase.inputs }), {
        secrets: async (name) => testCase.secrets[name],
        dispatcherFor: (node) => mocks.get(node),
      });
      if (result.status !== 'finished') throw new Error(`engine run ${i} ended ${result.status}`);
      await Promise.all([...mocks.values()].map((mockAgent) => mockAgent.close()));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** Without the test layer: the file read with yaml's parse, each case run by the engine, nothing checked. */
async function harness(testFile: string): Promise<{ load: number; total: number }> {
  const started = performance.now();
  type Written = Partial<HarnessCase>;
  const file = parse(readFileSync(testFile, 'utf8'), { uniqueKeys: false }) as { defaults?: Written; cases: Record<string, Written> };
  const defaults = file.defaults ?? {};
  const cases = Object.values(file.cases).map((written): HarnessCase => ({
    inputs: { ...defaults.inputs, ...written.inputs },
    secrets: { ...defaults.secrets, ...written.secrets },
    mocks: { ...defaults.mocks, ...written.mocks },
  }));
  const load = performance.now() - started;
  await runWithEngine(cases);
  return { load, total: performance.now() - started };
}

/** The engine alone with its data in code: the same runs with no file to read. */
async function engineOnly(): Promise<number> {
  const mocks = Object.fromEntries(Object.entries(ANSWERS).map(([node, body]) => [node, { body }]));
  const cases = Array.from({ length: CASES }, (_, i): HarnessCase => ({ inputs: { customer: `C${i}` }, secrets: SECRETS, mocks }));
  const started = performance.now();
  await runWithEngine(cases);
  return performance.now() - started;
}

/**
 * `test --update`'s writing of the snapshots into the file, for N and 4N cases: the time per case
 * stays the same when the work is linear (it was quadratic: 25-41 s for 20,000 cases).
 */
function snapshotUpdateRows(): string[][] {
  return [5_000, 20_000].map((count) => {
    const text = `cases:\n${Array.from({ length: count }, (_, i) => `  case ${i}:\n    snapshot: true\n    expect:\n      within_ms: 100\n`).join('')}`;
    const snapshots = new Map(Array.from({ length: count }, (_, i) => [`case ${i}`, { report: `Ada: ${i} orders`, score: i }] as const));
    const started = performance.now();
    writeSnapshots(text, snapshots);
    const ms = performance.now() - started;
    return [`--update writes ${count} snapshots`, seconds(ms), `${((ms * 1000) / count).toFixed(0)} µs`];
  });
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const perSecond = (ms: number): string => (CASES / (ms / 1000)).toFixed(0);

interface Timed {
  readonly load: number;
  readonly total: number;
}

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
    const runs = {
      spelledOut: [] as Timed[],
      spelledOutHarness: [] as Timed[],
      defaults: [] as Timed[],
      defaultsHarness: [] as Timed[],
      engine: [] as number[],
    };
    // Each round runs every side once, so a slow spell of the machine lands on all of them.
    for (let round = 0; round < 3; round++) {
      runs.spelledOut.push(await testLayer(spelledOut));
      runs.spelledOutHarness.push(await harness(spelledOut));
      runs.defaults.push(await testLayer(withDefaults));
      runs.defaultsHarness.push(await harness(withDefaults));
      runs.engine.push(await engineOnly());
    }
    const engine = Math.min(...runs.engine);
    /** The fastest run, with the time it took to read its file in that same run. */
    const fastest = (of: Timed[]): Timed => of.reduce((best, run) => (run.total < best.total ? run : best));
    const ratio = (ms: number, reference: number): string => `${(ms / reference).toFixed(2)}x`;
    const rows = (label: string, run: Timed, reference: Timed): string[][] => [
      [label, seconds(run.total), perSecond(run.total), ratio(run.total, reference.total), ratio(run.total, engine)],
      ['  of which reading the test file', seconds(run.load), '', ratio(run.load, reference.load), ''],
      [
        '  of which running the cases',
        seconds(run.total - run.load),
        perSecond(run.total - run.load),
        ratio(run.total - run.load, reference.total - reference.load),
        ratio(run.total - run.load, engine),
      ],
    ];
    const spelledOutHarness = fastest(runs.spelledOutHarness);
    const defaultsHarness = fastest(runs.defaultsHarness);
    const headline = fastest(runs.spelledOut).total / spelledOutHarness.total;
    console.log(
      `Agent tests: ${CASES} cases of a 5-node agent, ${CONCURRENCY} at a time, best of 3 (target: the test layer <= ${TARGET_RATIO}x the same cases run without it)`,
    );
    console.log(
      table([
        ['run', 'time', 'cases/s', 'vs without', 'vs engine'],
        ...rows('test layer, every case written out (read, check, mock, expect)', fastest(runs.spelledOut), spelledOutHarness),
        ...rows('  without the test layer (yaml parse, engine, no checks)', spelledOutHarness, spelledOutHarness),
        ...rows('test layer, shared secrets and mocks under defaults:', fastest(runs.defaults), defaultsHarness),
        ...rows('  without the test layer (yaml parse, engine, no checks)', defaultsHarness, defaultsHarness),
        ['the engine alone, the cases in code (no file to read)', seconds(engine), perSecond(engine), '', '1.00x'],
      ]),
    );
    console.log(`Verdict: every case written out, the test layer costs ${headline.toFixed(2)}x running the same file without it.`);
    console.log(table([['snapshots (linear: the same time per case)', 'time', 'per case'], ...snapshotUpdateRows()]));
    return headline <= TARGET_RATIO;
  } finally {
    removeDir(dir);
  }
}
