// Data files carry more than inputs: a column that is neither an input nor `expect.…` (an id, a
// label, notes) is said once before anything is sent, with a did-you-mean for a near-miss of an
// input's name, and kept in each row's result; --strict-columns keeps the refusal (such rows bad).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RowResult } from '../../src/core/batch/batchModel';
import { runBatch } from '../../src/core/batch/runBatch';
import type { BatchEvent } from '../../src/core/batch/runBatch';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { rowsAgent, startBatchService } from '../support/batchService';
import type { BatchService } from '../support/batchService';
import { runCliCaptured } from '../support/cli';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'batch-columns-key-4';

function readResults(path: string): RowResult[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RowResult)
    .sort((a, b) => a.row - b.row);
}

describe('batch: columns that are not inputs', () => {
  let dir: TempDir;
  let service: BatchService | undefined;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
    dir.remove();
  });

  const cli = (args: string[]) => runCliCaptured(args, { cwd: dir.path, env: { AGENT_WORKFLOWS_API_KEY: KEY } }, [KEY]);

  it('names them once before anything is sent, suggests the input of a near-miss, runs the rows and keeps them', async () => {
    service = await startBatchService({
      apiKey: KEY,
      durationMs: () => 20,
      outcome: (inputs) => ({ status: 'finished', outputs: { id: String(inputs.id) } }),
    });
    const s = service;
    dir.write('rows.agent.yaml', rowsAgent(s.url));
    dir.write(
      'rows.jsonl',
      [
        { key: 'a-1', id: 1, label: 'first', txet: 'typo', 'expect.id': '1' },
        { key: 'a-2', id: 2, label: 'second', notes: null },
        { key: 'a-3', id: 'x', label: 'bad id' },
      ]
        .map((row) => JSON.stringify(row))
        .join('\n') + '\n',
    );
    const result = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--rate', '100']);
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stderr.split('\n');
    const said = lines.filter((line) => /of the data are not inputs/.test(line));
    assert.deepEqual(said, [
      `columns "key", "label", "txet" and "notes" of the data are not inputs: kept in each row's result, not sent (--strict-columns makes such rows bad)`,
    ]);
    assert.ok(lines.includes(`  column "txet": did you mean input "text"? (--map text=txet reads it as that input)`), result.stderr);
    assert.ok(lines.indexOf(said[0]!) < lines.findIndex((line) => line.startsWith('batch of 3 rows')), 'said before the batch starts');
    assert.match(result.stderr, /row 3, column "id": Input "id" must be a number/);
    assert.deepEqual(
      s.started.map((execution) => execution.inputs).sort((a, b) => Number(a.id) - Number(b.id)),
      [{ id: 1 }, { id: 2 }],
      'the other columns are never sent',
    );
    const results = readResults(join(dir.path, 'out.jsonl'));
    assert.deepEqual(
      results.map((line) => [line.row, line.status, line.columns]),
      [
        [1, 'finished', { key: 'a-1', label: 'first', txet: 'typo' }],
        [2, 'finished', { key: 'a-2', label: 'second', notes: null }],
        [3, 'skipped', { key: 'a-3', label: 'bad id' }],
      ],
    );
    assert.equal(results[0]?.passed, true, 'expect.… columns are still expectations');
    assert.deepEqual(Object.keys(results[0]!).slice(0, 2), ['row', 'status'], 'row and status still come first');
  });

  it('--strict-columns keeps the refusal: the rows that fill such a column are bad, and the line says so', async () => {
    dir.write('rows.agent.yaml', rowsAgent('http://127.0.0.1:9'));
    dir.write('rows.csv', 'id,txet\n1,hello\n2,\n');
    const result = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.csv', '--out', 'out.jsonl', '--local', '--strict-columns']);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /column "txet" of the data is not an input: with --strict-columns the rows that fill it are skipped\n {2}column "txet": did you mean input "text"\?/,
    );
    assert.match(result.stderr, /row 1, column "txet": The agent has no input "txet"\. Did you mean "text"\?/);
    const results = readResults(join(dir.path, 'out.jsonl'));
    assert.deepEqual(
      results.map((line) => `${line.row}:${line.status}`),
      ['1:skipped', '2:finished'],
      'an empty cell fills nothing',
    );
  });

  it('the core says it as a fact before any row starts; a CSV header is surveyed, a column named __proto__ kept as any', async () => {
    const agentPath = join(dir.path, 'rows.agent.yaml');
    dir.write('rows.agent.yaml', rowsAgent('http://127.0.0.1:9'));
    dir.write('rows.csv', 'id,__proto__,Text\n1,p,T\n');
    const loaded = loadAgent(rowsAgent('http://127.0.0.1:9'), agentPath);
    const events: BatchEvent[] = [];
    const summary = await runBatch(
      {
        model: loaded.model,
        agentPath,
        agentText: rowsAgent('http://127.0.0.1:9'),
        dataPath: join(dir.path, 'rows.csv'),
        outPath: join(dir.path, 'out.jsonl'),
        mode: { kind: 'local', agent: loaded, concurrency: 1, executionTimeoutMs: 5000 },
      },
      (event) => events.push(event),
      new AbortController().signal,
    );
    assert.equal(summary.finished, 1);
    const kinds = events.map((event) => event.kind).filter((kind) => kind !== 'progress');
    assert.deepEqual(kinds.slice(0, 3), ['other-columns', 'prepared', 'row-started']);
    const fact = events[0] as Extract<BatchEvent, { kind: 'other-columns' }>;
    assert.deepEqual(fact.columns, {
      columns: [{ name: '__proto__' }, { name: 'Text', suggestion: 'text' }],
      notListed: 0,
      strict: false,
    });
    const [line] = readResults(join(dir.path, 'out.jsonl'));
    assert.equal(readFileSync(join(dir.path, 'out.jsonl'), 'utf8').includes('"columns":{"__proto__":"p","Text":"T"}'), true);
    assert.equal(line?.status, 'finished');
  });

  it('a data file of only inputs says nothing about columns', async () => {
    dir.write('rows.agent.yaml', rowsAgent('http://127.0.0.1:9'));
    dir.write('rows.jsonl', '{"id":1,"expect.id":"1"}\n');
    const result = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--local']);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /not an input/);
    assert.equal(readResults(join(dir.path, 'out.jsonl'))[0]?.columns, undefined);
  });
});

describe("the editor's words for columns that are not inputs", () => {
  it('names them, says they are kept, and suggests the input of a near-miss; many are counted', async () => {
    const { otherColumnsWords } = await import('../../src/runs/batchSetupWords');
    const { otherColumns } = await import('../../src/core/batch/rowInputs');
    const model = loadAgent(rowsAgent('http://127.0.0.1:9'), '/a/rows.agent.yaml').model;
    const few = otherColumns(model, { columns: ['id', 'label', 'txet', 'expect.id'], columnsNotListed: 0 });
    assert.ok(few);
    assert.equal(
      otherColumnsWords(few),
      `Columns "label" and "txet" are not inputs of the agent: they are not sent, and kept in each row's result. Rename a column that should be an input: "txet" (did you mean the input "text"?).`,
    );
    const many = otherColumns(model, { columns: Array.from({ length: 12 }, (_, i) => `c${i}`), columnsNotListed: 5 });
    assert.match(otherColumnsWords(many!), /^Columns "c0", .*"c9" and 7 more are not inputs of the agent/);
    assert.equal(otherColumns(model, { columns: ['id', 'text'], columnsNotListed: 0 }), undefined);
  });
});
