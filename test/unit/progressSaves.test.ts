import assert from 'node:assert/strict';
import { ProgressSaves } from '../../src/runs/progressSaves';

describe('ProgressSaves', () => {
  it('goes on after a failed save and settles without rejecting, so the final state is saved', async () => {
    const saved: number[] = [];
    const errors: string[] = [];
    const saves = new ProgressSaves<number>(
      async (value) => {
        if (value === 2) throw new Error('disk full');
        saved.push(value);
      },
      (error) => errors.push((error as Error).message),
      0,
    );
    for (const value of [1, 2, 3]) saves.offer(value);
    saves.offer(4, true); // the final state
    await saves.settled();
    assert.deepEqual(saved, [1, 3, 4]);
    assert.deepEqual(errors, ['disk full']);
  });

  it('saves one at a time, in order', async () => {
    let inFlight = 0;
    let most = 0;
    const saved: number[] = [];
    const saves = new ProgressSaves<number>(
      async (value) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        saved.push(value);
        inFlight--;
      },
      () => undefined,
      0,
    );
    for (let value = 1; value <= 5; value++) saves.offer(value);
    await saves.settled();
    assert.deepEqual(saved, [1, 2, 3, 4, 5]);
    assert.equal(most, 1);
  });

  it('throttles offers closer than the interval, unless forced', async () => {
    let now = 0;
    const saved: number[] = [];
    const saves = new ProgressSaves<number>(
      async (value) => void saved.push(value),
      () => undefined,
      1000,
      () => now,
    );
    saves.offer(1);
    now = 500;
    saves.offer(2);
    saves.offer(3, true);
    now = 1600;
    saves.offer(4);
    await saves.settled();
    assert.deepEqual(saved, [1, 3, 4]);
  });
});
