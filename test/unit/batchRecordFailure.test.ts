// A batch whose state cannot be written (a full disk, a folder made read-only): the scheduler
// against a real server on 127.0.0.1, with hooks that fail as the state log's writes would. No row
// is sent without its state line, the batch stops at once with the reason, and nothing is left
// unhandled (a rejected promise would end the test process). The results and state files on a file
// system that takes part of a line and then nothing (a size limit, as `ulimit -f` sets): no row is
// recorded as ended without its whole result line, so --resume loses none.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fstatSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { JsonLinesFile } from '../../src/core/batch/batchState';
import type { WriteToFile } from '../../src/core/batch/batchState';
import { runBatch } from '../../src/core/batch/runBatch';
import type { BatchOptions } from '../../src/core/batch/runBatch';
import { BatchScheduler } from '../../src/core/batch/scheduler';
import type { ScheduledRow, SchedulerHooks, SchedulerStop } from '../../src/core/batch/scheduler';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { rowsAgent, startBatchService } from '../support/batchService';
import type { BatchService } from '../support/batchService';
import { runCliCaptured } from '../support/cli';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'batch-record-key-2';

describe('batch scheduler: a record that cannot be written', () => {
  let service: BatchService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  async function schedule(failing: Partial<Record<'starting' | 'started' | 'ended', number>>) {
    const s = (service = await startBatchService({ apiKey: KEY, durationMs: () => 0 }));
    const calls = { starting: 0, started: 0, ended: 0 };
    const recorded: number[] = [];
    const fail = (hook: keyof typeof calls): void => {
      if (++calls[hook] === failing[hook]) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    let next = 1;
    const hooks: SchedulerHooks = {
      nextRow: async (): Promise<ScheduledRow | undefined> =>
        next <= 8 ? { row: next, prepared: { inputs: { id: next++ }, files: [] } } : undefined,
      starting: (row) => {
        fail('starting');
        recorded.push(row);
      },
      started: () => fail('started'),
      refused: () => undefined,
      ended: () => fail('ended'),
      throttled: () => undefined,
    };
    const scheduler = new BatchScheduler(
      { target: { baseUrl: s.url, account: 'acme', agent: 'rows', apiKey: KEY }, concurrency: 2, ratePerSecond: 100 },
      hooks,
    );
    const stop: SchedulerStop | undefined = await scheduler.run([], new AbortController().signal);
    const sent = s.started.map((execution) => Number(execution.inputs.id));
    return { stop, sent, recorded };
  }

  it('sends no row whose state line could not be written, and stops with the reason', async () => {
    const { stop, sent, recorded } = await schedule({ starting: 3 });
    assert.equal(stop?.kind, 'record-failed');
    assert.match(stop?.kind === 'record-failed' ? stop.message : '', /ENOSPC/);
    // Every row sent had its line first; the third never went out, nor any after it.
    assert.deepEqual(
      sent.filter((row) => !recorded.includes(row)),
      [],
    );
    assert.deepEqual(recorded, [1, 2]);
  });

  it('stops when a started or ended record fails, without an unhandled rejection', async () => {
    for (const failing of [{ started: 1 }, { ended: 2 }]) {
      const { stop, sent } = await schedule(failing);
      assert.equal(stop?.kind, 'record-failed', JSON.stringify(failing));
      assert.ok(sent.length < 8, `the batch stopped early: ${sent.length} rows sent (${JSON.stringify(failing)})`);
      await service?.close();
      service = undefined;
    }
  });
});

/**
 * Writes as a file system with a size limit per file does (`ulimit -f`): the write that reaches the
 * limit takes only the bytes below it (a short write), the next fails.
 */
function fileSizeLimit(limit: number): WriteToFile {
  return (fd, bytes, offset, length) => {
    const room = limit - fstatSync(fd).size;
    if (room <= 0) throw Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG' });
    return writeSync(fd, bytes, offset, Math.min(length, room));
  };
}

/** The rows of a results file's whole lines, sorted, and how many lines are torn (not JSON). */
function resultLines(path: string): { readonly rows: number[]; readonly torn: number } {
  const rows: number[] = [];
  let torn = 0;
  for (const line of readFileSync(path, 'utf8')
    .split('\n')
    .filter((text) => text !== '')) {
    try {
      rows.push((JSON.parse(line) as { row: number }).row);
    } catch {
      torn++;
    }
  }
  return { rows: rows.sort((a, b) => a - b), torn };
}

describe('the results and state files: a write the file takes only part of', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => dir.remove());

  it('writes on until the whole line is on disk', () => {
    const path = join(dir.path, 'out.jsonl');
    const fiveBytesAtATime: WriteToFile = (fd, bytes, offset, length) => writeSync(fd, bytes, offset, Math.min(length, 5));
    const file = JsonLinesFile.open(path, true, fiveBytesAtATime);
    file.write({ row: 1, status: 'finished', outputs: { text: 'é'.repeat(20) } });
    file.write({ row: 2, status: 'finished' });
    file.close();
    assert.equal(
      readFileSync(path, 'utf8'),
      `${JSON.stringify({ row: 1, status: 'finished', outputs: { text: 'é'.repeat(20) } })}\n{"row":2,"status":"finished"}\n`,
    );
  });

  it('throws when the file takes no more, and leaves no part of the line', () => {
    const path = join(dir.path, 'out.jsonl');
    const file = JsonLinesFile.open(path, true, fileSizeLimit(45));
    file.write({ row: 1, status: 'finished' });
    assert.throws(() => file.write({ row: 2, status: 'finished' }), /EFBIG/);
    file.close();
    // A torn line that kept its row and status would read back as that row's result.
    assert.equal(readFileSync(path, 'utf8'), '{"row":1,"status":"finished"}\n');
  });

  it('a local batch stopped by a results file that takes no more loses no row on --resume', async () => {
    const agentPath = join(dir.path, 'rows.agent.yaml');
    const loaded = loadAgent(rowsAgent('http://127.0.0.1:9'), agentPath);
    const rows = Array.from({ length: 30 }, (_, i) => i + 1);
    dir.write('rows.jsonl', rows.map((id) => `{"id":${id}}\n`).join(''));
    const outPath = join(dir.path, 'out.jsonl');
    const options: BatchOptions = {
      model: loaded.model,
      agentPath,
      agentText: rowsAgent('http://127.0.0.1:9'),
      dataPath: join(dir.path, 'rows.jsonl'),
      outPath,
      mode: { kind: 'local', agent: loaded, concurrency: 1, executionTimeoutMs: 5000 },
    };
    // About 13 result lines fit: the 14th is cut by the limit, and the batch stops there.
    const stopped = await runBatch({ ...options, writeToFile: fileSizeLimit(2048) }, () => undefined, new AbortController().signal);
    assert.equal(stopped.stopped?.kind, 'record-failed');
    const before = resultLines(outPath).rows.length;
    assert.ok(before > 0 && before < rows.length, `${before} rows written before the limit`);
    const resumed = await runBatch({ ...options, resume: true }, () => undefined, new AbortController().signal);
    assert.equal(resumed.finished, rows.length);
    assert.deepEqual(resultLines(outPath), { rows, torn: 0 }, 'every row has its whole result line, once');
  });
});

describe('a local batch whose results cannot be written', () => {
  let dir: TempDir;
  let api: TestServer | undefined;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(async () => {
    await api?.close();
    api = undefined;
    dir.remove();
  });

  it('starts no row after the write fails, stops those running, and ends as record-failed', async () => {
    // Each row calls the API once. The server holds every answer until the test lets one go, so that
    // when a result line fails to be written the other rows are still waiting on their calls.
    const held: { readonly answer: () => void; readonly closed: Promise<void> }[] = [];
    let holding = true;
    /** Wakes the test when a call arrives or a write fails. */
    let notify = (): void => undefined;
    const until = async (ready: () => boolean): Promise<void> => {
      while (!ready()) await new Promise<void>((resolve) => (notify = resolve));
    };
    const server = (api = await startServer((request, response) => {
      if (!holding) return json(response, 200, { path: request.url });
      const closed = new Promise<void>((resolve) => response.once('close', () => resolve()));
      held.push({ answer: () => json(response, 200, { path: request.url }), closed });
      notify();
    }));
    const agentText = `version: 1
name: Rows
inputs:
  id: { type: number, required: true }
nodes:
  call:
    type: api
    method: GET
    url: ${server.url}/rows/{{ inputs.id }}
outputs:
  answer: { from: "{{ nodes.call.body }}" }
`;
    const agentPath = join(dir.path, 'rows.agent.yaml');
    const loaded = loadAgent(agentText, agentPath);
    const rows = Array.from({ length: 60 }, (_, i) => i + 1);
    dir.write('rows.jsonl', rows.map((id) => `{"id":${id}}\n`).join(''));
    const outPath = join(dir.path, 'out.jsonl');
    const concurrency = 4;
    const options: BatchOptions = {
      model: loaded.model,
      agentPath,
      agentText,
      dataPath: join(dir.path, 'rows.jsonl'),
      outPath,
      // Longer than the test may take: a row still waiting ends only when the batch stops it.
      mode: { kind: 'local', agent: loaded, concurrency, executionTimeoutMs: 600_000 },
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const limited = fileSizeLimit(2048);
      let failed = false;
      const writeToFile: WriteToFile = (...args) => {
        try {
          return limited(...args);
        } catch (error) {
          failed = true;
          notify();
          throw error;
        }
      };
      const batch = runBatch({ ...options, writeToFile }, () => undefined, new AbortController().signal);
      // One answer at a time, once every row waits on its call: the row answered ends (and the next
      // one starts) or its result line fails to be written.
      let answered = 0;
      for (;;) {
        await until(() => failed || held.length - answered === concurrency);
        if (failed) break;
        held[answered++]!.answer();
      }
      const summary = await batch;
      assert.deepEqual(summary.stopped, { kind: 'record-failed', message: 'EFBIG: file too large, write' });
      // The rows waiting when the write failed were stopped (their calls closed), and none started since.
      assert.equal(held.length, answered + concurrency - 1, 'no row started after the write failed');
      await Promise.all(held.slice(answered).map((call) => call.closed));
      const recorded = resultLines(outPath).rows;
      assert.ok(recorded.length > 0 && recorded.length < rows.length, `${recorded.length} rows recorded`);
      assert.equal(summary.finished, recorded.length);
      assert.deepEqual(unhandled, []);

      holding = false;
      const resumed = await runBatch({ ...options, resume: true }, () => undefined, new AbortController().signal);
      assert.equal(resumed.stopped, undefined);
      assert.deepEqual(resultLines(outPath), { rows, torn: 0 }, 'every row has its whole result line, once');
      // Only the rows that were running when the write failed were called twice.
      assert.ok(server.requests.length <= rows.length + concurrency, `${server.requests.length} calls for ${rows.length} rows`);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('agent-workflows batch: a results file that takes no more', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => dir.remove());

  it('stops with the reason and exit 2, and the resume finishes the batch', async function () {
    // A real file size limit (`ulimit -f`, in blocks of 512 or 1,024 bytes): a POSIX shell's.
    if (process.platform === 'win32') this.skip();
    this.timeout(10_000);
    dir.write('rows.agent.yaml', rowsAgent('http://127.0.0.1:9'));
    const rows = Array.from({ length: 40 }, (_, i) => i + 1);
    dir.write('rows.jsonl', rows.map((id) => `{"id":${id}}\n`).join(''));
    const args = ['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--local', '--out', 'out.jsonl'];
    const child = spawn('sh', ['-c', 'ulimit -f 4 && exec "$@"', 'sh', process.execPath, join(repoRoot, 'dist', 'cli.js'), ...args], {
      cwd: dir.path,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 2, stderr);
    assert.doesNotMatch(stderr, /internal error/);
    assert.match(
      stderr,
      /the batch's state or results could not be written \(EFBIG[^)]*\); nothing more was started\. Make room or fix the permissions of the --out folder, then resume/,
    );
    assert.match(stderr, /resume with: agent-workflows batch rows\.agent\.yaml --data rows\.jsonl --out out\.jsonl --local --resume/);
    const before = resultLines(join(dir.path, 'out.jsonl')).rows.length;
    assert.ok(before > 0 && before < rows.length, `${before} rows written before the limit`);

    const resumed = await runCliCaptured([...args, '--resume'], { cwd: dir.path, env: {} });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(resultLines(join(dir.path, 'out.jsonl')), { rows, torn: 0 });
  });
});
