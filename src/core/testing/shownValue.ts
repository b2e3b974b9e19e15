// How the values of test results are shown (the command line's reports, the Test Explorer's messages
// and Compare view): bounded, so that a 9 MB answer or a 700 KB expected value makes a report of a
// few KB, not of its own size. Values reach here redacted already (the run masks the case's
// secrets), so these only cut, with Redactor.excerpt, which keeps a mask whole at a cut. Light: the
// extension loads it at activation.
import { boundedText as cutText, CUTTER, detached } from '../boundedText';
import { REDACTED } from '../redaction';
import type { CaseFailure } from './caseResult';

export { detached };

/** The most characters of one value or message shown. */
export const MAX_SHOWN = 2000;

/** Text cut to `limit` characters, saying how long it was. */
export function boundedText(text: string, limit = MAX_SHOWN): string {
  return cutText(text, limit);
}

/**
 * A message cut in its middle: its start and its end stay, since a message such as `outputs.x:
 * expected …, got …` says what came at its end.
 */
export function boundedMessage(text: string, limit = MAX_SHOWN): string {
  if (text.length <= limit) return detached(text);
  const tailLength = Math.floor(limit / 4);
  let tailStart = text.length - tailLength;
  // Never half a mask or half a surrogate pair at the start of the end part.
  const mask = text.lastIndexOf(REDACTED, tailStart);
  if (mask !== -1 && mask + REDACTED.length > tailStart) tailStart = mask;
  if (/[\udc00-\udfff]/.test(text.charAt(tailStart))) tailStart++;
  const head = CUTTER.excerpt(text, limit - tailLength);
  return detached(`${head} (${tailStart - (head.length - 1)} characters cut) …${text.slice(tailStart)}`);
}

/** A value as text: text as it is, anything else as indented JSON. */
export function valueText(value: unknown): string {
  if (value === undefined) return '(absent)';
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

/** A value for a JSON report: itself when short, else its JSON text (text itself), cut. */
export function boundedValue(value: unknown): unknown {
  if (typeof value === 'string') return boundedText(value);
  const json = JSON.stringify(value);
  return json === undefined || json.length <= MAX_SHOWN ? value : boundedText(json);
}

/** A failed expectation as the editor shows it: its message, and what was expected beside what came. */
export interface ShownFailure {
  readonly message: string;
  /** Both or neither (VS Code's Compare view needs both). */
  readonly expected?: string;
  readonly actual?: string;
}

/** The expected value itself (or what an operator asks for, in words) beside what came, each bounded. */
export function shownFailure(failure: CaseFailure): ShownFailure {
  const message = boundedMessage(failure.message);
  const expected = failure.expectedValue !== undefined ? valueText(failure.expectedValue) : failure.expected;
  if (expected === undefined || !Object.hasOwn(failure, 'actual')) return { message };
  return { message, expected: boundedText(expected), actual: boundedText(valueText(failure.actual)) };
}
