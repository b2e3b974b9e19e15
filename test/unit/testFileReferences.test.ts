// References and rename across an agent file and its test files (issue 27): the names a test file
// uses of its agent, found and renamed with it, quotes kept; test files of another agent untouched;
// rename started from a test file; the rename errors of agent files kept.
import assert from 'node:assert/strict';
import { indexAgentText, symbolAt } from '../../src/core/language/agentIndex';
import { RenameError } from '../../src/core/language/navigation';
import type { TextEdit } from '../../src/core/language/quickFixes';
import { loadSuiteFromText } from '../../src/core/testing/loadSuite';
import {
  crossFileReferences,
  crossFileRename,
  prepareTestFileRename,
  testFileNameAt,
  testFileNameSites,
} from '../../src/core/testing/testFileReferences';
import type { TestFileOfAgent } from '../../src/core/testing/testFileReferences';
import { validateAgentText } from '../../src/core/validation/validate';

const AGENT = `version: 1
name: Weather
inputs:
  city: { type: string, required: true }
  photo: { type: file }
nodes:
  current:
    type: api
    method: GET
    url: "https://api.example.com/now?q={{ inputs.city }}"
  report:
    type: template
    text: "{{ nodes.current.body.summary }} in {{ inputs.city }}"
outputs:
  summary: { from: "{{ nodes.report.body }}" }
`;

const TESTS = `agent: weather.agent.yaml
defaults:
  inputs: { city: Paris }
  mocks:
    current: { body: { summary: Sunny } }
cases:
  sunny:
    inputs:
      "city": Lisbon
    files: { photo: sky.png }
    expect:
      outputs:
        'summary': Sunny in Lisbon
      nodes:
        current: { status: 200 }
  down:
    mocks:
      current: { status: 503 }
    expect:
      fails_at: "current"
`;

/** A test file of another agent that uses the same names. */
const OTHER = `agent: other.agent.yaml
cases:
  a:
    inputs: { city: Rome }
    expect:
      fails_at: current
`;

const agent = { path: '/w/weather.agent.yaml', index: indexAgentText(AGENT) };
const testFiles: TestFileOfAgent[] = [
  { path: '/w/weather.agent.test.yaml', text: TESTS, agentPath: agent.path },
  { path: '/w/other.agent.test.yaml', text: OTHER, agentPath: '/w/other.agent.yaml' },
];

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.span.start - a.span.start))
    result = result.slice(0, edit.span.start) + edit.newText + result.slice(edit.span.end);
  return result;
}

const nameAt = (needle: string, within = 1) => symbolAt(agent.index, AGENT.indexOf(needle) + within);

describe('references and rename across an agent and its test files', () => {
  it('finds the names a test file uses of its agent: inputs, files, mocks, expected outputs and nodes, fails_at', () => {
    assert.deepEqual(
      testFileNameSites(TESTS).map((site) => `${site.kind} ${site.name} ${TESTS.slice(site.span.start, site.span.end)}`),
      [
        'input city city',
        'node current current',
        'input city "city"',
        'input photo photo',
        "output summary 'summary'",
        'node current current',
        'node current current',
        'node current "current"',
      ],
    );
    // A secret or an expectation's key is none of the agent's names.
    assert.equal(testFileNameAt(TESTS, TESTS.indexOf('status')), undefined);
  });

  it('lists the references of an input in the agent and in the test files of that agent only', () => {
    const found = crossFileReferences(agent, nameAt('city:'), testFiles, true);
    assert.deepEqual(
      found.map(({ path, span }) => `${path.replace('/w/', '')}:${(path === agent.path ? AGENT : TESTS).slice(span.start, span.end)}`),
      [
        'weather.agent.yaml:city',
        'weather.agent.yaml:city',
        'weather.agent.yaml:city',
        'weather.agent.test.yaml:city',
        'weather.agent.test.yaml:"city"',
      ],
    );
    assert.equal(crossFileReferences(agent, nameAt('city:'), testFiles, false).length, 4);
    assert.deepEqual(crossFileReferences(agent, undefined, testFiles, true), []);
  });

  it('renames a node in the agent and in its test file, keeping quotes, and both stay valid', () => {
    const changes = crossFileRename(agent, nameAt('current:'), testFiles, 'now');
    assert.deepEqual(
      changes.map((change) => change.path),
      [agent.path, '/w/weather.agent.test.yaml'],
    );
    const renamedAgent = applyEdits(AGENT, changes[0]!.edits);
    const renamedTests = applyEdits(TESTS, changes[1]!.edits);
    assert.match(renamedTests, /mocks:\n {4}now: \{ body/);
    assert.match(renamedTests, /fails_at: "now"\n/);
    assert.equal((renamedTests.match(/\bcurrent\b/g) ?? []).length, 0);
    assert.deepEqual(
      validateAgentText(renamedAgent).problems.filter((problem) => problem.severity !== 'info'),
      [],
    );
    const suite = loadSuiteFromText('/w/weather.agent.test.yaml', renamedTests, () => ({ text: renamedAgent }));
    assert.deepEqual(
      suite.problems.map((problem) => problem.code),
      [],
    );
  });

  it('renames an output, which only the agent declares and test files expect', () => {
    const summary = nameAt('summary:');
    assert.deepEqual(summary && { kind: summary.kind, name: summary.name }, { kind: 'output', name: 'summary' });
    const changes = crossFileRename(agent, summary, testFiles, 'text');
    assert.match(applyEdits(AGENT, changes[0]!.edits), /\n {2}text: \{ from/);
    assert.match(applyEdits(TESTS, changes[1]!.edits), /'text': Sunny in Lisbon/);
  });

  it('starts from a name in a test file, as from its declaration', () => {
    const offset = TESTS.indexOf('"city"') + 2;
    assert.deepEqual(prepareTestFileRename(TESTS, offset, agent.index), {
      span: { start: TESTS.indexOf('"city"') + 1, end: TESTS.indexOf('"city"') + 5 },
      name: 'city',
    });
    const fromTest = testFileNameAt(TESTS, offset);
    assert.deepEqual(crossFileReferences(agent, fromTest, testFiles, true), crossFileReferences(agent, nameAt('city:'), testFiles, true));
    const changes = crossFileRename(agent, testFileNameAt(TESTS, TESTS.indexOf('fails_at: "current"') + 12), testFiles, 'now');
    assert.equal(changes.length, 2);
    assert.throws(() => prepareTestFileRename(TESTS, TESTS.indexOf('status'), agent.index), /Only the names of inputs/);
    const unknown = 'cases:\n  a:\n    inputs: { town: Oslo }\n';
    assert.throws(() => prepareTestFileRename(unknown, unknown.indexOf('town'), agent.index), /has no input "town"/);
  });

  it('refuses what the agent refuses, and a name beside the old one in a test file', () => {
    assert.throws(() => crossFileRename(agent, nameAt('city:'), testFiles, 'two words'), RenameError);
    assert.throws(() => crossFileRename(agent, nameAt('city:'), testFiles, 'photo'), /already an input "photo"/);
    assert.throws(() => crossFileRename(agent, undefined, testFiles, 'x'), /Only input names, node ids and output names/);
    const clash = { path: '/w/clash.agent.test.yaml', text: 'cases:\n  a:\n    inputs: { city: A, town: B }\n', agentPath: agent.path };
    assert.throws(
      () => crossFileRename(agent, nameAt('city:'), [clash], 'town'),
      /clash\.agent\.test\.yaml already has "town" beside "city" \(line 3\)/,
    );
  });
});
