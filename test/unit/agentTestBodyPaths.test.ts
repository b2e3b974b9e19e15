// Expectations deep inside a node's body (`expect.nodes.ID.body_paths`): paths written as in
// expressions, followed into the mocked answer, each checked with the full vocabulary and reported
// at its own line; a path that cannot be read is a problem of the test file.
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineIndex } from '../../src/core/document/lineIndex';
import { loadSuite, runSuite } from '../../src/core/testing/suite';
import type { LoadedSuite, SuiteLoadFailure } from '../../src/core/testing/suite';
import { parseValuePath, valueAt } from '../../src/core/testing/valuePath';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const CASE = (paths: string): string => `defaults:
  secrets: { WEATHER_API_KEY: k }
  mocks:
    current:
      body: { summary: Sunny, temperature: 24, stations: [{ id: LIS-1, name: Lisbon Airport }, { id: LIS-2, name: Belem }] }
cases:
  deep:
    inputs: { city: Lisbon }
    expect:
      nodes:
        current:
          body_paths:
${paths}`;

describe('expectations inside a node body', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'weather-report.agent.yaml'));
  });
  afterEach(() => dir.remove());

  const loaded = (result: LoadedSuite | SuiteLoadFailure): LoadedSuite => {
    if (!('suite' in result)) assert.fail(`${result.message}: ${result.problems.map((p) => p.message).join('; ')}`);
    return result;
  };

  it('follows each path into the body and checks the value there', async () => {
    const suite = loaded(
      loadSuite(
        dir.write(
          'weather-report.agent.test.yaml',
          CASE(
            [
              '            stations[0].id: LIS-1',
              '            stations[1].name: { $contains: Bel }',
              '            stations: { $length: 2 }',
              '            stations[2]: { $absent: true }',
              '            temperature: { $gte: 20, $lt: 30 }',
              '',
            ].join('\n'),
          ),
        ),
      ),
    );
    const [result] = await runSuite(suite);
    assert.deepEqual(result!.failures, []);
  });

  it('reports a value that does not match at its own line, named by its path', async () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      CASE(['            stations[0].id: LIS-1', '            stations[1].id: LIS-9', '            missing.deeper: 1', ''].join('\n')),
    );
    const suite = loaded(loadSuite(file));
    const [result] = await runSuite(suite);
    assert.deepEqual(
      result!.failures.map((failure) => [failure.message, new LineIndex(suite.text).range(failure.span).line]),
      [
        ['nodes.current.body.stations[1].id: expected "LIS-9", got "LIS-2"', 14],
        ['nodes.current.body.missing.deeper: expected 1, got nothing (absent)', 15],
      ],
    );
  });

  it('refuses a path it cannot read, at its key', () => {
    const failure = loadSuite(dir.write('weather-report.agent.test.yaml', CASE('            stations[0: x\n'))) as SuiteLoadFailure;
    assert.deepEqual(
      failure.problems.map((problem) => [problem.code, problem.range.line, problem.message]),
      [
        [
          'invalid-expectation',
          13,
          '"stations[0" is not a path into the body. Write keys and list positions as in expressions: items[0].title, meta.total, ["a key"].',
        ],
      ],
    );
  });

  it('reads paths as expressions do, and follows them leniently', () => {
    assert.deepEqual(parseValuePath('items[0].title'), ['items', 0, 'title']);
    assert.deepEqual(parseValuePath('["odd key"].x'), ['odd key', 'x']);
    for (const bad of ['', 'a..b', 'items[0', 'x y']) assert.equal(parseValuePath(bad), undefined, bad);
    const value = { items: [{ title: 'a' }], n: null };
    assert.equal(valueAt(value, ['items', 0, 'title']), 'a');
    assert.equal(valueAt(value, ['items', 'title']), undefined, 'a list is indexed by numbers');
    assert.equal(valueAt(value, ['n', 'x']), undefined);
    assert.equal(valueAt(value, ['toString']), undefined, "only the value's own keys");
  });
});
