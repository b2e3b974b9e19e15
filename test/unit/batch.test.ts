// `agent-workflows batch`: data files of every kind (and bad ones, named by row and column), against
// real servers on 127.0.0.1 that throttle, fail rows and restart, a batch process killed mid-run
// then resumed (asserted on the server's own log of execute requests), and the exit codes.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { onAnswered, onConnectError } from '../support/clientChannels';
import { DataFileError, readDataRows } from '../../src/core/batch/dataRows';
import type { DataRow } from '../../src/core/batch/dataRows';
import { readBatchResults } from '../../src/core/batch/resultsTable';
import { runBatch } from '../../src/core/batch/runBatch';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { rowsAgent, startBatchService } from '../support/batchService';
import type { BatchService, BatchServiceOptions } from '../support/batchService';
import { ECHO_KEYS, echoedForms, leakedPart } from '../support/echoedSecrets';
import { startFakeService } from '../support/fakeAgentService';
import { closedPort, json, startServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import type { RowResult } from '../../src/core/batch/batchModel';

const KEY = 'batch-test-key-9';

function readResults(path: string): RowResult[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RowResult);
}

/** The arguments of a batch of rows.agent.yaml over `data`, then `extra`. */
function batchArgs(data: string, ...extra: string[]): string[] {
  return ['batch', 'rows.agent.yaml', '--data', data, ...extra];
}

function jsonl(rows: readonly unknown[]): string {
  return rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n') + '\n';
}

describe('agent-workflows batch', () => {
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

  const cli = (args: string[], options: { env?: Record<string, string>; interrupt?: AbortSignal } = {}) =>
    runCliCaptured(
      args,
      {
        cwd: dir.path,
        env: options.env ?? { AGENT_WORKFLOWS_API_KEY: KEY },
        ...(options.interrupt ? { interrupt: options.interrupt } : {}),
      },
      [KEY],
    );

  async function serve(options: Omit<BatchServiceOptions, 'apiKey'> = {}): Promise<BatchService> {
    service = await startBatchService({ apiKey: KEY, durationMs: () => 100, ...options });
    dir.write('rows.agent.yaml', rowsAgent(service.url));
    return service;
  }

  const startedIds = (s: BatchService): number[] => s.started.map((execution) => Number(execution.inputs.id)).sort((a, b) => a - b);

  describe('data files', () => {
    it('reports each bad row by row and column, skips it, never sends it, and lists it', async () => {
      const s = await serve();
      dir.write(
        'rows.jsonl',
        jsonl([
          { id: 1 },
          '{"id": 2,',
          { id: 3, colour: 'red' },
          { id: 'three' },
          { text: 'no id' },
          { id: 6, doc: 'missing.pdf' },
          '',
          { id: 7, text: 'ok' },
          [1, 2],
        ]),
      );
      const result = await cli(batchArgs('rows.jsonl', '--out', 'out.jsonl', '--rate', '100', '--strict-columns'));
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /row 2: line 2 is not valid JSON/);
      assert.match(result.stderr, /row 3, column "colour": The agent has no input "colour"/);
      assert.match(result.stderr, /row 4, column "id": Input "id" must be a number, not "three"/);
      assert.match(result.stderr, /row 5, column "id": Input "id" is required: fill column "id"/);
      assert.match(result.stderr, /row 6, column "doc": the file "missing\.pdf" does not exist/);
      assert.match(result.stderr, /row 8: line 9 is an array, not an object/);
      assert.match(result.stderr, /8 rows: 2 finished, 6 skipped \(bad data\)/);
      assert.deepEqual(startedIds(s), [1, 7], 'only the good rows were sent');
      const lines = readResults(join(dir.path, 'out.jsonl'));
      assert.deepEqual(lines.map((line) => `${line.row}:${line.status}`).sort(), [
        '1:finished',
        '2:skipped',
        '3:skipped',
        '4:skipped',
        '5:skipped',
        '6:skipped',
        '7:finished',
        '8:skipped',
      ]);
      assert.equal(lines.find((line) => line.row === 6)?.problems?.[0]?.column, 'doc');
    });

    it("names a bad row's column from the input its problem is about, whatever the column's name holds", async () => {
      dir.write('rows.agent.yaml', rowsAgent('http://127.0.0.1:9'));
      // A column named with quotes: the problem's wording, The agent has no input "say "hi"", is no guide to it.
      dir.write('rows.jsonl', jsonl([{ number: 1, 'say "hi"': 'x' }, { number: 'two' }, { text: 'no number' }]));
      const result = await cli([
        'batch',
        'rows.agent.yaml',
        '--data',
        'rows.jsonl',
        '--map',
        'id=number',
        '--out',
        'out.jsonl',
        '--local',
        '--strict-columns',
      ]);
      assert.equal(result.code, 1, result.stderr);
      const byRow = new Map(readResults(join(dir.path, 'out.jsonl')).map((line) => [line.row, line]));
      assert.deepEqual(
        byRow.get(1)?.problems?.map((problem) => problem.column),
        ['say "hi"'],
        'the unknown column',
      );
      assert.deepEqual(
        byRow.get(2)?.problems?.map((problem) => problem.column),
        ['number'],
        'the mapped column, not the input "id" its message names',
      );
      assert.deepEqual(
        byRow.get(3)?.problems?.map((problem) => problem.column),
        ['number'],
        'the column a required input is read from',
      );
    });

    it('reads CSV with a header (not a row), reports a ragged row and maps columns with --map', async () => {
      const s = await serve({ outcome: (inputs) => ({ status: 'finished', outputs: { id: String(inputs.id) } }) });
      dir.write('rows.csv', 'number,text,expect.id\n1,one,1\n2,"two, with a comma"\n3,three,4\n"4","multi\nline",4\n');
      const result = await cli(batchArgs('rows.csv', '--map', 'id=number', '--out', 'out.jsonl', '--rate', '100'));
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /row 2, column "expect\.id": line 3 has 2 values but the header names 3 columns \(skipped\)/);
      assert.match(result.stderr, /pass rate 66\.7% \(2\/3 rows with expectations\)/);
      assert.deepEqual(startedIds(s), [1, 3, 4]);
      const byRow = new Map(readResults(join(dir.path, 'out.jsonl')).map((line) => [line.row, line]));
      assert.equal(byRow.get(1)?.passed, true);
      assert.equal(byRow.get(3)?.passed, false);
      assert.deepEqual(byRow.get(4)?.inputs, { id: 4, text: 'multi\nline' });
    });

    it('an empty, unreadable or unknown data file is a usage error before anything is sent', async () => {
      const s = await serve();
      dir.write('empty.jsonl', '\n\n');
      dir.write('header.csv', 'id,text\n');
      dir.write('rows.txt', 'id\n1\n');
      dir.write('object.json', '{"id": 1}');
      dir.write('broken.csv', 'id,text\n1,"never closed\n');
      // A FIFO would block the open forever, a link to /dev/zero never end: refused before reading.
      execFileSync('mkfifo', [join(dir.path, 'pipe.jsonl')]);
      symlinkSync('/dev/zero', join(dir.path, 'zero.csv'));
      for (const [data, message] of [
        ['pipe.jsonl', /pipe\.jsonl is not a regular file \(it is a FIFO\); only regular files are read/],
        ['zero.csv', /zero\.csv is not a regular file \(it is a character device\)/],
        ['empty.jsonl', /empty\.jsonl has no data rows/],
        ['header.csv', /header\.csv has no data rows \(only a header/],
        ['missing.jsonl', /missing\.jsonl cannot be read/],
        ['rows.txt', /must be \.jsonl .*\.csv .*\.json/],
        ['object.json', /must hold a JSON array of objects/],
        ['broken.csv', /broken\.csv cannot be read as CSV: .*[Qq]uote/],
      ] as const) {
        const result = await cli(batchArgs(data));
        assert.equal(result.code, 2, `${data}: ${result.stderr}`);
        assert.match(result.stderr, message);
      }
      assert.equal(s.log.length, 0, 'nothing was sent');
    });

    it('bounds rows and .json files: a too long line is a bad row, a too large .json file says to use .jsonl', async () => {
      const long = dir.write('long.jsonl', jsonl([{ id: 1 }, { id: 2, text: 'x'.repeat(500) }, { id: 3 }]));
      const rows: DataRow[] = [];
      for await (const row of readDataRows(long, { maxRowBytes: 100 })) rows.push(row);
      assert.deepEqual(
        rows.map((row) => ('problem' in row ? `${row.row}: ${row.problem.message}` : `${row.row}: ok`)),
        ['1: ok', '2: line 2 is longer than 100 bytes, the most a row may have', '3: ok'],
      );
      const big = dir.write('big.json', JSON.stringify([{ id: 1 }, { id: 2 }]));
      await assert.rejects(
        async () => {
          for await (const row of readDataRows(big, { maxJsonFileBytes: 10 })) void row;
        },
        (error: unknown) => error instanceof DataFileError && /write it as \.jsonl/.test(error.message),
      );
    });

    it('bad rows do not amplify: problems kept and printed per row, and rows printed, are capped, the rest counted', async () => {
      await serve({
        // A row that fails with a huge answer: its error in the results is cut.
        outcome: (inputs) =>
          Number(inputs.id) === 1 ? { status: 'failed', outputs: { dump: 'x'.repeat(2_000_000) } } : { status: 'finished' },
      });
      const columns = Array.from({ length: 5000 }, (_, i) => `c${i}`);
      const wide = Array.from({ length: 5000 }, () => '1').join(',');
      // Row 1 is good; rows 2 to 26 have 5,000 unknown columns each and no id.
      const csv = [['id', ...columns].join(','), `1,${Array.from({ length: 5000 }, () => '').join(',')}`];
      for (let row = 2; row <= 26; row++) csv.push(`,${wide}`);
      dir.write('wide.csv', csv.join('\n') + '\n');
      const result = await cli(batchArgs('wide.csv', '--out', 'out.jsonl', '--strict-columns'));
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /26 rows: 0 finished, 1 failed, 25 skipped \(bad data\)/);
      const printed = result.stderr.split('\n');
      assert.ok(printed.length < 20 * 22 + 20, `stderr has ${printed.length} lines`);
      assert.equal(printed.filter((line) => /^row 2, column "c\d+"/.test(line)).length, 20, '20 problems printed for a row');
      assert.ok(printed.includes('row 2: and 4,981 more problems (the first 20 are in the results)'), result.stderr.slice(0, 3000));
      assert.ok(!printed.some((line) => line.startsWith('row 22,')), 'the problems of 20 rows are printed');
      assert.match(result.stderr, /… and 5 more bad rows \(listed in --out\)/);
      const lines = readResults(join(dir.path, 'out.jsonl'));
      const skipped = lines.filter((line) => line.status === 'skipped');
      assert.equal(skipped.length, 25);
      for (const line of skipped) {
        assert.equal(line.problems?.length, 20);
        assert.equal(line.problemsNotListed, 4981);
      }
      const failed = lines.find((line) => line.row === 1)!;
      assert.equal(failed.status, 'failed');
      assert.equal(typeof failed.error, 'string', 'a huge error is cut to text');
      assert.ok(Buffer.byteLength(String(failed.error)) <= 17_000, `the error is ${Buffer.byteLength(String(failed.error))} bytes`);
      assert.match(String(failed.error), /… \(cut: 2,0\d\d,\d\d\d bytes in all\)$/);
      assert.ok(readFileSync(join(dir.path, 'out.jsonl')).length < 200_000, 'the results file stays small');
    });

    it('sends a file column as a multipart upload, its path relative to the data file', async () => {
      const fake = await startFakeService(KEY);
      try {
        dir.write('rows.agent.yaml', rowsAgent(fake.url));
        dir.write('data/docs/a.txt', 'contents of a');
        dir.write('data/rows.json', JSON.stringify([{ id: 1, doc: 'docs/a.txt' }]));
        const result = await cli(batchArgs('data/rows.json', '--out', 'out.jsonl'));
        assert.equal(result.code, 0, result.stderr);
        assert.equal(fake.starts.length, 1);
        assert.match(fake.starts[0]!.path, /\/execute\/multipart$/);
        assert.equal(fake.starts[0]!.parts.find((part) => part.name === 'doc')?.data.toString(), 'contents of a');
        const [line] = readResults(join(dir.path, 'out.jsonl'));
        assert.deepEqual(line?.inputs, { id: 1, doc: 'docs/a.txt' }, 'the file is shown by its path, never inlined');
      } finally {
        await fake.close();
      }
    });

    it('--resume reads a results line as the results table does: one with an unknown status ends no row', async () => {
      dir.write('rows.agent.yaml', rowsAgent('http://127.0.0.1:9'));
      dir.write('rows.jsonl', jsonl([{ id: 1 }, { id: 2 }]));
      const header = {
        batch: 1,
        agent: 'rows.agent.yaml',
        data: join(dir.path, 'rows.jsonl'),
        mode: 'local',
        createdAt: '2026-01-01T00:00:00Z',
      };
      dir.write('out.jsonl.state', jsonl([header]));
      // Written by something else (or a later version): not a row's result for the table, nor for --resume.
      dir.write(
        'out.jsonl',
        jsonl([
          { row: 1, status: 'paused' },
          { row: 2, status: 'finished', outputs: { id: '2' } },
        ]),
      );
      const before = await readBatchResults(join(dir.path, 'out.jsonl'));
      assert.deepEqual([before.total, before.badLines], [1, 1]);

      const resumed = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--local', '--resume']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /2 rows: 2 finished/);
      const after = await readBatchResults(join(dir.path, 'out.jsonl'));
      assert.deepEqual(
        after.rows.map((row) => [row.row, row.status]),
        [
          [2, 'finished'],
          [1, 'finished'],
        ],
        'row 1 ran on resume',
      );
      assert.equal(after.counts.finished, 2);
    });

    it('runBatch takes the row count its caller made to confirm the batch, and counts again on resume', async () => {
      const loaded = loadAgent(rowsAgent('http://127.0.0.1:9'), join(dir.path, 'rows.agent.yaml'));
      dir.write('rows.jsonl', jsonl([{ id: 1 }, { id: 2 }]));
      const options = {
        model: loaded.model,
        agentPath: join(dir.path, 'rows.agent.yaml'),
        agentText: rowsAgent('http://127.0.0.1:9'),
        dataPath: join(dir.path, 'rows.jsonl'),
        outPath: join(dir.path, 'out.jsonl'),
        mode: { kind: 'local', agent: loaded, concurrency: 1, executionTimeoutMs: 5000 } as const,
      };
      // Two rows were counted and confirmed; a third written since is not part of this batch.
      dir.write('rows.jsonl', jsonl([{ id: 1 }, { id: 2 }, { id: 3 }]));
      const first = await runBatch({ ...options, total: 2 }, () => undefined, new AbortController().signal);
      assert.equal(first.total, 2);
      assert.deepEqual(
        readResults(join(dir.path, 'out.jsonl')).map((line) => line.row),
        [1, 2],
      );
      // A resumed batch counts the file as it now is (a count given is not used).
      const resumed = await runBatch({ ...options, total: 1, resume: true }, () => undefined, new AbortController().signal);
      assert.deepEqual([resumed.total, resumed.finished], [3, 3]);
      assert.deepEqual(
        readResults(join(dir.path, 'out.jsonl')).map((line) => line.row),
        [1, 2, 3],
      );
    });

    it('runs rows on this machine with --local, concurrently, and gives a pass rate', async () => {
      dir.write('rows.agent.yaml', rowsAgent('http://127.0.0.1:9'));
      dir.write(
        'rows.jsonl',
        jsonl([
          { id: 1, 'expect.id': '1' },
          { id: 2, 'expect.id': '2' },
          { id: 3, 'expect.id': 'three' },
        ]),
      );
      const failing = await cli(batchArgs('rows.jsonl', '--local', '--concurrency', '2'));
      assert.equal(failing.code, 1, failing.stderr);
      assert.match(failing.stderr, /3 rows: 3 finished/);
      assert.match(failing.stderr, /pass rate 66\.7% \(2\/3/);
      const passing = await cli(batchArgs('rows.jsonl', '--local', '--limit', '2'));
      assert.equal(passing.code, 0, passing.stderr);
      assert.match(passing.stderr, /2 rows: 2 finished/);
      // On a terminal the progress is one line redrawn in place, cleared before the summary.
      let control = '';
      const { code, stderr } = await runCliCaptured(batchArgs('rows.jsonl', '--local'), {
        terminal: (t) => (control += t),
        stderrIsTTY: true,
        cwd: dir.path,
        env: {},
      });
      assert.equal(code, 1);
      assert.match(control, /^(\r\u001b\[2K)+$/);
      assert.match(stderr, /\d\/3 rows · [\d.]+\/s/);
      assert.match(stderr, /3 rows: 3 finished/);
    });
  });

  describe('against a service', () => {
    it('keeps starts and polls together within --rate requests a second', async () => {
      const s = await serve({ durationMs: () => 50 });
      dir.write('rows.jsonl', jsonl(Array.from({ length: 12 }, (_, i) => ({ id: i + 1 }))));
      const result = await cli(batchArgs('rows.jsonl', '--concurrency', '12', '--rate', '8'));
      assert.equal(result.code, 0, result.stderr);
      // A token bucket of 8 a second holds at most 1.6 requests: no second sees more than 8 + 1.
      const times = s.log.map((entry) => entry.at);
      const busiest = Math.max(...times.map((at) => times.filter((other) => other >= at && other < at + 1000).length));
      assert.ok(busiest <= 9, `${busiest} requests in one second`);
      assert.ok(s.log.length >= 24, 'a start and at least one poll per row');
    });

    it("--expect applies a test file's output expectations to every row", async () => {
      await serve({
        outcome: (inputs) => ({ status: 'finished', outputs: { id: Number(inputs.id) === 3 ? 'three' : String(inputs.id) } }),
      });
      dir.write('rows.jsonl', jsonl([{ id: 1 }, { id: 2 }, { id: 3 }]));
      dir.write(
        'every.agent.test.yaml',
        'agent: rows.agent.yaml\ncases:\n  every row:\n    inputs: { id: 1 }\n    expect:\n      outputs:\n        id: { $match: "^[0-9]+$" }\n',
      );
      const result = await cli(batchArgs('rows.jsonl', '--expect', 'every.agent.test.yaml', '--out', 'out.jsonl', '--rate', '50'));
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /pass rate 66\.7% \(2\/3 rows with expectations\)/);
      const failed = readResults(join(dir.path, 'out.jsonl')).find((line) => line.passed === false);
      assert.equal(failed?.row, 3);
      dir.write('two.agent.test.yaml', 'agent: rows.agent.yaml\ncases:\n  a:\n    inputs: { id: 1 }\n  b:\n    inputs: { id: 2 }\n');
      const two = await cli(batchArgs('rows.jsonl', '--expect', 'two.agent.test.yaml'));
      assert.equal(two.code, 2);
      assert.match(two.stderr, /must have exactly one case with expect\.outputs/);
    });

    it('slows the whole batch on 429 (Retry-After) and 503, starts no row twice and reports failed rows', async () => {
      const s = await serve({
        throttle: (n) => (n === 3 ? { status: 429, retryAfterSeconds: 1 } : n === 8 ? { status: 503 } : undefined),
        outcome: (inputs) =>
          Number(inputs.id) % 5 === 0
            ? { status: 'failed', outputs: { reason: 'bad id' } }
            : { status: 'finished', outputs: { id: inputs.id } },
      });
      dir.write('rows.jsonl', jsonl(Array.from({ length: 8 }, (_, i) => ({ id: i + 1 }))));
      const result = await cli(batchArgs('rows.jsonl', '--out', 'out.jsonl', '--concurrency', '4', '--rate', '50'));
      assert.equal(result.code, 1, result.stderr);
      assert.deepEqual(startedIds(s), [1, 2, 3, 4, 5, 6, 7, 8], 'every row started exactly once');
      const lines = readResults(join(dir.path, 'out.jsonl'));
      assert.deepEqual(
        lines.filter((line) => line.status === 'failed').map((line) => line.row),
        [5],
      );
      assert.equal(lines.filter((line) => line.status === 'finished').length, 7);
      assert.match(result.stderr, /8 rows: 7 finished, 1 failed/);
      assert.match(result.stderr, /2 throttled/);
      // After the first 429 (Retry-After: 1), the whole batch waited: no request for most of a second.
      const first = s.log.find((entry) => entry.status === 429)!;
      const next = s.log.find((entry) => entry.at > first.at && entry.status !== 429);
      assert.ok(next && next.at - first.at >= 900, `the next request came ${next ? next.at - first.at : '?'} ms after the 429`);
    });

    it('rides out a service killed and restarted on the same port mid-batch', async () => {
      const s = await serve({ durationMs: () => 400 });
      // Killed once the batch has the answers to its first 3 starts (3 rows running, their polls
      // due), started again once the batch has found it down: a connection to it refused.
      let answered = 0;
      let outage: Promise<void> | undefined;
      let back: Promise<void> | undefined;
      const refused: Array<string | undefined> = [];
      const stopOnAnswers = onAnswered(s.url, (method) => {
        if (method === 'POST' && ++answered === 3) outage = s.stop();
      });
      const restartOnRefusal = onConnectError(s.port, (code) => {
        refused.push(code);
        back ??= outage?.then(() => s.restart());
      });
      dir.write('rows.jsonl', jsonl(Array.from({ length: 8 }, (_, i) => ({ id: i + 1 }))));
      const result = await cli(batchArgs('rows.jsonl', '--out', 'out.jsonl', '--concurrency', '3', '--rate', '50')).finally(() => {
        stopOnAnswers();
        restartOnRefusal();
      });
      assert.ok(outage, 'the service was stopped mid-batch');
      await back;
      assert.ok(refused.length >= 1 && refused.every((code) => code === 'ECONNREFUSED'), `connections refused: ${refused.join(',')}`);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(startedIds(s), [1, 2, 3, 4, 5, 6, 7, 8], 'every row started exactly once');
      const lines = readResults(join(dir.path, 'out.jsonl'));
      assert.equal(lines.filter((line) => line.status === 'finished').length, 8);
      // The batch counts every request it sent, the refused ones too; the service logged those that reached it.
      const sent = lines.reduce((sum, line) => sum + (line.requests ?? 0), 0);
      assert.ok(sent >= s.log.length + refused.length, `${sent} requests sent, ${s.log.length} received, ${refused.length} refused`);
    });

    it('a batch process killed mid-run, then --resume: no row started twice, none lost', async function () {
      this.timeout(10_000);
      const s = await serve({
        durationMs: () => 300,
        // Killed while the 5th start is being answered: its row is "starting" with no id on disk.
        onStart: () => {
          if (s.started.length === 5) child.kill('SIGKILL');
        },
      });
      dir.write('rows.jsonl', jsonl(Array.from({ length: 12 }, (_, i) => ({ id: i + 1 }))));
      const child = spawn(
        process.execPath,
        [join(repoRoot, 'dist', 'cli.js'), ...batchArgs('rows.jsonl', '--out', 'out.jsonl', '--concurrency', '3', '--rate', '50')],
        { cwd: dir.path, env: { ...process.env, AGENT_WORKFLOWS_API_KEY: KEY }, stdio: 'ignore' },
      );
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
      assert.equal(signal, 'SIGKILL');
      // Starts already on their way when the process died may still arrive.
      const beforeResume = s.started.length;
      assert.ok(beforeResume >= 5 && beforeResume <= 7, `${beforeResume} starts before the resume`);

      const result = await cli(batchArgs('rows.jsonl', '--out', 'out.jsonl', '--concurrency', '3', '--rate', '50', '--resume'));
      // The row whose start was sent as the process died may be running: reported, not started again.
      assert.equal(result.code, 1, result.stderr);
      const ids = startedIds(s);
      assert.equal(new Set(ids).size, ids.length, `no row started twice: ${ids.join(',')}`);
      const lines = readResults(join(dir.path, 'out.jsonl'));
      const statuses = new Map(lines.map((line) => [line.row, line.status]));
      assert.equal(statuses.size, 12, 'every row has a result');
      // The row(s) whose start was recorded as the process died: whether the request got out is
      // unknown (the kill may come before or after it left), so they are reported as possibly
      // started, never started again. Every other row started exactly once and finished.
      const unknown = [...statuses].filter(([, status]) => status === 'unknown').map(([row]) => row);
      assert.ok(unknown.length >= 1 && unknown.length <= 3, `rows "unknown, possibly started": ${JSON.stringify([...statuses])}`);
      const all = Array.from({ length: 12 }, (_, i) => i + 1);
      assert.deepEqual(
        all.filter((row) => !ids.includes(row)),
        all.filter((row) => unknown.includes(row) && !ids.includes(row)),
        'a row that never started is one reported unknown: none lost',
      );
      for (const row of all.filter((row) => !unknown.includes(row))) assert.ok(ids.includes(row), `row ${row} started`);
      assert.equal([...statuses].filter(([, status]) => status === 'finished').length, 12 - unknown.length);
      assert.match(result.stderr, /--restart-unknown/);
      // The other executions started before the crash were polled again, not started again.
      const polledAgain = lines.filter(
        (line) => line.executionId && s.started.slice(0, beforeResume).some((e) => e.id === line.executionId),
      );
      const unknownStarted = unknown.filter((row) => s.started.slice(0, beforeResume).some((e) => Number(e.inputs.id) === row));
      assert.equal(polledAgain.length, beforeResume - unknownStarted.length);
      for (const line of polledAgain) assert.deepEqual(line.inputs, { id: line.row }, 'a row polled again is shown with its inputs');
    });

    it('Ctrl-C stops cleanly, prints the resume command, and the resume finishes the batch', async () => {
      const s = await serve({ durationMs: () => 300 });
      dir.write('rows.jsonl', jsonl(Array.from({ length: 6 }, (_, i) => ({ id: i + 1 }))));
      const interrupt = new AbortController();
      const args = batchArgs('rows.jsonl', '--out', 'out.jsonl', '--concurrency', '2', '--rate', '50');
      const waiting = cli(args, { interrupt: interrupt.signal });
      while (s.started.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      interrupt.abort();
      const stopped = await waiting;
      assert.equal(stopped.code, 130, stopped.stderr);
      assert.match(
        stopped.stderr,
        /resume with: agent-workflows batch rows\.agent\.yaml --data rows\.jsonl --out out\.jsonl --concurrency 2 --rate 50 --resume/,
      );
      const resumed = await cli([...args, '--resume']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.deepEqual(startedIds(s), [1, 2, 3, 4, 5, 6]);
      assert.equal(new Set(readResults(join(dir.path, 'out.jsonl')).map((line) => line.row)).size, 6);
    });

    it('exit codes: 0 all finished, 3 auth, 4 network, 5 gave up waiting, 2 an existing --out', async () => {
      const s = await serve({ durationMs: (inputs) => (Number(inputs.id) === 2 ? 5000 : 50) });
      dir.write('rows.jsonl', jsonl([{ id: 1 }, { id: 3 }]));
      dir.write('slow.jsonl', jsonl([{ id: 1 }, { id: 2 }]));
      assert.equal((await cli(batchArgs('rows.jsonl', '--out', 'out.jsonl'))).code, 0);
      const again = await cli(batchArgs('rows.jsonl', '--out', 'out.jsonl'));
      assert.equal(again.code, 2);
      assert.match(again.stderr, /out\.jsonl exists: give --resume/);
      const auth = await cli(batchArgs('rows.jsonl'), { env: { AGENT_WORKFLOWS_API_KEY: 'wrong-key' } });
      assert.equal(auth.code, 3, auth.stderr);
      const noKey = await cli(batchArgs('rows.jsonl'), { env: {} });
      assert.equal(noKey.code, 3, noKey.stderr);
      const slow = await cli(batchArgs('slow.jsonl', '--timeout', '1', '--rate', '50'));
      assert.equal(slow.code, 5, slow.stderr);
      assert.match(slow.stderr, /1 gave up waiting/);
      assert.match(slow.stderr, /^1 row timed out: --timeout S gives each execution longer/m);
      const port = await closedPort();
      writeFileSync(join(dir.path, 'down.agent.yaml'), rowsAgent(`http://127.0.0.1:${port}`));
      const down = await cli(['batch', 'down.agent.yaml', '--data', 'rows.jsonl', '--out', 'down.jsonl']);
      assert.equal(down.code, 4, down.stderr);
      assert.match(down.stderr, /resume with: .*--resume/);
      assert.ok(s.log.length > 0);
    });
    it('stores no form of the key the service echoes, nor of a secret an API echoes, in results.jsonl', async () => {
      dir.write('rows.jsonl', jsonl([{ id: 1 }, { id: 2 }]));
      const stored = (file: string): Array<Record<string, unknown>> =>
        readResults(join(dir.path, file)).map((line) => {
          assert.equal(line.status, 'finished', JSON.stringify(line));
          return line.outputs as Record<string, unknown>;
        });
      for (const [n, key] of ECHO_KEYS.entries()) {
        const s = await startBatchService({
          apiKey: key,
          durationMs: () => 0,
          outcome: () => ({ status: 'finished', outputs: echoedForms(key) }),
        });
        try {
          dir.write('rows.agent.yaml', rowsAgent(s.url));
          const result = await runCliCaptured(
            batchArgs('rows.jsonl', '--out', `service-${n}.jsonl`),
            {
              cwd: dir.path,
              env: { AGENT_WORKFLOWS_API_KEY: key },
            },
            [key],
          );
          assert.equal(result.code, 0, result.stderr);
        } finally {
          await s.close();
        }
        const text = readFileSync(join(dir.path, `service-${n}.jsonl`), 'utf8');
        assert.ok(!text.includes(key));
        for (const outputs of stored(`service-${n}.jsonl`)) {
          assert.deepEqual(Object.keys(outputs), Object.keys(echoedForms(key)));
          for (const [form, value] of Object.entries(outputs))
            assert.equal(leakedPart(String(value), key), undefined, `${form}: ${String(value)}`);
        }
      }
      const echo = await startServer((request, response) =>
        json(response, 200, echoedForms((request.headers.authorization ?? '').replace(/^Bearer /, ''))),
      );
      try {
        dir.write(
          'rows.agent.yaml',
          `version: 1\nname: Echo\ninputs:\n  id: { type: number }\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${echo.url}/echo\n    settings:\n      - "Authorization: Bearer {{ secrets.TOKEN }}"\noutputs:\n  echoed: { from: "{{ nodes.call.body }}" }\n`,
        );
        for (const [n, secret] of ECHO_KEYS.entries()) {
          const result = await runCliCaptured(
            batchArgs('rows.jsonl', '--local', '--out', `local-${n}.jsonl`),
            {
              cwd: dir.path,
              env: { AGENT_SECRET_TOKEN: secret },
            },
            [secret],
          );
          assert.equal(result.code, 0, result.stderr);
          for (const outputs of stored(`local-${n}.jsonl`)) {
            const echoed = outputs.echoed as Record<string, string>;
            assert.deepEqual(Object.keys(echoed), Object.keys(echoedForms(secret)), 'the API saw the secret');
            for (const [form, value] of Object.entries(echoed)) assert.equal(leakedPart(value, secret), undefined, `${form}: ${value}`);
          }
        }
      } finally {
        await echo.close();
      }
    });
  });
});
