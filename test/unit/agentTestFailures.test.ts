// The failing side of agent test expectations: test files written to a temp folder beside a copy of
// the weather-report example (or a small agent with two API nodes), run through loadSuite/runSuite,
// and each failure checked for its exact message and for a span at the expectation's own line. Also
// that cases of a file run at the same time, and that every example agent has a passing test file.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LineIndex } from '../../src/core/document/lineIndex';
import { loadSuite, runSuite } from '../../src/core/testing/suite';
import type { LoadedSuite, SuiteLoadFailure } from '../../src/core/testing/suite';
import type { CaseResult } from '../../src/core/testing/caseResult';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

function loaded(result: LoadedSuite | SuiteLoadFailure): LoadedSuite {
  if (!('suite' in result))
    assert.fail(`${result.message}: ${result.problems.map((p) => `${p.range.line}: ${p.code} ${p.message}`).join('; ')}`);
  return result;
}

/** Each failure of the one case as [message, line of its span] (lines as LineIndex counts them). */
async function failuresOf(suite: LoadedSuite): Promise<[string, number][]> {
  const results = await runSuite(suite);
  assert.equal(results.length, 1);
  const [result] = results as [CaseResult];
  assert.equal(result.passed, false, 'the case fails');
  const lines = new LineIndex(suite.text);
  return result.failures.map((failure) => [failure.message, lines.range(failure.span).line]);
}

/** The line (as LineIndex counts them) of the first line of text containing `marker`. */
function lineOf(text: string, marker: string): number {
  const index = text.indexOf(marker);
  assert.ok(index >= 0, `"${marker}" is in the test file`);
  return new LineIndex(text).range({ start: index, end: index }).line;
}

// Two API nodes, the second depending on the first: a failure can come from either.
const TWO_CALLS_AGENT = `version: 1
name: Two calls
inputs:
  id: { type: string, required: true }
nodes:
  user:
    type: api
    method: GET
    url: https://users.example.com/users/{{ inputs.id }}
  orders:
    type: api
    method: POST
    url: https://orders.example.com/orders/search
    body:
      user: "{{ nodes.user.body.name }}"
outputs:
  count: { from: "{{ nodes.orders.body.count }}" }
`;

describe('agent test failures', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'weather-report.agent.yaml'));
    dir.write('two-calls.agent.yaml', TWO_CALLS_AGENT);
  });
  afterEach(() => dir.remove());

  const weather = (text: string): LoadedSuite => loaded(loadSuite(dir.write('weather-report.agent.test.yaml', text)));

  it('fails a fails_at case whose execution finishes, at the fails_at line', async () => {
    const suite = weather(`cases:
  finishes:
    inputs: { city: Oslo }
    secrets: { WEATHER_API_KEY: k }
    mocks:
      current: { body: { summary: Snow, temperature: -3 } }
    expect:
      fails_at: current
`);
    assert.deepEqual(await failuresOf(suite), [
      ['Expected the execution to fail at node "current", but it finished.', lineOf(suite.text, 'fails_at:')],
    ]);
  });

  it('fails a fails_at case whose execution fails at another node, naming that node and why', async () => {
    const text = `cases:
  fails elsewhere:
    inputs: { id: u1 }
    mocks:
      user: { status: 404, body: { error: no such user } }
      orders: { body: { count: 2 } }
    expect:
      fails_at: orders
`;
    const suite = loaded(loadSuite(dir.write('two-calls.agent.test.yaml', text)));
    assert.deepEqual(await failuresOf(suite), [
      [
        'Expected the execution to fail at node "orders", but it failed at node "user": Node "user" failed: GET https://users.example.com/users/u1 answered 404: "{"error":"no such user"}".',
        lineOf(text, 'fails_at:'),
      ],
    ]);
  });

  it('passes the fails_at case when the execution fails at the node it names (the same file, the other node)', async () => {
    const text = `cases:
  fails at orders:
    inputs: { id: u1 }
    mocks:
      user: { body: { name: Ana } }
      orders: { status: 500, body: boom }
    expect:
      fails_at: orders
      error: { $contains: "500" }
`;
    const [result] = await runSuite(loaded(loadSuite(dir.write('two-calls.agent.test.yaml', text))));
    assert.deepEqual(result!.failures, []);
  });

  it('fails an error: expectation that does not match the failure message, at its own line', async () => {
    const text = `cases:
  wrong error:
    inputs: { city: Oslo }
    secrets: { WEATHER_API_KEY: k }
    mocks:
      current: { status: 503, body: unavailable }
    expect:
      fails_at: current
      error: { $contains: "timed out" }
`;
    const suite = weather(text);
    const [result] = await runSuite(suite);
    assert.equal(result!.execution?.status, 'failed');
    const actual = result!.execution!.status === 'failed' ? result!.execution!.error.message : '';
    assert.match(actual, /503/);
    const lines = new LineIndex(suite.text);
    assert.deepEqual(
      result!.failures.map((failure) => [failure.message, lines.range(failure.span).line]),
      [[`error: expected text containing "timed out", got ${JSON.stringify(actual)}`, lineOf(text, '$contains: "timed out"')]],
    );
  });

  it('fails an error: expectation when the execution finishes, at the error line', async () => {
    const text = `cases:
  no error:
    inputs: { city: Oslo }
    secrets: { WEATHER_API_KEY: k }
    mocks:
      current: { body: { summary: Snow, temperature: -3 } }
    expect:
      error: { $contains: "503" }
`;
    assert.deepEqual(await failuresOf(weather(text)), [['Expected the execution to fail, but it finished.', lineOf(text, 'error: {')]]);
  });

  it('fails expect.nodes status, body and headers that do not match, each at its own line', async () => {
    const text = `cases:
  node mismatch:
    inputs: { city: Oslo }
    secrets: { WEATHER_API_KEY: k }
    mocks:
      current: { status: 201, headers: { x-request-id: abc }, body: { summary: Snow, temperature: -3 } }
    expect:
      nodes:
        current:
          status: 200
          body: { $subset: { summary: Rain } }
          headers: { X-Request-Id: xyz }
`;
    assert.deepEqual(await failuresOf(weather(text)), [
      ['nodes.current.status: expected 200, got 201', lineOf(text, 'status: 200')],
      ['nodes.current.body.summary: expected "Rain", got "Snow"', lineOf(text, 'summary: Rain')],
      ['nodes.current.headers.x-request-id: expected "xyz", got "abc"', lineOf(text, 'X-Request-Id: xyz')],
    ]);
  });

  it('fails a node expectation for a node that never started: "has no result: it was skipped", at the node\'s line', async () => {
    const text = `cases:
  never ran:
    inputs: { id: u1 }
    mocks:
      user: { status: 500, body: down }
      orders: { body: { count: 2 } }
    expect:
      fails_at: user
      nodes:
        orders: { status: 200 }
`;
    assert.deepEqual(await failuresOf(loaded(loadSuite(dir.write('two-calls.agent.test.yaml', text)))), [
      ['Node "orders" has no result: it was skipped.', lineOf(text, 'orders: { status: 200 }')],
    ]);
  });

  it('says a node that failed on its status keeps only the status, when its body is expected', async () => {
    const text = `cases:
  upstream down:
    inputs: { city: Oslo }
    secrets: { WEATHER_API_KEY: k }
    mocks:
      current: { status: 503, body: unavailable }
    expect:
      fails_at: current
      nodes:
        current: { status: 503, body: unavailable }
`;
    assert.deepEqual(await failuresOf(weather(text)), [
      [
        'Node "current" failed (HTTP 503), and a failed node keeps only its status: its body and headers cannot be checked. Expect its status here, and the failure with fails_at and error.',
        lineOf(text, '        current: {'),
      ],
    ]);
  });

  it('fails a node expectation for a node stopped while running: "has no result: it was cancelled"', async () => {
    // Two independent API nodes run at the same time: the fast one fails, the slow one is stopped.
    dir.write(
      'parallel.agent.yaml',
      'version: 1\nname: Parallel\nnodes:\n  fast: { type: api, method: GET, url: https://a.example.com/ }\n  slow: { type: api, method: GET, url: https://b.example.com/ }\noutputs:\n  both: { from: "{{ nodes.fast.body }} {{ nodes.slow.body }}" }\n',
    );
    const text = `cases:
  stopped:
    mocks:
      fast: { status: 500, body: down }
      slow: { delay_ms: 2000, body: late }
    expect:
      fails_at: fast
      nodes:
        slow: { body: late }
`;
    const started = performance.now();
    const failures = await failuresOf(loaded(loadSuite(dir.write('parallel.agent.test.yaml', text))));
    assert.deepEqual(failures, [['Node "slow" has no result: it was cancelled.', lineOf(text, 'slow: { body: late }')]]);
    assert.ok(performance.now() - started < 1500, 'the slow node was stopped, not waited for');
  });

  it('fails expect_request method, URL and body that do not match, each at its own line', async () => {
    const text = `cases:
  request mismatch:
    inputs: { id: u1 }
    mocks:
      user:
        body: { name: Ana }
        expect_request:
          method: POST
          url: https://users.example.com/users/u2
      orders:
        body: { count: 2 }
        expect_request:
          method: POST
          body: { user: Bea }
    expect:
      outputs: { count: 2 }
`;
    assert.deepEqual(await failuresOf(loaded(loadSuite(dir.write('two-calls.agent.test.yaml', text)))), [
      ['requests.user.method: expected "POST", got "GET"', lineOf(text, 'method: POST')],
      [
        'requests.user.url: expected "https://users.example.com/users/u2", got "https://users.example.com/users/u1"',
        lineOf(text, 'url: https://users.example.com/users/u2'),
      ],
      ['requests.orders.body.user: expected "Bea", got "Ana"', lineOf(text, 'user: Bea')],
    ]);
  });

  it('fails the expect_request of a mocked node that sent no request, at its mock', async () => {
    const text = `cases:
  no request:
    inputs: { id: u1 }
    mocks:
      user: { status: 500, body: down }
      orders:
        body: { count: 2 }
        expect_request: { method: POST }
    expect:
      fails_at: user
`;
    assert.deepEqual(await failuresOf(loaded(loadSuite(dir.write('two-calls.agent.test.yaml', text)))), [
      ['Node "orders" sent no request, so expect_request could not be checked.', lineOf(text, 'orders:')],
    ]);
  });

  it('runs the cases of a file at the same time', async () => {
    const cases = Array.from(
      { length: 4 },
      (_, i) =>
        `  slow ${i}:\n    inputs: { city: C${i} }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { delay_ms: 300, body: { summary: S, temperature: ${i} } } }\n    expect: { outputs: { temperature: ${i} } }\n`,
    ).join('');
    const suite = weather(`cases:\n${cases}`);
    const started = performance.now();
    const results = await runSuite(suite, { concurrency: 4 });
    const wallMs = performance.now() - started;
    assert.deepEqual(
      results.map((result) => [result.name, result.passed]),
      [0, 1, 2, 3].map((i) => [`slow ${i}`, true]),
    );
    // Each case waited for its mock's delay; run one after another they would take 1200 ms at least.
    for (const result of results) assert.ok(result.durationMs >= 300, `${result.name} took ${result.durationMs} ms`);
    assert.ok(wallMs < 900, `the four cases took ${Math.round(wallMs)} ms in all: they did not run at the same time`);
  });

  it('has a test file beside every example agent, with no problems, whose cases all pass', async () => {
    const examplesDir = join(repoRoot, 'examples');
    const agents = readdirSync(examplesDir).filter((name) => name.endsWith('.agent.yaml'));
    assert.ok(agents.length >= 6, `the examples: ${agents.join(', ')}`);
    for (const agent of agents) {
      const testFile = join(examplesDir, agent.replace(/\.agent\.yaml$/, '.agent.test.yaml'));
      assert.ok(existsSync(testFile), `${agent} has no test file beside it (${testFile})`);
      const suite = loaded(loadSuite(testFile));
      assert.deepEqual(
        suite.problems.map((problem) => `${problem.range.line}: ${problem.code} ${problem.message}`),
        [],
        `problems of ${testFile}`,
      );
      assert.ok(suite.suite.cases.length > 0, `${testFile} has cases`);
      const results = await runSuite(suite);
      assert.deepEqual(
        results.filter((result) => !result.passed).map((result) => [result.name, result.failures.map((failure) => failure.message)]),
        [],
        `failed cases of ${testFile}`,
      );
      assert.equal(results.length, suite.suite.cases.length);
    }
  });
});
