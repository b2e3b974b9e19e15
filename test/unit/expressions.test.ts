import assert from 'node:assert/strict';
import { isSingleExpression, maskExpressions, scanExpressions } from '../../src/core/document/expressions';

describe('scanExpressions', () => {
  it('finds references with their roots and path parts at exact offsets', () => {
    const value = 'Hi {{ inputs.name }} and {{nodes.lookup.body.items[0]["full name"]}}';
    const [first, second] = scanExpressions(value);
    assert.equal(value.slice(first!.start, first!.end), '{{ inputs.name }}');
    assert.equal(first!.reference?.root, 'inputs');
    assert.deepEqual(
      first!.reference?.path.map((p) => p.name),
      ['name'],
    );
    const part = first!.reference!.path[0]!;
    assert.equal(value.slice(part.start, part.end), 'name');
    assert.deepEqual(
      second!.reference?.path.map((p) => p.name),
      ['lookup', 'body', 'items', 0, 'full name'],
    );
    assert.equal(value.slice(second!.reference!.rootStart, second!.reference!.rootEnd), 'nodes');
  });

  it('accepts dashes in names, for header names and ids', () => {
    const [expression] = scanExpressions('{{ nodes.post-ticket.headers.content-type }}');
    assert.deepEqual(
      expression!.reference?.path.map((p) => p.name),
      ['post-ticket', 'headers', 'content-type'],
    );
  });

  it('reports an unclosed expression up to the next one', () => {
    const value = 'a {{ inputs.x b {{ inputs.y }}';
    const [broken, good] = scanExpressions(value);
    assert.match(broken!.error!, /no closing/);
    assert.equal(value.slice(broken!.start, broken!.end), '{{ inputs.x b ');
    assert.equal(good!.reference?.root, 'inputs');
  });

  it('reports empty expressions, stray characters and bad subscripts', () => {
    assert.match(scanExpressions('{{ }}')[0]!.error!, /empty/);
    assert.match(scanExpressions('{{ inputs.a + 1 }}')[0]!.error!, /Unexpected "\+ 1"/);
    assert.match(scanExpressions('{{ inputs. }}')[0]!.error!, /A name is missing/);
    assert.match(scanExpressions('{{ nodes.a.body[x] }}')[0]!.error!, /not an index or a quoted key/);
    assert.match(scanExpressions('{{ nodes.a.body[0 }}')[0]!.error!, /no closing "\]"/);
    assert.match(scanExpressions('{{ "text" }}')[0]!.error!, /not a reference/);
  });

  it('ignores text without expressions and lone closing braces', () => {
    assert.deepEqual(scanExpressions('{"a": {"b": 1}}'), []);
    assert.deepEqual(scanExpressions('plain }} text'), []);
  });
});

describe('isSingleExpression and maskExpressions', () => {
  it('tells a whole-value expression from one inside text', () => {
    assert.equal(isSingleExpression('  {{ nodes.a.body }} '), true);
    assert.equal(isSingleExpression('id: {{ nodes.a.body }}'), false);
    assert.equal(isSingleExpression('{{ a.b }}{{ c.d }}'), false);
  });

  it('masks expressions keeping offsets', () => {
    const value = 'Bearer {{ secrets.T }} x';
    const masked = maskExpressions(value, scanExpressions(value));
    assert.equal(masked.length, value.length);
    assert.equal(masked, `Bearer ${'x'.repeat(15)} x`);
  });
});
