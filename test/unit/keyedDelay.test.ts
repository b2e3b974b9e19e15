// The per-key delay behind validation as you type (extension, browser build, language server).
import assert from 'node:assert/strict';
import { KeyedDelay } from '../../src/core/keyedDelay';
import { FakeClock } from '../support/fakeClock';

describe('KeyedDelay', () => {
  it('runs a key once, after the last call for it, each key on its own', () => {
    const clock = new FakeClock();
    const delay = new KeyedDelay(clock);
    const ran: string[] = [];
    delay.schedule('a', 100, () => ran.push('a1'));
    clock.advance(60);
    delay.schedule('a', 100, () => ran.push('a2'));
    delay.schedule('b', 100, () => ran.push('b'));
    clock.advance(60);
    assert.deepEqual(ran, [], 'the second call for a restarted its wait');
    assert.equal(delay.size, 2);
    clock.advance(40);
    assert.deepEqual(ran, ['a2', 'b']);
    assert.equal(delay.size, 0);
  });

  it('drops a wait when cancelled, one key or all of them', () => {
    const clock = new FakeClock();
    const delay = new KeyedDelay(clock);
    const ran: string[] = [];
    delay.schedule('a', 10, () => ran.push('a'));
    delay.schedule('b', 10, () => ran.push('b'));
    delay.schedule('c', 10, () => ran.push('c'));
    delay.cancel('a');
    delay.cancel('missing');
    clock.advance(10);
    assert.deepEqual(ran, ['b', 'c']);
    delay.schedule('d', 10, () => ran.push('d'));
    delay.cancelAll();
    clock.advance(100);
    assert.deepEqual(ran, ['b', 'c']);
    assert.equal(delay.size, 0);
  });
});
