// Agent tests written and read the way the editor does: a case written from an execution (its
// inputs, outputs as expectations, mock stubs, test secrets) into a new or existing test file, and
// a test file checked from unsaved text with its agent's text given by the caller.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { appendCaseFromExecution, NewCaseError } from '../../src/core/testing/newCase';
import type { CaseFromExecution } from '../../src/core/testing/newCase';
import { loadSuiteFromText, runSuite } from '../../src/core/testing/suite';
import { validateTestText } from '../../src/core/testing/testFile';
import type { LoadedSuite, SuiteLoadFailure } from '../../src/core/testing/suite';
import { repoRoot } from '../support/paths';

const HELLO =
  'version: 1\nname: Hello\ninputs:\n  who: { type: string, default: world }\nnodes:\n  greet:\n    type: template\n    text: "Hello {{ inputs.who }}"\noutputs:\n  greeting: { from: "{{ nodes.greet.body }}" }\n';
const WEATHER = readFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), 'utf8');

function loaded(result: LoadedSuite | SuiteLoadFailure): LoadedSuite {
  if (!('suite' in result))
    assert.fail(`${result.message}: ${result.problems.map((p) => `${p.range.line}: ${p.code} ${p.message}`).join('; ')}`);
  return result;
}

const fromHello = (name: string, who: string): CaseFromExecution => ({
  name,
  agentFileName: 'hello.agent.yaml',
  inputs: { who },
  files: {},
  outputs: { greeting: `Hello ${who}` },
  apiNodes: [],
  secretNames: [],
});

describe('agent tests from the editor', () => {
  it('writes a new test file whose case, from an execution, runs and passes', async () => {
    const written = appendCaseFromExecution(undefined, fromHello('from execution', 'Ada'));
    assert.equal(written.name, 'from execution');
    assert.ok(written.text.slice(written.offset).startsWith('from execution:'), written.text);
    const suite = loaded(loadSuiteFromText('/virtual/hello.agent.test.yaml', written.text, () => ({ text: HELLO })));
    assert.equal(suite.agentFile, join('/virtual', 'hello.agent.yaml'));
    const results = await runSuite(suite);
    assert.deepEqual(
      results.map((result) => [result.name, result.passed, result.failures.map((failure) => failure.message)]),
      [['from execution', true, []]],
    );
  });

  it('writes outputs holding $ keys so that they mean equality: the case runs and passes', async () => {
    const temperature = { $ref: '#/x', plain: 1, list: [{ $gt: 1 }, { n: { $not: 2 } }] };
    const written = appendCaseFromExecution(undefined, {
      name: 'refs',
      agentFileName: 'weather-report.agent.yaml',
      inputs: { city: 'Oslo' },
      files: {},
      outputs: { report: `Oslo: Snow, ${JSON.stringify(temperature)} degrees (metric).`, temperature },
      apiNodes: [{ node: 'current', status: 200 }],
      secretNames: ['WEATHER_API_KEY'],
    });
    // The mock's body filled in, as the user does after writing the case.
    const document = parseDocument(written.text);
    document.setIn(['cases', 'refs', 'mocks', 'current', 'body'], document.createNode({ summary: 'Snow', temperature }));
    const suite = loaded(loadSuiteFromText('/virtual/weather-report.agent.test.yaml', document.toString(), () => ({ text: WEATHER })));
    const [result] = await runSuite(suite);
    assert.deepEqual(
      result!.failures.map((failure) => failure.message),
      [],
    );
    assert.equal(result!.passed, true);
  });

  it('appends to an existing file, keeping its comments, with a name of its own', () => {
    const existing =
      '# Tests of the greeting.\nagent: hello.agent.yaml\ncases:\n  # The default.\n  from execution:\n    expect: { outputs: { greeting: Hello world } }\n';
    const written = appendCaseFromExecution(existing, fromHello('from execution', 'Bob'));
    assert.equal(written.name, 'from execution (2)');
    assert.ok(
      written.text.startsWith('# Tests of the greeting.\nagent: hello.agent.yaml\ncases:\n  # The default.\n  from execution:\n'),
      written.text,
    );
    assert.ok(written.text.slice(written.offset).startsWith('from execution (2):'));
    const suite = loaded(loadSuiteFromText('/virtual/hello.agent.test.yaml', written.text, () => ({ text: HELLO })));
    assert.deepEqual(
      suite.suite.cases.map((testCase) => [testCase.name, testCase.inputs]),
      [
        ['from execution', {}],
        ['from execution (2)', { who: 'Bob' }],
      ],
    );
  });

  it('writes a mock stub with the status for every API node, and test values for secrets', () => {
    const written = appendCaseFromExecution(undefined, {
      name: 'Lisbon',
      agentFileName: 'weather-report.agent.yaml',
      inputs: { city: 'Lisbon' },
      files: {},
      outputs: { report: 'Lisbon: Sunny, 24 degrees (metric).', temperature: 24 },
      apiNodes: [{ node: 'current', status: 200 }],
      secretNames: ['WEATHER_API_KEY'],
    });
    assert.match(written.text, /# Fill in what the API answered/);
    // The file is valid against the agent as written: the user only fills the mock's body.
    const suite = loaded(loadSuiteFromText('/virtual/weather-report.agent.test.yaml', written.text, () => ({ text: WEATHER })));
    const testCase = suite.suite.cases[0]!;
    assert.deepEqual(testCase.secrets, { WEATHER_API_KEY: 'test-weather-api-key' });
    assert.equal(testCase.mocks.get('current')?.status, 200);
  });

  it("writes no test value for a secret the file's defaults give", () => {
    const existing =
      'defaults:\n  secrets: { WEATHER_API_KEY: shared-key }\ncases:\n  first:\n    inputs: { city: Oslo }\n    mocks: { current: { body: {} } }\n';
    const written = appendCaseFromExecution(existing, {
      name: 'Lisbon',
      agentFileName: 'weather-report.agent.yaml',
      inputs: { city: 'Lisbon' },
      files: {},
      outputs: { report: 'x' },
      apiNodes: [{ node: 'current', status: 200 }],
      secretNames: ['WEATHER_API_KEY', 'OTHER_KEY'],
    });
    const suite = validateTestText(written.text, 'weather-report.agent.test.yaml').suite!;
    const added = suite.cases.find((testCase) => testCase.name === 'Lisbon')!;
    assert.deepEqual(added.secrets, { WEATHER_API_KEY: 'shared-key', OTHER_KEY: 'test-other-key' });
    assert.doesNotMatch(written.text.slice(written.offset), /WEATHER_API_KEY/);
  });

  it('refuses a test file that is not YAML or whose cases are not a mapping, saying so', () => {
    assert.throws(
      () => appendCaseFromExecution('cases: [\n', fromHello('x', 'y')),
      (error: unknown) => error instanceof NewCaseError && /not valid YAML/.test(error.message),
    );
    assert.throws(
      () => appendCaseFromExecution('cases:\n  - a\n', fromHello('x', 'y')),
      (error: unknown) => error instanceof NewCaseError && /"cases" in the test file is not a mapping/.test(error.message),
    );
  });

  it('checks unsaved test text against the agent text the caller gives, and says when it cannot read it', () => {
    const text = 'cases:\n  one:\n    inputs: { whom: Ada }\n';
    const failure = loadSuiteFromText('/virtual/hello.agent.test.yaml', text, () => ({ text: HELLO }));
    assert.ok(!('suite' in failure));
    assert.deepEqual(
      failure.problems.map((problem) => [problem.code, problem.range.line]),
      [['unknown-input', 3]],
    );
    const missing = loadSuiteFromText('/virtual/hello.agent.test.yaml', 'cases:\n  one: {}\n', (file) => ({
      error: `${file} does not exist.`,
    }));
    assert.ok(!('suite' in missing));
    assert.deepEqual(
      missing.problems.map((problem) => [problem.code, problem.range.line]),
      [['unknown-agent', 1]],
    );
    assert.match(missing.problems[0]!.message, /cannot be read: .*hello\.agent\.yaml does not exist/);
  });

  it('runs only the cases named in `only`', async () => {
    const text = appendCaseFromExecution(appendCaseFromExecution(undefined, fromHello('a', 'A')).text, fromHello('b', 'B')).text;
    const suite = loaded(loadSuiteFromText('/virtual/hello.agent.test.yaml', text, () => ({ text: HELLO })));
    assert.deepEqual(
      (await runSuite(suite, { only: new Set(['b']) })).map((result) => result.name),
      ['b'],
    );
  });
});

describe('agent test snippets', () => {
  const snippets = JSON.parse(readFileSync(join(repoRoot, 'snippets', 'agent-test-yaml.json'), 'utf8')) as Record<
    string,
    { prefix: string; body: string[] }
  >;
  /** The snippet as VS Code inserts it when every default is accepted (these use ${n:x} and ${n|a,b|}). */
  const expand = (body: readonly string[]): string =>
    body
      .join('\n')
      .replace(/\$\{\d+:([^${}]*)\}/g, '$1')
      .replace(/\$\{\d+\|([^,|]*)[^|]*\|\}/g, '$1')
      .replace(/\\\$/g, '$');
  const indent = (text: string, spaces: number): string => text.replace(/^/gm, ' '.repeat(spaces));
  const inContext = (prefix: string, text: string): string => {
    if (prefix === 'case') return `cases:\n${indent(text, 2)}\n`;
    if (prefix === 'defaults') return `${text}\ncases:\n  one: {}\n`;
    if (prefix === 'mock') return `cases:\n  one:\n    mocks:\n${indent(text, 6)}\n`;
    return `cases:\n  one:\n${indent(text, 4)}\n`;
  };

  it('expands every snippet, where it belongs, into a test file without problems', () => {
    assert.deepEqual(
      Object.values(snippets)
        .map((snippet) => snippet.prefix)
        .sort(),
      ['case', 'defaults', 'expect', 'expect-failure', 'mock'],
    );
    for (const snippet of Object.values(snippets)) {
      const text = inContext(snippet.prefix, expand(snippet.body));
      const { problems } = validateTestText(text, 'snippet.agent.test.yaml');
      assert.deepEqual(
        problems.map((problem) => `${problem.range.line}: ${problem.message}`),
        [],
        `${snippet.prefix}:\n${text}`,
      );
    }
  });
});
