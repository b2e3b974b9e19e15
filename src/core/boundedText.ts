// Text cut to a length, saying how long it was: what a report, a message or a record keeps of a text
// that may be megabytes. The text reaches here redacted already; the cut only keeps a mask whole.
// No imports but redaction, so any layer of the core can use it.
import { Redactor } from './redaction';

/** No secrets of its own: it only cuts text that is redacted already. */
export const CUTTER = new Redactor();

/** Text cut to `limit` characters, saying how long it was. */
export function boundedText(text: string, limit: number): string {
  return detached(text.length <= limit ? text : `${CUTTER.excerpt(text, limit)} (${text.length} characters)`);
}

/**
 * A copy of short text that shares no memory with the text it was cut from: V8 keeps a whole
 * string alive for as long as a slice of it is, and a 200-character slice of a 9 MB answer would
 * keep the 9 MB. UTF-16 both ways: every code unit (even a lone surrogate) stays as it is.
 */
export function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}
