// Masking a hostile text (near misses of every form of a secret) as it grows: the redactor's scans
// are linear, so twice the text takes about twice the time. The reference is one plain
// `replaceAll` of the key over the same text, the least any masking can cost.
import { keyRedactor } from '../src/core/redaction';
import { HOSTILE_REDACTION_FORMS, HOSTILE_REDACTION_KEY } from '../test/support/hostileRedaction';
import { measurePair, table } from './support';

/** Twice the text may take at most this many times as long (2.0 is linear; the rest is noise). */
const GROWTH_TARGET = 2.5;

export function runRedactionBenchmark(): boolean {
  const redactor = keyRedactor(HOSTILE_REDACTION_KEY);
  for (let n = 0; n < 7; n++) redactor.add(`secret-${n}-${'q'.repeat(40)}/+x`);
  const unit = HOSTILE_REDACTION_FORMS.map((form) => form.slice(0, -1)).join(' ');
  const textOf = (size: number): string => unit.repeat(Math.ceil(size / unit.length));
  const mask = (text: string) => {
    redactor.excerpt(text, 300, { more: true });
    redactor.text(text);
  };
  mask(textOf(100_000));
  const small = textOf(400_000);
  const large = textOf(800_000);
  // Alternating rounds: a slow spell of the machine lands on both sizes.
  const { a: smallTime, b: largeTime } = measurePair(
    () => mask(small),
    () => mask(large),
    9,
  );
  const { a: smallReference, b: largeReference } = measurePair(
    () => small.replaceAll(HOSTILE_REDACTION_KEY, '***'),
    () => large.replaceAll(HOSTILE_REDACTION_KEY, '***'),
    9,
  );
  const rows = [['hostile text', 'redactor (excerpt + text)', 'replaceAll of the key', 'ratio']];
  const times = [smallTime.medianMs, largeTime.medianMs];
  for (const [label, ms, reference] of [
    ['400 KB', smallTime.medianMs, smallReference.medianMs],
    ['800 KB', largeTime.medianMs, largeReference.medianMs],
  ] as const)
    rows.push([label, `${ms.toFixed(1)} ms`, `${reference.toFixed(2)} ms`, `${(ms / reference).toFixed(1)}x`]);
  const growth = times[1]! / times[0]!;
  console.log(`Redaction of a hostile text (median of 9 alternating rounds; target: twice the text at most ${GROWTH_TARGET}x the time)`);
  console.log(table(rows));
  console.log(`growth: ${growth.toFixed(2)}x the time for 2x the text`);
  return growth <= GROWTH_TARGET;
}
