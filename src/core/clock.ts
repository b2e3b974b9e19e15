// Time as code that paces itself sees it (the poller, the batch scheduler): the system's clock, or
// a fake one in tests, which then check waits and deadlines without waiting for real.

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * `new Date(ms).toISOString()`, made cheaply: the text up to the second is made once per second
 * and the milliseconds appended. Every node of every execution stamps its start and end, and every
 * exchange its start; toISOString was the largest single cost of an exchange's record.
 */
export function isoTime(ms: number): string {
  // Whole milliseconds, as a Date keeps them.
  const time = Math.trunc(ms);
  const second = Math.floor(time / 1000);
  // The last second a Date holds ends at its last millisecond: past it, toISOString fails as it should.
  if (second !== isoSecond || time > MAX_DATE_MS) {
    const whole = new Date(time).toISOString();
    // "…:SS.000Z" without its "000Z"; a year past 9999 ("+010000-…") keeps its own width.
    isoSecondText = whole.slice(0, whole.length - 4);
    isoSecond = second;
  }
  const milli = time - second * 1000;
  return `${isoSecondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** The latest time a Date holds (ECMAScript's time value range). */
const MAX_DATE_MS = 8.64e15;
let isoSecond = Number.NaN;
let isoSecondText = '';
