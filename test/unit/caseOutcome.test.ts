// How the editor's runs report a case (core/testing/caseOutcome): cases of a real test file run
// through loadSuite/runSuite beside a copy of the weather-report example, and each result mapped to
// its kind, messages (text, expected/actual, place) and output lines; plus the kinds a run decides
// without running a case (cancelled, left out of a continuous run, not reached, a file that cannot
// run or cannot be read, an untrusted workspace).
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  caseOutcome,
  continuousSkip,
  fileErrored,
  NOT_REACHED,
  TestFileLocations,
  UNTRUSTED,
  unrunnableFileOutcome,
} from '../../src/core/testing/caseOutcome';
import type { CaseResult } from '../../src/core/testing/caseResult';
import { MAX_SHOWN } from '../../src/core/testing/shownValue';
import { loadSuite, runSuite } from '../../src/core/testing/suite';
import type { LoadedSuite } from '../../src/core/testing/suite';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const TEST_FILE = `defaults:
  secrets: { WEATHER_API_KEY: k }
cases:
  sunny:
    inputs: { city: Lisbon }
    mocks:
      current: { body: { summary: Sunny, temperature: 24 } }
    expect:
      outputs:
        report: "Lisbon: Sunny, 24 degrees (metric)."
  wrong report:
    inputs: { city: Oslo }
    mocks:
      current: { body: { summary: Snow, temperature: -3 } }
    expect:
      outputs:
        report: "Oslo: Rain"
  cold enough:
    inputs: { city: Oslo }
    mocks:
      current: { body: { summary: Snow, temperature: -3 } }
    expect:
      outputs:
        temperature: { $lte: -10 }
  no city:
    inputs: { units: metric }
    mocks:
      current: { body: { summary: Snow, temperature: -3 } }
  long answer:
    inputs: { city: Oslo }
    mocks:
      current: { body: { summary: LONG, temperature: 1 } }
    expect:
      outputs:
        report: short
`;

/** The 1-based line and column of the first `marker` in `text`. */
function placeOf(text: string, marker: string): { line: number; column: number } {
  const index = text.indexOf(marker);
  assert.ok(index >= 0, `"${marker}" is in the text`);
  const before = text.slice(0, index).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

describe('case outcomes (what an editor run reports of a case)', () => {
  let dir: TempDir;
  let suite: LoadedSuite;
  let results: Map<string, CaseResult>;
  let locations: TestFileLocations;
  before(async () => {
    dir = makeTempDir();
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'weather-report.agent.yaml'));
    const text = TEST_FILE.replace('LONG', 'x'.repeat(3 * MAX_SHOWN));
    const loaded = loadSuite(dir.write('weather-report.agent.test.yaml', text));
    assert.ok('suite' in loaded, JSON.stringify(loaded));
    suite = loaded;
    results = new Map((await runSuite(suite)).map((result) => [result.name, result]));
    locations = new TestFileLocations('file:///w/weather-report.agent.test.yaml', suite.text);
  });
  after(() => dir.remove());

  const outcomeOf = (name: string, cancelled = false): ReturnType<typeof caseOutcome> =>
    caseOutcome(results.get(name)!, locations, { cancelled });

  it('a passing case: passed, with its time, no message, and a ✓ line', () => {
    const result = results.get('sunny')!;
    assert.deepEqual(outcomeOf('sunny'), {
      kind: 'passed',
      durationMs: result.durationMs,
      messages: [],
      output: [`  ✓ sunny (${result.durationMs} ms)`],
    });
  });

  it('a failed expectation: failed, at the expectation, the expected value beside what came', () => {
    const outcome = outcomeOf('wrong report');
    assert.equal(outcome.kind, 'failed');
    assert.equal(outcome.messages.length, 1);
    const [message] = outcome.messages;
    assert.equal(message!.expected, 'Oslo: Rain');
    assert.equal(message!.actual, 'Oslo: Snow, -3 degrees (metric).');
    assert.equal(message!.location!.file, 'file:///w/weather-report.agent.test.yaml');
    assert.equal(message!.location!.start.line, placeOf(suite.text, 'report: "Oslo: Rain"').line);
    assert.match(message!.message, /outputs\.report/);
    assert.deepEqual(outcome.output, [
      `  ✗ wrong report (${outcome.durationMs} ms)`,
      ...message!.message.split('\n').map((line) => `    ${line}`),
    ]);
  });

  it('an operator: what it asks for, in words, beside what came', () => {
    const [message] = outcomeOf('cold enough').messages;
    assert.equal(outcomeOf('cold enough').kind, 'failed');
    assert.match(message!.expected!, /-10/);
    assert.equal(message!.actual, '-3');
    assert.equal(message!.location!.start.line, placeOf(suite.text, '$lte: -10').line);
  });

  it('a case whose inputs were refused: errored (it did not run), at the case', () => {
    const outcome = outcomeOf('no city');
    assert.equal(outcome.kind, 'errored');
    assert.equal(results.get('no city')!.execution, undefined);
    assert.ok(outcome.messages.length > 0);
    assert.match(outcome.messages[0]!.message, /city/);
    assert.ok(outcome.messages[0]!.location);
  });

  it('bounds the message, expected and actual values against a long answer', () => {
    const [message] = outcomeOf('long answer').messages;
    for (const text of [message!.message, message!.expected!, message!.actual!])
      assert.ok(text.length <= MAX_SHOWN + 100, `${text.length}`);
    assert.match(message!.actual!, /characters\)$/);
  });

  it('a case stopped by the user is skipped, not failed; one that passed before the stop stays passed', () => {
    assert.deepEqual(outcomeOf('wrong report', true), { kind: 'skipped', messages: [], output: ['  - wrong report (cancelled)'] });
    assert.equal(outcomeOf('sunny', true).kind, 'passed');
  });

  it('keeps the notes and the origin a case ran on', () => {
    const ran: CaseResult = { ...results.get('sunny')!, ranOn: 'https://agents.example.com', notes: ['the deployment sends no requests'] };
    assert.deepEqual(caseOutcome(ran, locations, { cancelled: false }), {
      kind: 'passed',
      durationMs: ran.durationMs,
      messages: [],
      notes: ['the deployment sends no requests'],
      output: [`  ✓ sunny (${ran.durationMs} ms) (ran on https://agents.example.com)`, '    note: the deployment sends no requests'],
    });
  });

  it('leaves deployed and live cases out of a continuous run, saying why; runs the others', () => {
    assert.equal(continuousSkip({ name: 'local' }, { allDeployed: false }), undefined);
    const deployed = continuousSkip({ name: 'sent', deployed: true }, { allDeployed: false })!;
    assert.equal(deployed.kind, 'skipped');
    assert.match(deployed.notes![0]!, /runs on the deployment \(deployed: true\)/);
    assert.deepEqual(deployed.output, ['  - sent', `    note: ${deployed.notes![0]}`]);
    assert.match(continuousSkip({ name: 'all' }, { allDeployed: true })!.notes![0]!, /deployed: true/);
    assert.match(continuousSkip({ name: 'real', live: true }, { allDeployed: false })!.notes![0]!, /calls real APIs \(live: true\)/);
  });

  it('a case the run did not reach is skipped without a word', () => {
    assert.deepEqual(NOT_REACHED, { kind: 'skipped', messages: [], output: [] });
  });

  it('a test file that cannot run errors with its error problems at their places, or its failure', () => {
    const text = 'cases:\n  one:\n    agent: nowhere.agent.yaml\n';
    const at = new TestFileLocations('/w/t.agent.test.yaml', text);
    const start = text.indexOf('nowhere');
    const problem = {
      code: 'unknown-agent',
      severity: 'error',
      message: 'No agent file nowhere.agent.yaml.',
      span: { start, end: start + 'nowhere.agent.yaml'.length },
      range: { line: 3, column: 12, endLine: 3, endColumn: 30 },
    } as const;
    const warning = { ...problem, severity: 'warning', message: 'only a warning' } as const;
    assert.deepEqual(unrunnableFileOutcome('The agent cannot be loaded.', [problem, warning], at), {
      kind: 'errored',
      messages: [
        {
          message: 'No agent file nowhere.agent.yaml.',
          location: { file: '/w/t.agent.test.yaml', start: { line: 3, column: 12 }, end: { line: 3, column: 30 } },
        },
      ],
      output: ['  The agent cannot be loaded.', '    No agent file nowhere.agent.yaml.'],
    });
    assert.deepEqual(unrunnableFileOutcome(undefined, [warning], at), {
      kind: 'errored',
      messages: [{ message: 'The test file cannot run.' }],
      output: ['  The test file cannot run.', '    The test file cannot run.'],
    });
  });

  it('a test file that cannot be read errors with why, in the output too; an untrusted workspace at the item only', () => {
    assert.deepEqual(fileErrored('t.agent.test.yaml cannot be read'), {
      kind: 'errored',
      messages: [{ message: 't.agent.test.yaml cannot be read' }],
      output: ['t.agent.test.yaml cannot be read'],
    });
    assert.equal(UNTRUSTED.kind, 'errored');
    assert.match(UNTRUSTED.messages[0]!.message, /Restricted Mode/);
    assert.deepEqual(UNTRUSTED.output, []);
  });
});
