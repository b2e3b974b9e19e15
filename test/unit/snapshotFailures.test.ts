// What writing a snapshot would put right is a fact of each failure (its code): the command line
// words it with its flag, the editor offers Update Snapshot on the message (caseOutcome keeps it).
import assert from 'node:assert/strict';
import { caseOutcome, TestFileLocations } from '../../src/core/testing/caseOutcome';
import { loadSuite, runSuite } from '../../src/core/testing/suite';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const AGENT = `version: 1
name: Greet
inputs:
  who: { type: string, required: true }
nodes:
  greet:
    type: template
    text: "Hello {{ inputs.who }}"
outputs:
  greeting: { from: "{{ nodes.greet.body }}" }
`;

const TESTS = `cases:
  no snapshot yet:
    snapshot: true
    inputs: { who: Ada }
  snapshot differs:
    snapshot: true
    inputs: { who: Ada }
    expect:
      outputs:
        greeting: Hello Bo
  not a snapshot:
    inputs: { who: Ada }
    expect:
      outputs:
        greeting: Hello Bo
`;

describe('snapshot failures', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    dir.write('greet.agent.yaml', AGENT);
    dir.write('greet.agent.test.yaml', TESTS);
  });
  afterEach(() => dir.remove());

  it('says which failures writing the snapshot would put right, and the outcome keeps it', async () => {
    const loaded = loadSuite(`${dir.path}/greet.agent.test.yaml`);
    if (!('suite' in loaded)) assert.fail(loaded.message);
    const results = await runSuite(loaded);
    assert.deepEqual(
      results.map((result) => [result.name, result.failures.map((failure) => [failure.code, failure.message])]),
      [
        ['no snapshot yet', [['snapshot-missing', 'No snapshot of the outputs yet.']]],
        ['snapshot differs', [['snapshot-differs', 'outputs.greeting: expected "Hello Bo", got "Hello Ada"']]],
        ['not a snapshot', [[undefined, 'outputs.greeting: expected "Hello Bo", got "Hello Ada"']]],
      ],
    );
    const locations = new TestFileLocations('greet.agent.test.yaml', loaded.text);
    assert.deepEqual(
      results.map((result) => caseOutcome(result, locations, { cancelled: false }).messages.map((message) => message.code)),
      [['snapshot-missing'], ['snapshot-differs'], [undefined]],
    );
  });
});
