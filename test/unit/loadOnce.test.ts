import * as assert from 'node:assert/strict';
import { loadOnce } from '../../src/core/loadOnce';

describe('loadOnce', () => {
  it('loads once and gives every caller the same value', async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ loaded: ++loads }));
    const [a, b] = await Promise.all([load(), load()]);
    assert.equal(a, b);
    assert.equal(await load(), a);
    assert.equal(loads, 1);
  });

  it('tries again after a failed load instead of keeping the failure', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads++;
      if (loads === 1) throw new Error('bundle not readable');
      return 'core';
    });
    await assert.rejects(load(), /bundle not readable/);
    assert.equal(await load(), 'core');
    assert.equal(await load(), 'core');
    assert.equal(loads, 2);
  });
});
