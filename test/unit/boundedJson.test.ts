// A value as pretty JSON built only up to a size (tooltips, compare documents): exactly
// JSON.stringify's text while it fits; past it, cut text that is still JSON with comments, never
// built whole first.
import assert from 'node:assert/strict';
import { boundedPrettyJson } from '../../src/core/boundedJson';

const NOTE = 'cut here';

/** The value a cut text stands for: its comment lines dropped, then read as JSON. */
function readCut(text: string): unknown {
  return JSON.parse(
    text
      .split('\n')
      .filter((line) => !/^\s*\/\/ /.test(line))
      .join('\n'),
  );
}

/** A value nested `depth` levels deep, each level holding `width` numbers beside the next level. */
function deep(depth: number, width: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { next: value, values: Array.from({ length: width }, (_, j) => j) };
  return value;
}

describe('boundedPrettyJson', () => {
  it('writes what JSON.stringify writes while the value fits', () => {
    const values: unknown[] = [
      { a: 1, b: [1, 'two', null, true, { c: {} }, []], d: 'x"\n\u0001', e: undefined, f: () => 1 },
      [undefined, () => 1, Number.NaN, -0, 1e21, new Date(0)],
      'text',
      42,
      null,
      {},
      [],
      { nested: { deeper: [[[]], [{}]] } },
      deep(20, 3),
    ];
    for (const value of values) {
      assert.deepEqual(boundedPrettyJson(value, { maxChars: 1_000_000, cutNote: NOTE }), {
        text: JSON.stringify(value, null, 2),
        cut: false,
      });
    }
    assert.equal(boundedPrettyJson(undefined, { maxChars: 10, cutNote: NOTE }).text, 'undefined');
    assert.equal(boundedPrettyJson({ a: 1 }, { maxChars: 100, cutNote: NOTE, indent: 4 }).text, JSON.stringify({ a: 1 }, null, 4));
  });

  it('sorts keys when asked, as a diff wants them', () => {
    const { text } = boundedPrettyJson({ b: 1, a: { d: 1, c: 2 } }, { maxChars: 1000, cutNote: NOTE, sortKeys: true });
    assert.equal(text, JSON.stringify({ a: { c: 2, d: 1 }, b: 1 }, null, 2));
  });

  it('stops past its size at a value 256 levels deep holding many values, and stays JSON with comments', () => {
    // Pretty, this value is about 300 MB of indentation; as JSON, about 6 MB.
    const value = deep(256, 5000);
    const started = process.hrtime.bigint();
    const { text, cut } = boundedPrettyJson(value, { maxChars: 10_000, cutNote: NOTE });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    assert.equal(cut, true);
    assert.ok(text.length < 30_000, `${text.length} characters`);
    assert.ok(ms < 1000, `took ${ms} ms`);
    assert.equal(text.match(/\/\/ cut here/g)?.length, 1);
    // It went deep before it stopped, and closed every level it opened.
    assert.ok(text.split('"next": {').length > 50);
    assert.ok(readCut(text) !== null);
  });

  it('keeps the start of a long string, ending it in …', () => {
    const { text, cut } = boundedPrettyJson({ a: 'x'.repeat(1_000_000), b: 2 }, { maxChars: 1000, cutNote: NOTE });
    assert.equal(cut, true);
    assert.ok(text.length < 1100);
    const read = readCut(text) as { a: string; b?: number };
    assert.match(read.a, /^x+…$/);
    assert.equal(read.b, undefined);
    // A surrogate pair is never split.
    const emoji = boundedPrettyJson('😀'.repeat(1000), { maxChars: 301, cutNote: NOTE }).text;
    assert.doesNotMatch(JSON.parse(emoji.split('\n')[0]!) as string, /[\ud800-\udbff]…/);
  });

  it('stops before the next element of a long list, without a comma left hanging', () => {
    const { text, cut } = boundedPrettyJson(
      Array.from({ length: 100_000 }, (_, i) => i),
      { maxChars: 200, cutNote: NOTE },
    );
    assert.equal(cut, true);
    assert.match(text, /\d\n {2}\/\/ cut here\n\]$/);
    assert.ok((readCut(text) as number[]).length > 10);
  });
});
