import assert from 'node:assert/strict';
import { isoTime } from '../../src/core/clock';

describe('isoTime', () => {
  it('writes what Date#toISOString writes, within a second and across seconds', () => {
    const times = [
      0, 1, 9, 10, 99, 100, 999, 1000, 1001, 1_764_225_600_000, 1_764_225_600_007, 1_764_225_600_070, 1_764_225_600_700, 1_764_225_599_999,
      1_764_225_601_000, -1, -999, -1000, -1001, 253_402_300_799_999, 253_402_300_800_000, 8.64e15,
    ];
    // Each time twice in a row: the second comes from the text kept for its second.
    for (const ms of times) for (const _ of [0, 1]) assert.equal(isoTime(ms), new Date(ms).toISOString(), `at ${ms}`);
  });

  it('keeps whole milliseconds, as a Date does', () => {
    for (const ms of [1.7, 999.99, -0.5, -1.5, 1_764_225_600_123.9]) assert.equal(isoTime(ms), new Date(ms).toISOString(), `at ${ms}`);
  });

  it('fails on a time that is not one, as toISOString does', () => {
    assert.throws(() => isoTime(Number.NaN), RangeError);
    assert.throws(() => isoTime(8.64e15 + 1), RangeError);
  });
});
