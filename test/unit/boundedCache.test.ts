// The bounded memo behind the expression scan, header checks and name suggestions.
import assert from 'node:assert/strict';
import { BoundedCache } from '../../src/core/boundedCache';

describe('BoundedCache', () => {
  it('keeps values, undefined ones included, until a bound is passed', () => {
    const cache = new BoundedCache<string | undefined>(3, 100);
    cache.set('a', 'A');
    cache.set('b', undefined);
    assert.equal(cache.get('a'), 'A');
    assert.equal(cache.has('b'), true);
    assert.equal(cache.has('c'), false);
  });

  it('starts over past its count of entries', () => {
    const cache = new BoundedCache<number>(2, 100);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    assert.deepEqual(
      ['a', 'b', 'c'].map((key) => cache.has(key)),
      [false, false, true],
    );
  });

  it('starts over past its characters of keys, and never keeps a key longer than them', () => {
    const cache = new BoundedCache<number>(100, 10);
    cache.set('x'.repeat(6), 1);
    cache.set('y'.repeat(6), 2);
    assert.equal(cache.has('x'.repeat(6)), false);
    assert.equal(cache.has('y'.repeat(6)), true);
    cache.set('z'.repeat(11), 3);
    assert.equal(cache.has('z'.repeat(11)), false);
    assert.equal(cache.has('y'.repeat(6)), true, 'a key too long to keep clears nothing');
  });
});
