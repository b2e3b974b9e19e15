// A batch that cannot start as given: the core says why as facts (a problem with its kind and
// values, and a message that names no flag), the command line words it with its flags, and the
// editor with its own words, which name none.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BatchSetupError, runBatch } from '../../src/core/batch/runBatch';
import type { BatchOptions, BatchSetupProblem } from '../../src/core/batch/runBatch';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { batchSetupWords } from '../../src/runs/batchSetupWords';
import { rowsAgent } from '../support/batchService';
import { runCliCaptured } from '../support/cli';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

/** Every problem kind, as the core gives it: each adapter must word each one. */
const PROBLEMS: readonly BatchSetupProblem[] = [
  {
    kind: 'column-map',
    problems: [
      { kind: 'unknown-input', input: 'idd', column: 'number', suggestion: 'id', inputs: ['id', 'text', 'doc'] },
      { kind: 'column-twice', column: 'number', inputs: ['id', 'text'] },
    ],
  },
  { kind: 'bad-number', what: 'limit', value: 0 },
  { kind: 'bad-number', what: 'total', value: 1.5 },
  { kind: 'data-file', message: '/data/rows.txt: a data file must be .jsonl, .csv or .json.' },
  { kind: 'resume-without-results' },
  { kind: 'no-state', statePath: '/batches/b1/results.jsonl.state' },
  { kind: 'other-data', statePath: '/batches/b1/results.jsonl.state', started: '/data/old.jsonl', given: '/data/rows.jsonl' },
  { kind: 'other-mode', statePath: '/batches/b1/results.jsonl.state', started: 'local' },
  { kind: 'exists', file: 'results', path: '/batches/b1/results.jsonl' },
  { kind: 'unwritable', file: 'state', path: '/batches/b1/results.jsonl.state', reason: 'EACCES: permission denied' },
  { kind: 'unreadable', path: '/data/rows.jsonl', reason: 'ENOENT: no such file or directory' },
  {
    kind: 'resume-refused',
    refusal: { kind: 'files-changed', statePath: '/batches/b1/results.jsonl.state', files: [{ file: 'data', path: '/data/rows.jsonl' }] },
  },
];

describe('a batch that cannot start: facts from the core, words from each adapter', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => dir.remove());

  function options(extra: Partial<BatchOptions> = {}): BatchOptions {
    const agentPath = join(dir.path, 'rows.agent.yaml');
    const loaded = loadAgent(rowsAgent('http://127.0.0.1:9'), agentPath);
    dir.write('rows.jsonl', '{"id":1}\n');
    return {
      model: loaded.model,
      agentPath,
      agentText: rowsAgent('http://127.0.0.1:9'),
      dataPath: join(dir.path, 'rows.jsonl'),
      mode: { kind: 'local', agent: loaded, concurrency: 1, executionTimeoutMs: 5000 },
      ...extra,
    };
  }

  async function setupProblem(given: BatchOptions): Promise<BatchSetupError> {
    const error = await runBatch(given, () => undefined, new AbortController().signal).then(
      () => assert.fail('the batch started'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof BatchSetupError, String(error));
    assert.doesNotMatch(error.message, /--/, 'the core names no flag');
    return error;
  }

  it('gives the column mapping problems as facts: the input, the column, the closest input', async () => {
    const error = await setupProblem(
      options({
        columnMap: new Map([
          ['idd', 'number'],
          ['text', 'number'],
        ]),
      }),
    );
    assert.deepEqual(error.problem, {
      kind: 'column-map',
      problems: [
        { kind: 'unknown-input', input: 'idd', column: 'number', suggestion: 'id', inputs: ['id', 'text', 'doc'] },
        { kind: 'column-twice', column: 'number', inputs: ['idd', 'text'] },
      ],
    });
    assert.equal(
      error.message,
      'Column "number" is given to input "idd", which the agent does not have. Did you mean "id"?\nColumn "number" is given to both "idd" and "text".',
    );
  });

  it('gives a resume without a results file, a missing state and files in the way as facts', async () => {
    assert.deepEqual((await setupProblem(options({ resume: true }))).problem, { kind: 'resume-without-results' });
    const outPath = join(dir.path, 'out.jsonl');
    assert.deepEqual((await setupProblem(options({ resume: true, outPath }))).problem, { kind: 'no-state', statePath: `${outPath}.state` });
    dir.write('out.jsonl', '');
    assert.deepEqual((await setupProblem(options({ outPath }))).problem, { kind: 'exists', file: 'results', path: outPath });
    assert.deepEqual((await setupProblem(options({ limit: 0 }))).problem, { kind: 'bad-number', what: 'limit', value: 0 });
  });

  it('the command line words them with its flags', async () => {
    dir.write('rows.agent.yaml', rowsAgent('http://127.0.0.1:9'));
    dir.write('rows.jsonl', '{"id":1}\n');
    const cli = (...args: string[]) =>
      runCliCaptured(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--local', ...args], { cwd: dir.path, env: {} });
    const mapped = await cli('--map', 'idd=number', '--map', 'text=number');
    assert.equal(mapped.code, 2, mapped.stderr);
    assert.match(mapped.stderr, /--map idd=number: the agent has no input "idd"\. Did you mean "id"\?/);
    assert.match(mapped.stderr, /--map: column "number" is given to both "idd" and "text"\./);
    const resumed = await cli('--resume');
    assert.match(resumed.stderr, /--resume goes on with the batch of a results file: give its --out\./);
    const noState = await cli('--resume', '--out', 'out.jsonl');
    assert.match(noState.stderr, /There is no state file .*out\.jsonl\.state to resume from: run the batch without --resume\./);
    dir.write('out.jsonl', '');
    const exists = await cli('--out', 'out.jsonl');
    assert.match(exists.stderr, /out\.jsonl exists: give --resume to go on with that batch, or remove it \(or choose another --out\)/);
  });

  it('the editor words each of them without a flag, saying what to do', () => {
    const record = { resultsPath: '/batches/b1/results.jsonl' };
    for (const problem of PROBLEMS) {
      const words = batchSetupWords(problem, record);
      assert.doesNotMatch(words, /--|\bundefined\b/, `${problem.kind}: ${words}`);
      assert.ok(words.length > 20, `${problem.kind}: ${words}`);
    }
    assert.equal(
      batchSetupWords({ kind: 'no-state', statePath: '/batches/b1/results.jsonl.state' }, record),
      'Not resumed: its saved state (/batches/b1/results.jsonl.state) is gone, so which rows ran cannot be known. Run the agent on the dataset again for a new batch.',
    );
    assert.equal(
      batchSetupWords({ kind: 'exists', file: 'results', path: '/batches/b1/results.jsonl' }, record),
      "Not started: /batches/b1/results.jsonl exists already, and a new batch does not overwrite another's results. Resume that batch, or remove the file.",
    );
  });
});
