// Agent tests run on this machine: test files read and checked against their agent, cases run by
// the workflow engine with mocked API answers (undici's MockAgent in place of each node's socket),
// expectations checked and pointing back into the file; live cases call a real server.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LineIndex } from '../../src/core/document/lineIndex';
import { loadSuite, needsDeployment, runSuite } from '../../src/core/testing/suite';
import type { LoadedSuite, SuiteLoadFailure } from '../../src/core/testing/suite';
import { json, startServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

function loaded(result: LoadedSuite | SuiteLoadFailure): LoadedSuite {
  if (!('suite' in result))
    assert.fail(`${result.message}: ${result.problems.map((p) => `${p.range.line}: ${p.code} ${p.message}`).join('; ')}`);
  return result;
}

const WEATHER_CASE = (expected: string): string => `cases:
  sunny:
    inputs: { city: Lisbon }
    secrets: { WEATHER_API_KEY: test-key }
    mocks:
      current: { body: { summary: Sunny, temperature: 24 } }
    expect:
      outputs:
        report: ${expected}
`;

describe('agent tests', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'weather-report.agent.yaml'));
  });
  afterEach(() => dir.remove());

  it('runs the example test file: every case passes, and the mocks saw what the agent sent', async () => {
    const suite = loaded(loadSuite(join(repoRoot, 'examples', 'weather-report.agent.test.yaml')));
    const results = await runSuite(suite);
    assert.deepEqual(
      results.map((result) => [result.name, result.passed, result.failures.map((f) => f.message)]),
      [
        ['sunny city', true, []],
        ['imperial units', true, []],
        ['upstream down', true, []],
      ],
    );
    // A small agent with its API mocked and no delays: each case well under 100 ms.
    assert.deepEqual(
      results.filter((result) => !(result.durationMs < 100)).map((result) => `${result.name}: ${result.durationMs} ms`),
      [],
    );
    const sent = results[0]!.requests[0]!;
    assert.equal(sent.url, 'https://weather.example.com/v1/current?city=Lisbon&units=metric');
    // Matched as sent (the example's expect_request asks for test-key), kept redacted.
    assert.equal(sent.headers['x-api-key'], '[redacted]');
  });

  it('keeps the requests a case sent with a secret redacted in a header name too, lower-cased as they are kept', async () => {
    const secret = 's3cr3t-T0ken-QWXZKJVN';
    // Validation refuses a {{ }} in a header name: a name holds a secret only where it is written out.
    dir.write(
      'named.agent.yaml',
      `version: 1\nname: Named\nnodes:\n  call:\n    type: api\n    method: GET\n    url: https://api.example.com/x\n    settings:\n      - "Authorization: Bearer {{ secrets.TOKEN }}"\n      - "X-${secret}: v"\n`,
    );
    const file = dir.write(
      'named.agent.test.yaml',
      `cases:\n  one:\n    secrets: { TOKEN: ${secret} }\n    mocks: { call: { body: { ok: true } } }\n`,
    );
    const [result] = await runSuite(loaded(loadSuite(file)));
    assert.equal(result!.passed, true, result!.failures.map((failure) => failure.message).join('\n'));
    const sent = result!.requests[0]!;
    assert.equal(sent.headers['x-[redacted]'], 'v');
    assert.equal(sent.headers.authorization, 'Bearer [redacted]');
    assert.ok(!JSON.stringify(sent).toLowerCase().includes(secret.toLowerCase()));
  });

  it('reports a failed expectation at its own line, with expected and actual values', async () => {
    const file = dir.write('weather-report.agent.test.yaml', WEATHER_CASE('"Lisbon: Rain, 24 degrees (metric)."'));
    const suite = loaded(loadSuite(file));
    const [result] = await runSuite(suite);
    assert.equal(result!.passed, false);
    const failure = result!.failures[0]!;
    assert.match(
      failure.message,
      /^outputs\.report: expected "Lisbon: Rain, 24 degrees \(metric\)\.", got "Lisbon: Sunny, 24 degrees \(metric\)\."/,
    );
    assert.equal(new LineIndex(suite.text).range(failure.span).line, 9, 'the line of the expected value');
    assert.equal(failure.expectedValue, 'Lisbon: Rain, 24 degrees (metric).');
    assert.equal(failure.actual, 'Lisbon: Sunny, 24 degrees (metric).');
  });

  it('fails a case whose execution fails unexpectedly, naming the node and why', async () => {
    const file = dir.write('weather-report.agent.test.yaml', WEATHER_CASE('x').replace('current: { body', 'current: { status: 500, body'));
    const [result] = await runSuite(loaded(loadSuite(file)));
    assert.equal(result!.passed, false);
    assert.match(result!.failures[0]!.message, /The execution failed: .*current.*500/);
  });

  it('refuses a case without a mock for an API node, before running anything', () => {
    const file = dir.write('weather-report.agent.test.yaml', 'cases:\n  no mock:\n    inputs: { city: Oslo }\n');
    const failure = loadSuite(file) as SuiteLoadFailure;
    assert.ok(!('suite' in failure));
    assert.deepEqual(
      failure.problems.map((problem) => [problem.code, problem.range.line]),
      [['missing-mock', 2]],
    );
    assert.match(failure.problems[0]!.message, /no mock for API node 'current'.*live: true/);
  });

  it('needs no mock in a deployed case, and runs no deployed case locally', async () => {
    const file = dir.write('weather-report.agent.test.yaml', 'cases:\n  on the service:\n    deployed: true\n    inputs: { city: Oslo }\n');
    const suite = loaded(loadSuite(file));
    assert.deepEqual(suite.problems, []);
    assert.equal(needsDeployment(suite.suite, {}), true);
    assert.equal(needsDeployment(suite.suite, { grep: 'nothing' }), false);
    // Without a deployment the case fails saying so; it is never run on this machine instead.
    const [result] = await runSuite(suite);
    assert.equal(result!.passed, false);
    assert.equal(result!.execution, undefined);
    assert.match(result!.failures[0]!.message, /runs on the deployment \(deployed: true\), but no deployment was given/);
  });

  it("starts every case from the defaults; a case's own input, secret or mock replaces a default one", async () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      `defaults:
  inputs: { city: Lisbon }
  secrets: { WEATHER_API_KEY: shared-key }
  mocks:
    current:
      body: { summary: Sunny, temperature: 24 }
      expect_request: { headers: { x-api-key: shared-key } }
cases:
  inherits everything:
    expect: { outputs: { report: "Lisbon: Sunny, 24 degrees (metric)." } }
  own input and mock:
    inputs: { city: Oslo }
    mocks: { current: { body: { summary: Snow, temperature: -3 } } }
    expect: { outputs: { report: "Oslo: Snow, -3 degrees (metric)." } }
  own secret:
    secrets: { WEATHER_API_KEY: other-key }
    expect: { outputs: { report: { $contains: Lisbon } } }
`,
    );
    const suite = loaded(loadSuite(file));
    assert.deepEqual(suite.problems, []);
    const results = await runSuite(suite);
    assert.deepEqual(
      results.map((result) => [result.name, result.failures.map((failure) => failure.message)]),
      [
        ['inherits everything', []],
        ['own input and mock', []],
        // The default mock's expect_request holds for every case that keeps that mock.
        ['own secret', ['requests.current.headers.x-api-key: expected "shared-key", got "[redacted]"']],
      ],
    );
    assert.equal(results[0]!.requests[0]!.url, 'https://weather.example.com/v1/current?city=Lisbon&units=metric');
    // The case's own mock replaced the default one whole: its expect_request went with it.
    assert.equal(results[1]!.requests[0]!.headers['x-api-key'], '[redacted]');
    assert.equal(suite.suite.cases[1]!.mocks.get('current')!.expectRequest, undefined);
    const failureLine = new LineIndex(suite.text).range(results[2]!.failures[0]!.span).line;
    assert.equal(failureLine, 7, "at the default mock's expect_request, where the expectation is written");
  });

  it('checks the names under defaults once, where they are written', () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      'defaults:\n  inputs: { cty: Oslo }\n  mocks: { current: { body: {} }, curent: { body: {} } }\ncases:\n  one: { inputs: { city: A } }\n  two: { inputs: { city: B } }\n',
    );
    const failure = loadSuite(file) as SuiteLoadFailure;
    assert.deepEqual(
      failure.problems.map((problem) => [problem.code, problem.range.line]),
      [
        ['unknown-input', 2],
        ['unknown-node', 3],
      ],
      'reported once each, at the defaults; the default mock of "current" serves both cases',
    );
    const schema = loadSuite(
      dir.write('weather-report.agent.test.yaml', 'defaults:\n  mocks: { current: { bdy: x } }\ncases:\n  one: { inputs: { city: A } }\n'),
    ) as SuiteLoadFailure;
    assert.ok(
      schema.problems.some((problem) =>
        /mock of node "current" in the defaults has no key "bdy"\. Did you mean "body"\?/i.test(problem.message),
      ),
      schema.problems.map((problem) => problem.message).join('\n'),
    );
  });

  it('checks the names a case uses against the agent, with suggestions', () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      'cases:\n  typos:\n    inputs: { cty: Oslo }\n    mocks: { curent: { body: {} }, report: { body: x } }\n    expect: { outputs: { reprot: x }, fails_at: nowhere }\n',
    );
    const failure = loadSuite(file) as SuiteLoadFailure;
    const messages = failure.problems.map((problem) => `${problem.code}: ${problem.message}`);
    assert.ok(
      messages.some((m) => /^unknown-input: The agent has no input "cty"\. Did you mean "city"\?/.test(m)),
      messages.join('\n'),
    );
    assert.ok(messages.some((m) => /^unknown-node: A mock names node "curent".*Did you mean "current"\?/.test(m)));
    assert.ok(messages.some((m) => /^invalid-value: Node "report" renders text/.test(m)));
    assert.ok(messages.some((m) => /^unknown-output: The agent has no output "reprot"\. Did you mean "report"\?/.test(m)));
    assert.ok(messages.some((m) => /^unknown-node: fails_at names node "nowhere"/.test(m)));
    assert.ok(messages.some((m) => /^missing-mock: .*'current'/.test(m)));
  });

  it('reports the schema problems of a test file in its own words', () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      'cases:\n  bad:\n    mocks: { current: { status: 700, bdy: x } }\n    expect: { within_ms: soon }\n',
    );
    const failure = loadSuite(file) as SuiteLoadFailure;
    const messages = failure.problems.map((problem) => problem.message);
    assert.ok(
      messages.some((m) => /mock of node "current" in case "bad" has no key "bdy"\. Did you mean "body"\?/i.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /status of the mock of node "current" in case "bad" must be at most 599/i.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /within_ms.*must be/i.test(m)),
      messages.join('\n'),
    );
  });

  it('warns of a secret the agent does not use, at its key, suggesting the one it does', () => {
    const text =
      'cases:\n  one:\n    inputs: { city: Oslo }\n    secrets: { WEATHER_API_KEYS: k }\n    mocks: { current: { body: { summary: Sun, temperature: 3 } } }\n';
    const result = loadSuite(dir.write('weather-report.agent.test.yaml', text));
    assert.deepEqual(
      result.problems.map((problem) => `${problem.range.line}: ${problem.severity} ${problem.code}: ${problem.message}`),
      [
        '4: warning unused-secret: The agent uses no secret "WEATHER_API_KEYS", so this value is never read. Did you mean "WEATHER_API_KEY"?',
      ],
    );
  });

  it('says which number is wrong: within_ms: 1.5 is not a whole number', () => {
    const result = loadSuite(
      dir.write('weather-report.agent.test.yaml', 'cases:\n  one:\n    live: true\n    expect: { within_ms: 1.5 }\n'),
    );
    assert.deepEqual(
      result.problems.map((problem) => `${problem.code}: ${problem.message}`),
      ['wrong-type: "expect.within_ms" in case "one" must be a whole number, not the fraction 1.5.'],
    );
  });

  it('words the problems of a test file for a test file, not for an agent file', () => {
    const problemsOf = (name: string, content: string | Uint8Array): string[] => {
      const result = loadSuite(dir.write(name, content)) as SuiteLoadFailure;
      assert.ok(!('suite' in result), name);
      return result.problems.length ? result.problems.map((problem) => `${problem.code}: ${problem.message}`) : [result.message];
    };
    assert.deepEqual(problemsOf('weather-report.agent.test.yaml', '\n'), [
      'empty-file: The file is empty. A test file needs "cases:" with at least one case: write "cases:", then on the next line, indented, type "case" and pick the snippet.',
    ]);
    assert.deepEqual(problemsOf('weather-report.agent.test.yaml', '- one\n'), [
      'not-a-mapping: The file is a list, but a test file is a mapping of keys: agent, defaults and cases.',
    ]);
    assert.match(
      problemsOf('weather-report.agent.test.yaml', `cases: ${'['.repeat(200)}\n`)[0]!,
      /a test file nests lists and mappings at most/,
    );
    assert.match(
      problemsOf('big.agent.test.yaml', `# ${'x'.repeat(800 * 1024)}\ncases: {}\n`)[0]!,
      /: The file is 801 KB; test files are checked up to 768 KB\. Split the cases into several test files\.$/,
    );
    const schema = problemsOf(
      'weather-report.agent.test.yaml',
      'agent: weather-report.yaml\ncases:\n  one:\n    live: true\n    expect:\n      within_ms: 0\n      nodes: { current: 5 }\n',
    );
    assert.deepEqual(schema, [
      'invalid-value: "agent" must be the path of the agent file under test, relative to this test file, ending in .agent.yaml or .agent.yml (e.g. "weather-report.agent.yaml"); "weather-report.yaml" does not.',
      'invalid-value: "expect.within_ms" in case "one" must be at least 1.',
      'wrong-type: The expectation on node "current" in case "one" must be a mapping, not the number 5.',
    ]);
    assert.ok(
      !schema
        .concat(problemsOf('weather-report.agent.test.yaml', ''))
        .some((message) => /an agent file|agent files|An agent|workflow/.test(message)),
    );
  });

  it('says when the agent under test is missing or broken', () => {
    const missing = loadSuite(dir.write('other.agent.test.yaml', WEATHER_CASE('x'))) as SuiteLoadFailure;
    assert.deepEqual(
      missing.problems.map((problem) => [problem.code, problem.range.line, problem.range.column]),
      [['unknown-agent', 1, 1]],
    );
    assert.match(
      missing.problems[0]!.message,
      /^This file tests "other\.agent\.yaml" \(its own name without \.test\), which cannot be read: .*other\.agent\.yaml: no such file or directory\./,
    );
    dir.write('broken.agent.yaml', 'version: 1\nname: b\nnodes:\n  a: { type: template, text: "{{ nodes.b.body }}" }\n');
    const broken = loadSuite(dir.write('broken.agent.test.yaml', 'cases:\n  one: {}\n')) as SuiteLoadFailure;
    assert.match(broken.message, /agent under test has problems: [\s\S]*unknown-node/);
    // With problems of the test file too, the agent's are still said.
    const both = loadSuite(dir.write('broken.agent.test.yaml', 'cases:\n  one: { live: yes please }\n')) as SuiteLoadFailure;
    assert.match(both.message, /^1 problem in the test file\. The agent under test has problems: [\s\S]*unknown-node/);
  });

  it('reports a misspelt agent at its agent: line, before any other problem, with the agent file it meant', () => {
    // A typo of the extension, and problems of the test file's own: the agent is one of them, at line 1.
    const typo = loadSuite(
      dir.write(
        'typo.agent.test.yaml',
        'agent: weather-report.agent.yml\ncases:\n  one:\n    live: sometimes\n    inputs: { cty: Oslo }\n',
      ),
    ) as SuiteLoadFailure;
    assert.deepEqual(
      typo.problems.map((problem) => [problem.code, problem.range.line, problem.range.column, problem.range.endColumn]),
      [
        ['unknown-agent', 1, 8, 32],
        ['wrong-type', 4, 11, 20],
      ],
    );
    assert.equal(
      typo.problems[0]!.message,
      `The agent under test, "weather-report.agent.yml", cannot be read: ${join(dir.path, 'weather-report.agent.yml')}: no such file or directory. Did you mean "weather-report.agent.yaml"? Write the path of the agent file, relative to this test file, after "agent:".`,
    );
    assert.deepEqual(typo.problems[0]!.data, { replacement: 'weather-report.agent.yaml' });
    assert.equal(typo.message, '2 problems in the test file');

    // Implied by the test file's name: at the file's start, with the agent: line that fixes it.
    const implied = loadSuite(dir.write('weather-reprot.agent.test.yaml', 'cases:\n  one: { live: true }\n')) as SuiteLoadFailure;
    assert.deepEqual(
      implied.problems.map((problem) => [problem.code, problem.range.line, problem.range.column]),
      [['unknown-agent', 1, 1]],
    );
    assert.match(
      implied.problems[0]!.message,
      /Did you mean "weather-report\.agent\.yaml"\? Add "agent: weather-report\.agent\.yaml" naming the agent file/,
    );

    // Nothing close: the agent files of that folder; in a sub-folder, the folder as written.
    dir.write('sub/greeter.agent.yaml', 'version: 1\nname: g\n');
    // A folder named like an agent file is no agent file to suggest.
    mkdirSync(join(dir.path, 'folder.agent.yaml'));
    const far = loadSuite(
      dir.write('far.agent.test.yaml', 'agent: forecast.agent.yaml\ncases:\n  one: { live: true }\n'),
    ) as SuiteLoadFailure;
    assert.match(
      far.problems[0]!.message,
      /: no such file or directory\. Agent files in that folder: 'weather-report\.agent\.yaml'\. Write the path/,
    );
    const sub = loadSuite(
      dir.write('sub.agent.test.yaml', 'agent: sub/greter.agent.yaml\ncases:\n  one: { live: true }\n'),
    ) as SuiteLoadFailure;
    assert.match(sub.problems[0]!.message, /Did you mean "sub\/greeter\.agent\.yaml"\?/);
    const nowhere = loadSuite(
      dir.write('nowhere.agent.test.yaml', 'agent: gone/x.agent.yaml\ncases:\n  one: { live: true }\n'),
    ) as SuiteLoadFailure;
    assert.match(nowhere.problems[0]!.message, /x\.agent\.yaml: no such file or directory\. Write the path/);
  });

  it('sends a live case to the real API, and only the unmocked nodes', async () => {
    const api = await startServer((_request, response) => json(response, 200, { summary: 'Live', temperature: 3 }));
    try {
      dir.write(
        'live.agent.yaml',
        `version: 1\nname: live\ninputs:\n  city: { type: string }\nnodes:\n  current:\n    type: api\n    method: GET\n    url: ${api.url}/now?city={{ inputs.city }}\noutputs:\n  summary: { from: "{{ nodes.current.body.summary }}" }\n`,
      );
      const file = dir.write(
        'live.agent.test.yaml',
        'cases:\n  live one:\n    live: true\n    inputs: { city: Oslo }\n    expect: { outputs: { summary: Live } }\n',
      );
      const [result] = await runSuite(loaded(loadSuite(file)));
      assert.deepEqual(result!.failures, []);
      assert.deepEqual(
        api.requests.map((request) => request.url),
        ['/now?city=Oslo'],
      );
    } finally {
      await api.close();
    }
  });

  it('runs only the cases --grep selects, each well under 100 ms', async () => {
    const cases = Array.from(
      { length: 20 },
      (_, i) =>
        `  case ${i}:\n    inputs: { city: C${i} }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { body: { summary: S, temperature: ${i} } } }\n    expect: { outputs: { temperature: ${i} } }\n`,
    ).join('');
    const suite = loaded(loadSuite(dir.write('weather-report.agent.test.yaml', `cases:\n${cases}`)));
    const all = await runSuite(suite, { concurrency: 4 });
    assert.equal(all.length, 20);
    assert.ok(all.every((result) => result.passed));
    const slow = all.filter((result) => !(result.durationMs < 100)).map((result) => `${result.name}: ${result.durationMs} ms`);
    assert.deepEqual(slow, [], 'every case of a small agent with no delays takes well under 100 ms');
    assert.deepEqual(
      (await runSuite(suite, { grep: 'CASE 1' })).map((result) => result.name),
      ['case 1', 'case 10', 'case 11', 'case 12', 'case 13', 'case 14', 'case 15', 'case 16', 'case 17', 'case 18', 'case 19'],
    );
  });

  it('refuses a within_ms beyond an hour, which no timer could keep', () => {
    const file = dir.write('weather-report.agent.test.yaml', WEATHER_CASE('x') + '      within_ms: 9999999999\n');
    const failure = loadSuite(file) as SuiteLoadFailure;
    assert.deepEqual(
      failure.problems.map((problem) => [problem.code, problem.range.line, problem.message]),
      [['invalid-value', 10, '"expect.within_ms" in case "sunny" must be at most 3600000.']],
    );
    assert.ok(!('suite' in loadSuite(dir.write('weather-report.agent.test.yaml', WEATHER_CASE('x') + '      within_ms: 3600001\n'))));
    assert.ok('suite' in loadSuite(dir.write('weather-report.agent.test.yaml', WEATHER_CASE('x') + '      within_ms: 3600000\n')));
  });

  it('fails a case that takes longer than within_ms', async () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      WEATHER_CASE('{ $type: string }').replace('current: { body', 'current: { delay_ms: 150, body') + '      within_ms: 50\n',
    );
    const [result] = await runSuite(loaded(loadSuite(file)));
    assert.match(result!.failures.map((f) => f.message).join('\n'), /took \d+ ms, more than within_ms: 50/);
  });
});
