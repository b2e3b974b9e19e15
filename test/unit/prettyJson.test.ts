// JSON bodies re-indented token by token for the exchange view, checked against
// JSON.stringify(JSON.parse(…), null, 2) where the two must agree, and on what JSON.parse cannot do.
import assert from 'node:assert/strict';
import { isJson, prettyJson } from '../../src/core/exchange/prettyJson';
import { PRETTY_JSON_ROW } from '../support/prettyJsonRows';

function pretty(text: string, partial = false): string {
  const result = prettyJson(text, { partial });
  assert.equal(result.kind, 'pretty', `not pretty: ${JSON.stringify(result)}`);
  return result.kind === 'pretty' ? result.text : '';
}

describe('prettyJson', () => {
  it('indents nested objects and arrays as JSON.stringify does', () => {
    for (const text of [
      '{"a":1,"b":[1,2,{"c":null}],"d":{"e":true,"f":false}}',
      '[[[[1]]],{"x":{"y":{"z":-1.5}}}]',
      ' { "spaced" :\t[ 1 ,\n 2 ] }\r\n',
      '"just a string"',
      '42',
      '[]',
      '{}',
    ]) {
      assert.equal(pretty(text), JSON.stringify(JSON.parse(text), null, 2), text);
    }
  });

  it('writes empty objects and arrays as {} and [], spaces inside them or not', () => {
    assert.equal(pretty('{"a":{ },"b":[\n],"c":[{}]}'), '{\n  "a": {},\n  "b": [],\n  "c": [\n    {}\n  ]\n}');
  });

  it('copies strings as they are: brackets, quotes, escapes and non-ASCII inside them', () => {
    const text = '{"br{ack[ets":"}],:","q":"say \\"hi\\"","esc":"a\\\\","u":"\\u00e9 é 日本 🎉","tail\\\\":"\\\\\\""}';
    const result = pretty(text);
    assert.equal(result, JSON.stringify(JSON.parse(text), null, 2).replace('é é', '\\u00e9 é'));
    assert.deepEqual(JSON.parse(result), JSON.parse(text));
  });

  it('writes bodies of several chunks, characters of every width across their edges', () => {
    const values = ['a', 'é', '日本', '🎉', 'x'.repeat(1000), 'ü🎉'.repeat(700)];
    const rows = Array.from({ length: 4000 }, (_, n) => ({ n, value: values[n % values.length], nested: [[{}], [n % 7]] }));
    const text = JSON.stringify(rows);
    const result = pretty(text);
    assert.ok(Buffer.byteLength(result) > 3 * 1024 * 1024);
    assert.equal(result, JSON.stringify(rows, null, 2));
  });

  it('writes a lone surrogate as U+FFFD, as UTF-8 would, and keeps an escaped one', () => {
    assert.equal(pretty('["a\ud800b"]'), '[\n  "a\ufffdb"\n]');
    assert.equal(pretty('["a\\ud800b"]'), '[\n  "a\\ud800b"\n]');
  });

  it('keeps numbers and escapes as written, which JSON.parse would change', () => {
    assert.equal(pretty('[1.0,1e2,"\\u0041",12345678901234567890]'), '[\n  1.0,\n  1e2,\n  "\\u0041",\n  12345678901234567890\n]');
  });

  it('names the first character that is not JSON', () => {
    for (const [text, offset] of [
      ['{"a":1,}', 7],
      ['{"a" 1}', 5],
      ['[1 2]', 3],
      ['{1:2}', 1],
      ['[1]]', 3],
      ['[1}', 2],
      ['tru', 0],
      ['[01]', 1],
      ['[-]', 1],
      ['[1.]', 1],
      ['{"a":1', 6],
      ['"open', 5],
      ['["a\nb"]', 3],
      ['', 0],
      ['<html></html>', 0],
      ['{"a":1} {"b":2}', 8],
    ] as const) {
      assert.deepEqual(prettyJson(text), { kind: 'invalid', offset }, text);
    }
  });

  it('refuses escapes JSON does not have, and takes every one it has', () => {
    assert.deepEqual(prettyJson('["a\\xb"]'), { kind: 'invalid', offset: 3 });
    assert.deepEqual(prettyJson('["\\u12G4"]'), { kind: 'invalid', offset: 2 });
    assert.equal(pretty('["\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"]'), '[\n  "\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"\n]');
    // A body cut inside an escape is still the start of JSON.
    assert.equal(pretty('["a\\u00', true), '[\n  "a\\u00');
  });

  it('isJson says what JSON.parse says, without parsing', () => {
    const texts = [
      '{"a":[1,2.5,-0,1e3,true,false,null,"x\\u00e9\\n"]}',
      '  [ ]  ',
      '"only a string"',
      '-12.5E+3',
      '\ufeff{}',
      '{"a":1,}',
      '[01]',
      '["a\\xb"]',
      '["tab\there"]',
      '{"a":1} {"b":2}',
      '{"a":',
      '',
      ' ',
      'nul',
      '[1,]',
      '{"a":1,"a":2}',
      '["\\ud800"]',
      '[1e]',
      '[.5]',
      '[+1]',
      '{"é":"\u2028"}',
    ];
    for (const text of texts) {
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      assert.equal(isJson(text), parses, JSON.stringify(text));
    }
  });

  it('pretty-prints the start of a cut body', () => {
    assert.equal(pretty('{"a":[1,2', true), '{\n  "a": [\n    1,\n    2');
    assert.equal(pretty('{"a":"cut ins', true), '{\n  "a": "cut ins');
    assert.equal(pretty('[tr', true), '[\n  tr');
    assert.equal(pretty('[', true), '[\n  ');
  });

  it('skips a byte order mark', () => {
    assert.equal(pretty('\ufeff{"a":1}'), '{\n  "a": 1\n}');
  });

  it('stops at its bound of characters, and says so', () => {
    const deep = '['.repeat(2000) + ']'.repeat(2000);
    const result = prettyJson(deep);
    assert.deepEqual(result, { kind: 'too-large', maxChars: 3 * deep.length + 64 * 1024 });
  });

  it('stops at a value once it has written its lines, notes where, and closes what is open', () => {
    const text = '{"rows":[{"id":1,"tags":["a"]},{"id":2,"tags":["b"]},{"id":3,"tags":["c"]}],"more":true}';
    const result = prettyJson(text, { maxLines: 14, cutNote: (offset) => `cut at ${offset} of ${text.length}` });
    assert.equal(result.kind, 'pretty');
    if (result.kind !== 'pretty') return;
    // The cut is at the comma after the second row: no trailing comma, so the text stays JSONC.
    const at = text.indexOf(',{"id":3');
    assert.equal(result.shownChars, at);
    assert.equal(
      result.text,
      [
        '{',
        '  "rows": [',
        '    {',
        '      "id": 1,',
        '      "tags": [',
        '        "a"',
        '      ]',
        '    },',
        '    {',
        '      "id": 2,',
        '      "tags": [',
        '        "b"',
        '      ]',
        '    }',
        `    // cut at ${at} of ${text.length}`,
        '  ]',
        '}',
      ].join('\n'),
    );
    // Under the bound it is the whole text, said so.
    const whole = prettyJson(text, { maxLines: 1000, cutNote: () => 'never' });
    assert.equal(whole.kind === 'pretty' && whole.shownChars, undefined);
    assert.equal(whole.kind === 'pretty' && whole.text, JSON.stringify(JSON.parse(text), null, 2));
  });

  it('keeps the lines of a long flat array within its bound', () => {
    const text = `[${Array.from({ length: 10_000 }, (_, index) => index).join(',')}]`;
    const result = prettyJson(text, { maxLines: 100, cutNote: () => 'more' });
    assert.equal(result.kind, 'pretty');
    if (result.kind !== 'pretty') return;
    const lines = result.text.split('\n');
    assert.equal(lines.length, 102);
    assert.deepEqual(lines.slice(-3), ['  98', '  // more', ']']);
  });

  it('writes a body of 80,000 rows as JSON.stringify does (how long: npm run bench -- pretty-json)', () => {
    const text = `[${Array.from({ length: 80_000 }, () => PRETTY_JSON_ROW).join(',')}]`;
    assert.ok(pretty(text) === JSON.stringify(JSON.parse(text), null, 2));
  });
});
