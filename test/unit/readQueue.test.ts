// The Test Explorer's read queue (src/testing/readQueue.ts): a few reads at a time, one per file,
// a file asked for while it waits read once for all, and one asked for while it is read read again
// after (its newest text). Reads are ended by hand, so nothing here waits on time.
import assert from 'node:assert/strict';
import { ReadQueue } from '../../src/testing/readQueue';

/** Reads that end when the test says, with what it says. */
function manualReads(): {
  readonly started: string[];
  readonly read: (file: string) => Promise<boolean>;
  end(file: string, readable: boolean): Promise<void>;
} {
  const started: string[] = [];
  const pending = new Map<string, (readable: boolean) => void>();
  return {
    started,
    read: (file) =>
      new Promise<boolean>((resolve) => {
        started.push(file);
        pending.set(file, resolve);
      }),
    async end(file, readable) {
      const resolve = pending.get(file);
      assert.ok(resolve, `${file} is being read`);
      pending.delete(file);
      resolve(readable);
      // Lets the queue's then() run and start what waits.
      await new Promise<void>((settle) => setImmediate(settle));
    },
  };
}

describe('ReadQueue', () => {
  it('reads at most maxReads files at once, the others in the order asked', async () => {
    const reads = manualReads();
    const queue = new ReadQueue<string>(reads.read, 2);
    const done = ['a', 'b', 'c', 'd'].map((file) => queue.read(file));
    assert.deepEqual(reads.started, ['a', 'b']);
    await reads.end('a', true);
    assert.deepEqual(reads.started, ['a', 'b', 'c']);
    await reads.end('b', false);
    await reads.end('c', true);
    assert.deepEqual(reads.started, ['a', 'b', 'c', 'd']);
    await reads.end('d', true);
    assert.deepEqual(await Promise.all(done), [true, false, true, true]);
  });

  it('reads a file asked for again while it waits once, for all who asked', async () => {
    const reads = manualReads();
    const queue = new ReadQueue<string>(reads.read, 1);
    const first = queue.read('a');
    const waiting = [queue.read('b'), queue.read('b'), queue.read('b')];
    await reads.end('a', true);
    await reads.end('b', true);
    assert.deepEqual(reads.started, ['a', 'b']);
    assert.deepEqual(await Promise.all([first, ...waiting]), [true, true, true, true]);
  });

  it('reads a file asked for while it is read again after that read (its newest text), never two at once', async () => {
    const reads = manualReads();
    const queue = new ReadQueue<string>(reads.read, 4);
    const first = queue.read('a');
    const again = queue.read('a');
    // A place is free, but the file is being read: the second read waits for the first.
    assert.deepEqual(reads.started, ['a']);
    await reads.end('a', true);
    assert.deepEqual(reads.started, ['a', 'a']);
    await reads.end('a', false);
    assert.equal(await first, true);
    assert.equal(await again, false);
  });
});
