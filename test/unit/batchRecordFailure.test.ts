// A batch whose state cannot be written (a full disk, a folder made read-only): the scheduler
// against a real server on 127.0.0.1, with hooks that fail as the state log's writes would. No row
// is sent without its state line, the batch stops at once with the reason, and nothing is left
// unhandled (a rejected promise would end the test process).
import assert from 'node:assert/strict';
import { BatchScheduler } from '../../src/core/batch/scheduler';
import type { ScheduledRow, SchedulerHooks, SchedulerStop } from '../../src/core/batch/scheduler';
import { startBatchService } from '../support/batchService';
import type { BatchService } from '../support/batchService';

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
