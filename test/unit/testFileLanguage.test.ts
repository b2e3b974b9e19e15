// Completion and hovers in agent test files: schema keys at each level, the names of the agent
// under test where a case or the defaults use them, expectation operators, and what the agent
// file is (agent: or the file's name).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexAgentText } from '../../src/core/language/agentIndex';
import { testFileCompletions, testFileHover } from '../../src/core/testing/testFileLanguage';
import { agentPathOf } from '../../src/core/testing/testFileName';
import { withCursor } from '../support/cursor';
import { repoRoot } from '../support/paths';

const WEATHER = indexAgentText(readFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), 'utf8'));

function completeAt(marked: string, agent = WEATHER) {
  const { text, offset } = withCursor(marked);
  const result = testFileCompletions(text, offset, agent);
  return { ...result, labels: result.items.map((item) => item.label), offset };
}

function hoverAt(marked: string, agent = WEATHER): string | undefined {
  const { text, offset } = withCursor(marked);
  return testFileHover(text, offset, agent)?.contents;
}

describe('test file completion', () => {
  it("offers the keys of each level that are not written yet, with the schema's words", () => {
    assert.deepEqual(completeAt('agent: weather-report.agent.yaml\n¦').labels, ['defaults', 'cases']);
    const inCase = completeAt('cases:\n  sunny:\n    inputs: { city: Lisbon }\n    ¦\n');
    assert.deepEqual(inCase.labels, ['description', 'files', 'secrets', 'mocks', 'expect', 'snapshot', 'live', 'deployed']);
    const mocks = inCase.items.find((item) => item.label === 'mocks')!;
    assert.equal(mocks.insertText, 'mocks:\n\t$0', 'a mapping goes on the next line');
    assert.match(mocks.documentation ?? '', /answers API nodes get/);
    assert.deepEqual(completeAt('defaults:\n  ¦').labels, ['inputs', 'files', 'secrets', 'mocks']);
    assert.deepEqual(completeAt('cases:\n  a:\n    mocks:\n      current:\n        ¦').labels, [
      'status',
      'headers',
      'body',
      'delay_ms',
      'expect_request',
    ]);
    assert.deepEqual(completeAt('cases:\n  a:\n    mocks:\n      current:\n        expect_request: { ¦ }').labels, [
      'method',
      'url',
      'headers',
      'body',
    ]);
    assert.deepEqual(completeAt('cases:\n  a:\n    expect:\n      ¦').labels, ['outputs', 'nodes', 'fails_at', 'error', 'within_ms']);
    assert.deepEqual(completeAt('cases:\n  a:\n    expect:\n      nodes:\n        current: { ¦').labels, [
      'status',
      'body',
      'headers',
      'body_paths',
    ]);
  });

  it("offers the agent's own names: inputs, secrets, API nodes to mock, outputs and nodes to expect", () => {
    const inputs = completeAt('cases:\n  a:\n    inputs:\n      city: Oslo\n      ¦');
    assert.deepEqual(inputs.labels, ['units'], 'the inputs not given yet');
    assert.equal(inputs.items[0]!.detail, 'string input');
    assert.deepEqual(completeAt('defaults:\n  secrets: { ¦ }').labels, ['WEATHER_API_KEY']);
    const mocks = completeAt('cases:\n  a:\n    mocks:\n      ¦');
    assert.deepEqual(mocks.labels, ['current'], 'API nodes only: a template node cannot be mocked');
    assert.match(mocks.items[0]!.detail ?? '', /^GET https:\/\/weather\.example\.com/);
    assert.deepEqual(completeAt('cases:\n  a:\n    expect:\n      outputs:\n        ¦').labels, ['report', 'temperature']);
    assert.deepEqual(completeAt('cases:\n  a:\n    expect:\n      nodes: { ¦').labels, ['current', 'report']);
    assert.deepEqual(completeAt('cases:\n  a:\n    expect:\n      fails_at: ¦').labels, ['current', 'report']);
    assert.deepEqual(completeAt('cases:\n  a:\n    inputs: { units: ¦').labels, ['metric', 'imperial'], "an enum input's values");
  });

  it('offers the operators after $ where an expectation stands, and the types after $type', () => {
    const inFlow = completeAt('cases:\n  a:\n    expect:\n      outputs:\n        report: { $co¦');
    assert.ok(inFlow.labels.includes('$contains') && inFlow.labels.includes('$match') && inFlow.labels.length === 12, inFlow.labels.join());
    assert.deepEqual(inFlow.replace, { start: inFlow.offset - 3, end: inFlow.offset });
    const contains = inFlow.items.find((item) => item.label === '$contains')!;
    assert.equal(contains.insertText, '\\$contains: $0');
    assert.match(contains.documentation ?? '', /^Holds for text containing this text/);
    const asValue = completeAt('cases:\n  a:\n    expect:\n      error: $¦');
    assert.equal(asValue.items.find((item) => item.label === '$match')!.insertText, '{ \\$match: $0 }', 'a value needs a mapping');
    assert.equal(
      completeAt('cases:\n  a:\n    mocks:\n      current:\n        expect_request:\n          headers:\n            x-api-key: { $¦')
        .labels.length,
      12,
    );
    assert.deepEqual(completeAt('cases:\n  a:\n    inputs: { city: $¦').labels, [], 'inputs are values, not expectations');
    assert.deepEqual(completeAt('cases:\n  a:\n    expect:\n      outputs:\n        temperature: { $type: ¦').labels, [
      'string',
      'number',
      'integer',
      'boolean',
      'object',
      'array',
      'null',
    ]);
  });

  it('still offers the keys without an agent to read', () => {
    const result = testFileCompletions('cases:\n  a:\n    mocks:\n      ', 'cases:\n  a:\n    mocks:\n      '.length);
    assert.deepEqual(result.items, []);
    assert.deepEqual(completeAt('cases:\n  a:\n    ¦', undefined).labels.slice(0, 3), ['description', 'inputs', 'files']);
  });
});

describe('test file hover', () => {
  const FILE = `agent: weather-report.agent.yaml
defaults:
  secrets: { WEATHER_API_KEY: test-key }
cases:
  sunny:
    inputs: { city: Lisbon, units: metric }
    mocks:
      current: { body: {}, expect_request: { headers: { x-api-key: { $contains: test } } } }
    expect:
      outputs:
        report: { $match: "^Lisbon" }
      fails_at: current
`;
  const at = (needle: string, shift = 1): string => {
    const index = FILE.indexOf(needle);
    assert.notEqual(index, -1, needle);
    return FILE.slice(0, index + shift) + '¦' + FILE.slice(index + shift);
  };

  it("describes keys with the schema's words", () => {
    assert.match(hoverAt(at('defaults:')) ?? '', /^\*\*Defaults of every case\*\*\n\n.*every case starts from/);
    assert.match(hoverAt(at('expect_request')) ?? '', /Checks on the request the node sent/);
  });

  it("describes the agent's names where the test uses them", () => {
    assert.match(hoverAt(at('city:')) ?? '', /^\*\*Input `city`\*\*: type `string`, required/);
    assert.match(hoverAt(at('units:')) ?? '', /one of `metric`, `imperial`/);
    assert.match(hoverAt(at('WEATHER_API_KEY')) ?? '', /^\*\*Secret `WEATHER_API_KEY`\*\*, used by node `current`/);
    assert.match(hoverAt(at('current: {')) ?? '', /^\*\*Node `current`\*\*: API node, `GET https:\/\/weather\.example\.com/);
    assert.match(hoverAt(at('report: {')) ?? '', /^\*\*Output `report`\*\*: from `\{\{ nodes\.report\.body \}\}`/);
    assert.match(hoverAt(at('current\n', 2)) ?? '', /^\*\*Node `current`\*\*/, 'the node fails_at names');
  });

  it('says what an operator checks, inside outputs and expect_request', () => {
    assert.match(hoverAt(at('$match')) ?? '', /^\*\*`\$match`\*\* holds for text matching this regular expression/);
    assert.match(hoverAt(at('$contains')) ?? '', /^\*\*`\$contains`\*\* holds for text containing/);
  });

  it('says nothing of names the agent does not have, or without an agent', () => {
    const { text, offset } = withCursor('cases:\n  a:\n    inputs: { ci¦ty: x }\n');
    assert.equal(testFileHover(text, offset), undefined);
    assert.equal(hoverAt('cases:\n  a:\n    mocks: { nowh¦ere: {} }\n'), undefined);
  });
});

describe('the agent a test file tests', () => {
  it('is the one agent: names, quoted or not, else the one its name implies', () => {
    assert.equal(agentPathOf('agent: ../weather.agent.yaml # the agent\ncases: {}\n', 'x.agent.test.yaml'), '../weather.agent.yaml');
    assert.equal(agentPathOf('agent: "my agent.agent.yaml"\n', 'x.agent.test.yaml'), 'my agent.agent.yaml');
    assert.equal(agentPathOf("agent: 'it''s.agent.yaml'\n", 'x.agent.test.yaml'), "it's.agent.yaml");
    assert.equal(agentPathOf('cases:\n  agent: no\n', 'weather.agent.test.yml'), 'weather.agent.yml', 'only a top-level agent: counts');
    assert.equal(
      agentPathOf('cases: [broken\nagent: a.agent.yaml\n', 'x.agent.test.yaml'),
      'a.agent.yaml',
      'read while the YAML is broken',
    );
  });

  // What the value was read with before; the answers must stay the same.
  const AGENT_LINE = /^agent[ \t]*:[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\n]|'')*)'|([^\s#'"][^\n#]*?))[ \t]*(?:#[^\n]*)?$/m;
  const before = (text: string): string => {
    const match = AGENT_LINE.exec(text);
    const named = match ? (match[1]?.replace(/\\(.)/g, '$1') ?? match[2]?.replace(/''/g, "'") ?? match[3]) : undefined;
    return named || 'x.agent.yaml';
  };

  it('reads the value as the regex did, for every short value and many longer ones of the characters that matter', () => {
    const alphabet = ['a', ' ', '\t', '#', '"', "'", '\\', '\n', '\r', ':'];
    const same = (value: string) => {
      for (const text of [`agent:${value}`, `agent :${value}\nagent: b`, `x\ragent: ${value}`])
        assert.equal(agentPathOf(text, 'x.agent.test.yaml'), before(text), JSON.stringify(text));
    };
    let values = [''];
    for (let length = 1; length <= 4; length++) {
      values = values.flatMap((value) => (value.length === length - 1 ? alphabet.map((c) => value + c) : []));
      values.forEach(same);
    }
    let seed = 1;
    const random = () => (seed = (seed * 48271) % 2147483647) % alphabet.length;
    for (let i = 0; i < 20_000; i++) same(Array.from({ length: 5 + (i % 8) }, () => alphabet[random()]).join(''));
  });

  it('answers at once for a line of 500,000 spaces', () => {
    // The regex took minutes here (mocha's timeout fails it); the scan is linear.
    const spaces = ' '.repeat(500_000);
    assert.equal(agentPathOf(`agent: a${spaces}b\n`, 'x.agent.test.yaml'), `a${spaces}b`);
    assert.equal(agentPathOf(`agent: "a"${spaces}b\nagent: c${spaces}\n`, 'x.agent.test.yaml'), 'c');
  });
});
