// plainValue must give exactly what yaml's toJS gives, or give up so that toJS is used.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { plainValue } from '../../src/core/document/plainValue';
import { HOSTILE_SHAPES } from '../support/hostileAgents';

function both(text: string): { plain: unknown; toJs: unknown } {
  const document = parseDocument(text, { uniqueKeys: false });
  return { plain: plainValue(document.contents), toJs: document.toJS({ maxAliasCount: 100 }) };
}

function assertSame(text: string): void {
  const { plain, toJs } = both(text);
  assert.notEqual(plain, undefined, `plainValue gave up on:\n${text.slice(0, 200)}`);
  assert.deepEqual(plain, toJs);
  assert.deepEqual(Object.getOwnPropertyNames(plain), Object.getOwnPropertyNames(toJs));
}

describe('plainValue', () => {
  it('equals toJS on every example agent and test file', () => {
    const folder = join(__dirname, '..', '..', '..', 'examples');
    const files = readdirSync(folder).filter((name) => name.endsWith('.yaml'));
    assert.ok(files.length >= 10, `found ${files.length} example files`);
    for (const name of files) assertSame(readFileSync(join(folder, name), 'utf8'));
  });

  it('equals toJS on the hostile files that parse', () => {
    for (const shape of HOSTILE_SHAPES) {
      const text = shape.generate(Math.min(shape.issueCount, 200));
      const document = parseDocument(text, { uniqueKeys: false });
      if (document.errors.length > 0) continue;
      const plain = plainValue(document.contents);
      if (plain !== undefined) assert.deepEqual(plain, document.toJS({ maxAliasCount: 100 }), shape.name);
    }
  });

  it('keeps scalar types, null and empty keys, repeats and keys the prototype answers as toJS does', () => {
    const text = [
      'version: 1',
      'float: 1.5',
      'nan: .nan',
      'inf: -.inf',
      'hex: 0x1F',
      'yes: true',
      'nothing: ~',
      'empty:',
      '~: null key',
      '1: number key',
      'true: boolean key',
      'twice: first',
      'twice: second',
      '__proto__: { polluted: true }',
      'toString: text',
      'constructor: [1, 2]',
      'list: [a, [b, c], { d: e }, null, 3, f: g]',
      'block: |',
      '  line one',
      '  line two',
      'quoted: "a\\tb"',
      '!!str tagged: !!str 12',
      'custom: !thing value',
    ].join('\n');
    assertSame(text);
    const { plain } = both(text) as { plain: Record<string, unknown> };
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(plain), Object.prototype);
    assert.deepEqual(plain['__proto__'], { polluted: true });
    assert.equal(plain['twice'], 'second');
    assert.equal(plain[''], 'null key');
  });

  it('gives up on what only toJS converts: aliases, merge keys, complex keys', () => {
    for (const text of ['a: &x { b: 1 }\nc: *x\n', '<<: { a: 1 }\nb: 2\n', '? [a, b]\n: value\n', '? { a: 1 }\n: value\n']) {
      const document = parseDocument(text, { uniqueKeys: false });
      assert.equal(plainValue(document.contents), undefined, text);
    }
  });

  it('notes when two keys of one mapping give the same name, at any depth, and only then', () => {
    const notes = (text: string): boolean => {
      const seen = { repeatedName: false };
      assert.notEqual(plainValue(parseDocument(text, { uniqueKeys: false }).contents, seen), undefined);
      return seen.repeatedName;
    };
    assert.equal(notes('a: 1\nb: { c: [ { d: 1, e: 2 } ] }\ntoString: 3\n'), false);
    assert.equal(notes('a: 1\nb: { c: [ { d: 1, d: 2 } ] }\n'), true);
    // Not the same key, but the same name: the caller's own walk tells them apart.
    assert.equal(notes('a: { 1: x, "1": y }\n'), true);
  });
});
