// What the editor's batch comparison takes from the core: the batch to compare a batch with (the
// last earlier one of the same agent and data file), the table's rows in the report's order with
// the command line's words and its filter, and one row of a results file read back (its last
// line) with its text for the diff editor.
import assert from 'node:assert/strict';
import type { RowResult } from '../../src/core/batch/batchModel';
import { previousBatchOf } from '../../src/core/batch/batchRecord';
import type { BatchRecord } from '../../src/core/batch/batchRecord';
import { compareRuns } from '../../src/core/compare/compareRuns';
import { compareTableRows, filterCompareRows, isCompareFilter } from '../../src/core/compare/compareTable';
import { readResultRow, resultRowCompareText } from '../../src/core/compare/resultRow';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const lines = (rows: readonly RowResult[]): string => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

const batch = (key: string, startedAt: number, extra: Partial<BatchRecord> = {}): BatchRecord => ({
  key,
  agentName: 'Lookup',
  file: 'file:///w/lookup.agent.yaml',
  dataPath: '/w/people.jsonl',
  mode: 'local',
  resultsPath: `/s/${key}/results.jsonl`,
  statePath: `/s/${key}/results.jsonl.state`,
  concurrency: 8,
  ratePerSecond: 10,
  state: 'finished',
  startedAt,
  ...extra,
});

describe('comparing batches in the editor (core)', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => dir.remove());

  it('the previous batch is the last earlier one of the same agent and data file that is not running', () => {
    const now = batch('now', 500);
    const records = [
      now,
      batch('running', 400, { state: 'running' }),
      batch('other-data', 300, { dataPath: '/w/other.jsonl' }),
      batch('other-agent', 300, { file: 'file:///w/other.agent.yaml' }),
      batch('stopped', 200, { state: 'stopped' }),
      batch('older', 100),
      batch('later', 600),
    ];
    assert.equal(previousBatchOf(records, now)?.key, 'stopped');
    assert.equal(previousBatchOf(records, batch('first', 50)), undefined);
  });

  it('lists regressions, then fixes, then other changes, in the command line words, and filters them', async () => {
    const a = dir.write(
      'a.jsonl',
      lines([
        { row: 1, status: 'finished', outputs: { title: 'Dr Ada' } },
        { row: 2, status: 'finished', outputs: { title: 'Dr Grace' } },
        { row: 3, status: 'failed', error: 'no such person' },
        { row: 4, status: 'finished', outputs: { title: 'Dr Alan' } },
      ]),
    );
    const b = dir.write(
      'b.jsonl',
      lines([
        { row: 1, status: 'finished', outputs: { title: 'Dr Ada' } },
        { row: 2, status: 'finished', outputs: { title: 'Prof Grace' } },
        { row: 3, status: 'finished', outputs: { title: 'Dr Nobody' } },
        { row: 4, status: 'failed', error: 'lost' },
      ]),
    );
    const rows = compareTableRows(await compareRuns(a, b));
    assert.deepEqual(
      rows.map((row) => [row.index, row.verdict, row.label, row.status, row.words]),
      [
        [0, 'regression', 'row 4', 'finished → failed', 'finished → failed'],
        [1, 'fix', 'row 3', 'failed → finished', 'failed → finished'],
        [2, 'changed', 'row 2', '', 'outputs changed: title'],
      ],
    );
    assert.equal(rows[2]?.diff, 'title:\n  - Dr Grace\n  + Prof Grace');
    assert.deepEqual(
      filterCompareRows(rows, { verdict: 'all', text: 'GRACE' }).map((row) => row.label),
      ['row 2'],
    );
    assert.deepEqual(
      filterCompareRows(rows, { verdict: 'fix', text: '' }).map((row) => row.label),
      ['row 3'],
    );
    assert.ok(isCompareFilter({ verdict: 'regression', text: '' }));
    assert.ok(!isCompareFilter({ verdict: 'worse', text: '' }));
  });

  it("reads a row's last line back, and words it for the diff editor without times", async () => {
    const path = dir.write(
      'r.jsonl',
      lines([
        { row: 1, status: 'finished', outputs: { b: 1, a: 2 }, inputs: { who: 'Ada' }, durationMs: 5 },
        { row: 2, status: 'unknown' },
        { row: 12, status: 'finished', outputs: { title: 'not row 1' } },
        { row: 2, status: 'failed', inputs: { who: 'Alan' }, error: { status: 'Failed' }, startedAt: '2026-01-01T00:00:00Z' },
      ]) + 'not json\n',
    );
    const row2 = await readResultRow(path, 2);
    assert.equal(row2?.status, 'failed', 'the last line of the row is its result');
    assert.equal(await readResultRow(path, 3), undefined);
    assert.equal(
      resultRowCompareText('B, row 2', row2),
      '// B, row 2: failed\n\n// outputs\n// (none)\n\n// error\n{\n  "status": "Failed"\n}\n\n// inputs\n{\n  "who": "Alan"\n}\n',
    );
    assert.match(resultRowCompareText('A, row 1', await readResultRow(path, 1)), /\/\/ outputs\n\{\n {2}"a": 2,\n {2}"b": 1\n\}\n/);
    assert.equal(resultRowCompareText('A, row 3', undefined), "// A, row 3: not in this batch's results\n");
  });
});
