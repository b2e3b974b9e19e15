// The exchange view's JSON pretty-printer (core/exchange/prettyJson) as a body grows: one pass, so
// four times the body takes about four times as long. The reference is what it replaces,
// JSON.stringify(JSON.parse(text), null, 2), on the same text in the same run.
import { prettyJson } from '../src/core/exchange/prettyJson';
import { PRETTY_JSON_ROW } from '../test/support/prettyJsonRows';
import { measurePair, table } from './support';

/** Four times the body may take at most this many times as long (4.0 is linear). */
const GROWTH_TARGET = 5;

export function runPrettyJsonBenchmark(): boolean {
  const body = (rows: number): string => `[${Array.from({ length: rows }, () => PRETTY_JSON_ROW).join(',')}]`;
  const rows = [['body', 'prettyJson', 'JSON.parse + stringify', 'ratio']];
  const medians: number[] = [];
  for (const count of [20_000, 80_000]) {
    const text = body(count);
    const { a: ours, b: reference } = measurePair(
      () => prettyJson(text),
      () => JSON.stringify(JSON.parse(text), null, 2),
      7,
    );
    medians.push(ours.medianMs);
    rows.push([
      `${count} rows (${(text.length / 1024 / 1024).toFixed(1)} MB)`,
      `${ours.medianMs.toFixed(1)} ms`,
      `${reference.medianMs.toFixed(1)} ms`,
      `${(ours.medianMs / reference.medianMs).toFixed(2)}x`,
    ]);
  }
  const growth = medians[1]! / medians[0]!;
  console.log(
    `JSON pretty-printing for the exchange view (median of 7 alternating runs; target: 4x the body at most ${GROWTH_TARGET}x the time)`,
  );
  console.log(table(rows));
  console.log(`growth: ${growth.toFixed(2)}x the time for 4x the body`);
  return growth <= GROWTH_TARGET;
}
