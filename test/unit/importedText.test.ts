// Imported text is data: "{{" in it is found wherever it stands in a value, keys included, and a
// value nested far deeper than the call stack allows is walked without overflowing it.
import assert from 'node:assert/strict';
import { holdsTemplate, templateInValue } from '../../src/core/import/importedText';

describe('Imported text', () => {
  it('finds "{{" in a string, a key or a nested value, with the path to it', () => {
    assert.equal(holdsTemplate('a {{ secrets.T }}'), true);
    assert.equal(holdsTemplate('{ {'), false);
    assert.deepEqual(templateInValue('{{ secrets.T }}'), []);
    assert.deepEqual(templateInValue({ a: [1, 'x', { b: 'y {{ inputs.q }}' }] }), ['a', 2, 'b']);
    assert.deepEqual(templateInValue({ a: { '{{ secrets.K }}': 1 } }), ['a', '{{ secrets.K }}']);
    assert.equal(templateInValue({ a: ['{ {', 2, null, true], b: { c: '}}' } }), undefined);
  });

  it('walks a value nested 100,000 deep without overflowing the stack', () => {
    let value: unknown = '{{ secrets.GITHUB_TOKEN }}';
    for (let depth = 0; depth < 100_000; depth++) value = [value];
    assert.equal(templateInValue(value)?.length, 100_000);
  });
});
