// Listing the operations of a 10 MB OpenAPI document (GitHub's REST description is about that
// size), as JSON and as YAML, against the ideal: the bare parse of the same text (JSON.parse,
// js-yaml's load) measured in the same run. Then making one operation's node. Target: listing under
// 2 s (the issue's), and the node under 2 s.
import { dump, load } from 'js-yaml';
import { apiNodeFromOperation, readOpenApi } from '../src/core/import/openApi';
import { largeOpenApi } from '../test/support/largeOpenApi';
import { measurePair, table } from './support';

const TARGET_MS = 2000;

export async function runOpenApiBenchmark(): Promise<boolean> {
  const document = largeOpenApi(10 * 1024 * 1024);
  const json = JSON.stringify(document);
  const yaml = dump(document, { noRefs: true });
  const rows = [['form', 'size', 'bare parse', 'list operations', 'ratio', 'one node']];
  let ok = true;
  for (const [form, text, parse] of [
    ['JSON', json, () => JSON.parse(json) as unknown],
    ['YAML', yaml, () => load(yaml)],
  ] as const) {
    const { a: bare, b: list } = measurePair(parse, () => readOpenApi(text), 5, 1);
    const read = readOpenApi(text);
    const operation = read.operations[Math.floor(read.operations.length / 2) + 1]!;
    const start = performance.now();
    await apiNodeFromOperation(read, operation);
    const nodeMs = performance.now() - start;
    if (list.medianMs > TARGET_MS || nodeMs > TARGET_MS) ok = false;
    rows.push([
      form,
      `${(text.length / 1024 / 1024).toFixed(1)} MB`,
      `${bare.medianMs.toFixed(0)} ms`,
      `${list.medianMs.toFixed(0)} ms (${read.operations.length} operations)`,
      `${(list.medianMs / bare.medianMs).toFixed(2)}x`,
      `${nodeMs.toFixed(0)} ms`,
    ]);
  }
  console.log(`OpenAPI import (median of alternating runs; target: listing and one node each under ${TARGET_MS} ms)`);
  console.log(table(rows));
  return ok;
}
