// The cost of the agent-test layer: 1,000 cases of a 5-node agent run locally, 8 at a time, against
// the engine running the same cases from the same parsed file. Target: running and checking the
// cases (each case's mocks, what its nodes sent recorded, its expectations checked, its result kept)
// at most 1.2x the engine running them with the same mocked answers and nothing checked. Reading the
// file is reported on its own lines: the test layer's loadSuite (read, checked against the agent)
// against yaml's parse of the same text, for a file that writes every case out in full and for the
// same cases with their shared secrets and mocks under defaults:.
//
// The two runs alternate, each after a full collection (node --expose-gc), several rounds: the
// machine is shared, so the verdict is the median of the per-round ratios, with their spread.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import type { Dispatcher } from 'undici';
import { parse } from 'yaml';
import { loadAgent } from '../src/core/engine/agentPlan';
import { executeAgent } from '../src/core/engine/engine';
import { resolveInputs } from '../src/core/engine/inputs';
import { writeSnapshots } from '../src/core/testing/snapshot';
import { MockReplyDispatcher } from '../src/core/testing/mockDispatcher';
import { keptForReport } from '../src/core/testing/report';
import { loadSuite, runSuite } from '../src/core/testing/suite';
import type { LoadedSuite } from '../src/core/testing/suite';
import { makeTempDir, removeDir } from '../test/host/common';
import { table } from './support';

const CASES = 1000;
const CONCURRENCY = 8;
const TARGET_RATIO = 1.2;
const ROUNDS = 9;
const LOAD_ROUNDS = 5;

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

/** The test layer reading a test file: read, parsed and checked against its agent. */
function loadWithTestLayer(testFile: string): LoadedSuite {
  const loaded = loadSuite(testFile);
  if (!('suite' in loaded)) throw new Error(`the bench's test file does not load: ${loaded.message}`);
  return loaded;
}

/**
 * The test layer running every case as `agent-workflows test` does: mocks, requests recorded,
 * expectations checked, and of each result what the report needs kept.
 */
async function runWithTestLayer(loaded: LoadedSuite): Promise<void> {
  const results = await runSuite(loaded, { concurrency: CONCURRENCY, keep: (result) => keptForReport(result) });
  const failed = results.filter((result) => !result.passed);
  if (results.length !== CASES || failed.length)
    throw new Error(`${failed.length} of ${results.length} cases failed: ${failed[0]?.failures[0]?.message ?? ''}`);
}

/** A case as the plain harness reads it: no checks, defaults merged by hand. */
interface HarnessCase {
  readonly inputs: Record<string, unknown>;
  readonly secrets: Record<string, string>;
  readonly mocks: Record<string, { status?: number; body?: unknown }>;
}

/** The harness reading a test file: yaml's parse, defaults merged, nothing checked. */
function loadWithYaml(testFile: string): HarnessCase[] {
  type Written = Partial<HarnessCase>;
  const file = parse(readFileSync(testFile, 'utf8'), { uniqueKeys: false }) as { defaults?: Written; cases: Record<string, Written> };
  const defaults = file.defaults ?? {};
  return Object.values(file.cases).map((written): HarnessCase => ({
    inputs: { ...defaults.inputs, ...written.inputs },
    secrets: { ...defaults.secrets, ...written.secrets },
    mocks: { ...defaults.mocks, ...written.mocks },
  }));
}

/** How a mocked node is answered: the test layer's own mock transport, or undici's MockAgent (what the test layer used before). */
type Transport = 'mock-reply' | 'mock-agent';

/** Each mocked node's dispatcher for one case, and how to close them after it. */
function caseDispatchers(
  mocks: HarnessCase['mocks'],
  transport: Transport,
): { get: (node: string) => Dispatcher | undefined; close: () => Promise<void> } {
  const answers = (mock: { status?: number; body?: unknown }): { status: number; body: string } => ({
    status: mock.status ?? 200,
    body: JSON.stringify(mock.body),
  });
  if (transport === 'mock-reply') {
    const dispatchers = new Map(
      Object.entries(mocks).map(([node, mock]) => [
        node,
        new MockReplyDispatcher({ ...answers(mock), headers: { 'content-type': 'application/json' }, delayMs: 0 }),
      ]),
    );
    return { get: (node) => dispatchers.get(node), close: async () => {} };
  }
  const mockAgents = new Map(
    Object.entries(mocks).map(([node, mock]) => {
      const mockAgent = new MockAgent();
      mockAgent.disableNetConnect();
      const { status, body } = answers(mock);
      mockAgent
        .get(() => true)
        .intercept({ path: () => true, method: () => true })
        .reply(status, body, { headers: { 'content-type': 'application/json' } })
        .persist();
      return [node, mockAgent] as const;
    }),
  );
  return {
    get: (node) => mockAgents.get(node),
    close: async () => {
      await Promise.all([...mockAgents.values()].map((mockAgent) => mockAgent.close()));
    },
  };
}

/** The engine alone running the agent once per case, CONCURRENCY at a time, with each case's mocked answers; nothing checked. */
async function runWithEngine(cases: readonly HarnessCase[], transport: Transport = 'mock-reply'): Promise<void> {
  const agent = loadAgent(AGENT, 'five.agent.yaml');
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++;
      const testCase = cases[i]!;
      const dispatchers = caseDispatchers(testCase.mocks, transport);
      const result = await executeAgent(agent, resolveInputs(agent.model, { values: testCase.inputs }), {
        secrets: async (name) => testCase.secrets[name],
        dispatcherFor: dispatchers.get,
      });
      if (result.status !== 'finished') throw new Error(`engine run ${i} ended ${result.status}`);
      await dispatchers.close();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

declare const gc: (() => void) | undefined;

/** How long a piece of work took: on the clock, and in this process's CPU (user and system). */
interface Took {
  readonly wallMs: number;
  readonly cpuMs: number;
}

/**
 * Times `work` after a full collection, so that no side pays for the garbage the other left. The
 * machine is shared: the process's CPU time counts only its own work, the wall time others' too.
 */
async function timed(work: () => unknown): Promise<Took> {
  if (typeof gc === 'function') gc();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * Work measured in alternation with a reference: median CPU and wall times of each, and the median
 * and spread of the per-round ratios of CPU time.
 */
interface Compared {
  readonly work: Took;
  readonly reference: Took;
  readonly ratio: number;
  readonly lowest: number;
  readonly highest: number;
}

async function compare(work: () => unknown, reference: () => unknown, rounds: number): Promise<Compared> {
  await work(); // warm-up: both compiled and their modules loaded before anything counts
  await reference();
  const works: Took[] = [];
  const references: Took[] = [];
  for (let round = 0; round < rounds; round++) {
    // Which goes first alternates too: neither always runs right after the other's garbage.
    if (round % 2) {
      references.push(await timed(reference));
      works.push(await timed(work));
    } else {
      works.push(await timed(work));
      references.push(await timed(reference));
    }
  }
  const medians = (of: Took[]): Took => ({ wallMs: median(of.map((took) => took.wallMs)), cpuMs: median(of.map((took) => took.cpuMs)) });
  const ratios = works.map((took, round) => took.cpuMs / references[round]!.cpuMs);
  return {
    work: medians(works),
    reference: medians(references),
    ratio: median(ratios),
    lowest: Math.min(...ratios),
    highest: Math.max(...ratios),
  };
}

/**
 * `test --update`'s writing of the snapshots into the file, for N and 4N cases (fastest of 3): the
 * time per case stays the same when the work is linear (it was quadratic: 25-41 s for 20,000 cases).
 */
function snapshotUpdates(): { rows: string[][]; growth: number } {
  const perCase = [5_000, 20_000].map((count) => {
    const text = `cases:\n${Array.from({ length: count }, (_, i) => `  case ${i}:\n    snapshot: true\n    expect:\n      within_ms: 100\n`).join('')}`;
    const snapshots = new Map(Array.from({ length: count }, (_, i) => [`case ${i}`, { report: `Ada: ${i} orders`, score: i }] as const));
    let ms = Infinity;
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      writeSnapshots(text, snapshots);
      ms = Math.min(ms, performance.now() - started);
    }
    return { count, ms, perCaseMs: ms / count };
  });
  return {
    rows: perCase.map(({ count, ms, perCaseMs }) => [
      `--update writes ${count} snapshots`,
      seconds(ms),
      `${(perCaseMs * 1000).toFixed(0)} µs`,
    ]),
    growth: perCase[1]!.perCaseMs / perCase[0]!.perCaseMs,
  };
}

/** Four times the snapshots may take at most this much more time per case (linear, with noise). */
const SNAPSHOT_GROWTH_TARGET = 1.5;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const perSecond = (ms: number): string => (CASES / (ms / 1000)).toFixed(0);
const times = (ratio: number): string => `${ratio.toFixed(2)}x`;
const spread = (compared: Compared): string => `${times(compared.lowest)}-${times(compared.highest)}`;

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

    const readSpelledOut = await compare(
      () => loadWithTestLayer(spelledOut),
      () => loadWithYaml(spelledOut),
      LOAD_ROUNDS,
    );
    const readDefaults = await compare(
      () => loadWithTestLayer(withDefaults),
      () => loadWithYaml(withDefaults),
      LOAD_ROUNDS,
    );
    // The cases are the same whichever file they come from: run from the file that writes them out.
    const loaded = loadWithTestLayer(spelledOut);
    const parsed = loadWithYaml(spelledOut);
    const running = await compare(
      () => runWithTestLayer(loaded),
      () => runWithEngine(parsed),
      ROUNDS,
    );
    // What the engine's runs cost with undici's MockAgent per mocked node, as the test layer had it.
    const mockAgents = await compare(
      () => runWithEngine(parsed, 'mock-agent'),
      () => runWithEngine(parsed),
      LOAD_ROUNDS,
    );

    console.log(
      `Agent tests: ${CASES} cases of a 5-node agent, ${CONCURRENCY} at a time. Medians of alternating rounds, each after a full collection; ratios of this process's CPU time (the machine may be shared), wall time beside it.`,
    );
    console.log(
      table([
        ['reading the test file', 'rounds', 'test layer CPU', 'yaml parse CPU', 'ratio', 'spread', 'wall times'],
        ...[['every case written out', readSpelledOut] as const, ['shared secrets and mocks under defaults:', readDefaults] as const].map(
          ([label, compared]) => [
            label,
            String(LOAD_ROUNDS),
            seconds(compared.work.cpuMs),
            seconds(compared.reference.cpuMs),
            times(compared.ratio),
            spread(compared),
            `${seconds(compared.work.wallMs)} / ${seconds(compared.reference.wallMs)}`,
          ],
        ),
      ]),
    );
    console.log('');
    const row = (label: string, rounds: number, took: Took, ratio: string, spreadOf: string): string[] => [
      label,
      String(rounds),
      seconds(took.cpuMs),
      perSecond(took.cpuMs),
      ratio,
      spreadOf,
      seconds(took.wallMs),
    ];
    console.log(
      table([
        ['running the cases', 'rounds', 'CPU', 'cases/s', 'ratio', 'spread', 'wall time'],
        row('the test layer (mocks, requests recorded, expectations checked)', ROUNDS, running.work, times(running.ratio), spread(running)),
        row('the engine, the same parsed cases and mocked answers (the reference)', ROUNDS, running.reference, '1.00x', ''),
        row(
          "the engine with undici's MockAgent per mocked node",
          LOAD_ROUNDS,
          mockAgents.work,
          times(mockAgents.ratio),
          spread(mockAgents),
        ),
      ]),
    );
    const met = running.ratio <= TARGET_RATIO;
    console.log(
      `Verdict: running and checking ${CASES} cases takes ${times(running.ratio)} the engine running them (target <= ${TARGET_RATIO}x): ${met ? 'met' : 'MISSED'}.`,
    );
    console.log('');
    const snapshots = snapshotUpdates();
    console.log(table([['snapshots (linear: the same time per case)', 'time', 'per case'], ...snapshots.rows]));
    const linear = snapshots.growth <= SNAPSHOT_GROWTH_TARGET;
    console.log(
      `Snapshots: 4x the cases take ${times(snapshots.growth)} the time per case (target <= ${SNAPSHOT_GROWTH_TARGET}x): ${linear ? 'met' : 'MISSED'}.`,
    );
    return met && linear;
  } finally {
    removeDir(dir);
  }
}
