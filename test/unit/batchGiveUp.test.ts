// Giving up on a service that throttles for ever: the scheduler, on a fake clock (minutes of
// "slow down" take no real time) against a real server on 127.0.0.1, gives up after the time
// without progress it is given and leaves the rows it did not start; any other answer is progress
// and starts the count again. Then the command line: --give-up-after, exit 4, the rows not started
// left for --resume, which starts each of them once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchScheduler, SCHEDULER_DEFAULTS } from '../../src/core/batch/scheduler';
import type { ExecutionEnd, ScheduledRow, SchedulerOptions, SchedulerStop } from '../../src/core/batch/scheduler';
import { runCliCaptured } from '../support/cli';
import { rowsAgent, startBatchService } from '../support/batchService';
import type { BatchService, BatchServiceOptions } from '../support/batchService';
import { FakeClock, withVirtualTime } from '../support/fakeClock';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'batch-give-up-key-5';

describe('agent-workflows batch: giving up on a service that only throttles', () => {
  let service: BatchService | undefined;
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
    dir.remove();
  });

  /** The scheduler over `rows` rows on a fake clock, run until it ends: how, what ended, and the fake time it took. */
  async function schedule(s: BatchService, rows: number, options: Partial<SchedulerOptions>) {
    const clock = new FakeClock();
    const startedAt = clock.now();
    const ended: Array<{ row: number; end: ExecutionEnd }> = [];
    const started: number[] = [];
    let next = 1;
    const scheduler = new BatchScheduler(
      { target: { baseUrl: s.url, account: 'acme', agent: 'rows', apiKey: KEY }, concurrency: 2, ratePerSecond: 10, clock, ...options },
      {
        nextRow: async (): Promise<ScheduledRow | undefined> =>
          next <= rows ? { row: next, prepared: { inputs: { id: next++ }, files: [] } } : undefined,
        starting: () => undefined,
        started: (row) => started.push(row),
        refused: () => undefined,
        ended: (row, _id, end) => ended.push({ row, end }),
        throttled: () => undefined,
      },
    );
    // Time moves only while no request is on its way: each one the scheduler sent has been answered.
    const stop: SchedulerStop | undefined = await withVirtualTime(
      clock,
      () => scheduler.stats().requests === s.log.length,
      scheduler.run([], new AbortController().signal),
    );
    return { stop, ended, started, fakeMs: clock.now() - startedAt };
  }

  async function serve(options: Omit<BatchServiceOptions, 'apiKey'>): Promise<BatchService> {
    service = await startBatchService({ apiKey: KEY, durationMs: () => 0, ...options });
    return service;
  }

  it('gives up after the time without progress, 15 minutes by default, with no real waiting', async () => {
    const s = await serve({ throttle: () => ({ status: 429, retryAfterSeconds: 30 }) });
    const realStart = Date.now();
    const { stop, ended, started, fakeMs } = await schedule(s, 1000, {});
    assert.equal(SCHEDULER_DEFAULTS.giveUpAfterMs, 15 * 60_000);
    assert.equal(stop?.kind, 'given-up');
    assert.ok(
      stop.kind === 'given-up' && stop.afterMs >= 15 * 60_000 && stop.afterMs < 16 * 60_000,
      `gave up after ${JSON.stringify(stop)}`,
    );
    assert.match(stop.message, /nothing but "slow down" \(429 or 503\) for 15 min/);
    assert.ok(fakeMs >= 15 * 60_000 && fakeMs < 16 * 60_000, `${fakeMs} ms of fake time`);
    assert.ok(Date.now() - realStart < 5000, 'minutes of fake time, seconds of real time');
    assert.deepEqual(started, [], 'nothing started');
    assert.deepEqual(ended, [], 'no row ended: every row is left for a resume, none ended as an error');
    assert.ok(s.log.length > 10 && s.log.every((entry) => entry.status === 429), `${s.log.length} requests, all throttled`);
  });

  it('any answer but a throttle is progress: throttled spells shorter than the give-up time never stop the batch', async () => {
    // Spells of 3 throttled answers (Retry-After 2 s, and the rate cut to as little as a request every
    // 4 s: about 15 s each) between accepted requests; the give-up is 20 s.
    const s = await serve({ throttle: (request) => (request % 4 !== 3 ? { status: 503, retryAfterSeconds: 2 } : undefined) });
    const { stop, ended, fakeMs } = await schedule(s, 6, { giveUpAfterMs: 20_000, concurrency: 1 });
    assert.equal(stop, undefined, JSON.stringify(stop));
    assert.deepEqual(ended.map(({ row, end }) => `${row}:${end.kind}`).sort(), [
      '1:finished',
      '2:finished',
      '3:finished',
      '4:finished',
      '5:finished',
      '6:finished',
    ]);
    assert.ok(fakeMs > 60_000, `throttled for ${fakeMs} ms in all, well over the give-up time`);
  });

  it('--give-up-after: exit 4, the rows not started left for --resume, which starts each once', async () => {
    let throttling = true;
    const s = await serve({ throttle: () => (throttling ? { status: 429, retryAfterSeconds: 0 } : undefined) });
    dir.write('rows.agent.yaml', rowsAgent(s.url));
    dir.write('rows.jsonl', Array.from({ length: 5 }, (_, i) => JSON.stringify({ id: i + 1 })).join('\n') + '\n');
    const cli = (...extra: string[]) =>
      runCliCaptured(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', ...extra], {
        cwd: dir.path,
        env: { AGENT_WORKFLOWS_API_KEY: KEY },
      });
    const bad = await cli('--give-up-after', '0');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--give-up-after/);

    const gaveUp = await cli('--give-up-after', '0.3');
    assert.equal(gaveUp.code, 4, gaveUp.stderr);
    assert.match(gaveUp.stderr, /gave up \(--give-up-after 0\.3\)/);
    assert.match(gaveUp.stderr, /5 rows: 0 finished, 5 not ended/);
    assert.match(gaveUp.stderr, /^resume with: agent-workflows batch .*--give-up-after 0\.3 --resume$/m);
    assert.equal(s.started.length, 0);
    assert.equal(readFileSync(join(dir.path, 'out.jsonl'), 'utf8'), '', 'no row ended');

    throttling = false;
    const resumed = await cli('--resume');
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /5 rows: 5 finished/);
    assert.deepEqual(s.started.map((execution) => Number(execution.inputs.id)).sort(), [1, 2, 3, 4, 5], 'each row started once');
  });
});
