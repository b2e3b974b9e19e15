import assert from 'node:assert/strict';
import { isMap, parseDocument } from 'yaml';
import type { Scalar } from 'yaml';
import { validateAgentText } from '../../src/core/validation/validate';
import { getValue, locate, valueSpanToSource } from '../../src/core/document/yamlAst';

/** Maps the span of `fragment` (its first occurrence in the value) and returns the source text there. */
function sourceOf(yaml: string, fragment: string): string {
  const document = parseDocument(yaml);
  const scalar = getValue(document.contents as never, 'v') as Scalar;
  const value = String(scalar.value);
  const start = value.indexOf(fragment);
  assert.notEqual(start, -1, `${fragment} not in ${value}`);
  const span = valueSpanToSource(yaml, scalar, start, start + fragment.length);
  return yaml.slice(span.start, span.end);
}

describe('valueSpanToSource', () => {
  it('maps plain, single- and double-quoted scalars exactly', () => {
    assert.equal(sourceOf('v: a {{ x.y }} b\n', '{{ x.y }}'), '{{ x.y }}');
    assert.equal(sourceOf("v: 'it''s {{ x.y }}'\n", '{{ x.y }}'), '{{ x.y }}');
    assert.equal(sourceOf('v: "tab\\there {{ x.y }}"\n', '{{ x.y }}'), '{{ x.y }}');
  });

  it('maps across escapes, including astral characters', () => {
    assert.equal(sourceOf('v: "\\u00e9\\U0001F600 {{ x.y }}"\n', '{{ x.y }}'), '{{ x.y }}');
    assert.equal(sourceOf('v: "a\\x07b"\n', '\u0007'), '\\x07');
    assert.equal(sourceOf('v: "\\U0001F600"\n', '\u{1F600}'), '\\U0001F600');
  });

  it('finds fragments in block and folded scalars', () => {
    assert.equal(sourceOf('v: |\n  line one\n  {{ nodes.a.body }}\n', '{{ nodes.a.body }}'), '{{ nodes.a.body }}');
    assert.equal(sourceOf('v: >\n  folded {{ a.b }}\n  text {{ a.b }}\n', 'text'), 'text');
  });
});

describe('valueSpanToSource over many problems in one scalar', () => {
  it('maps every unterminated "{{" of a literal block scalar to its place in the source', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `      line ${i} {{ here`);
    const text = `version: 1\nname: b\nnodes:\n  t:\n    type: template\n    text: |\n${lines.join('\n')}\noutputs:\n  o: { from: "{{ nodes.t.body }}" }\n`;
    const problems = validateAgentText(text).problems.filter((p) => p.code === 'expression-syntax');
    assert.equal(problems.length, 50);
    problems.forEach((problem, i) => {
      assert.equal(problem.range.line, 7 + i);
      // An unclosed "{{" runs to the next one, lines further on: both ends are mapped.
      const expected = i < 49 ? `{{ here\n      line ${i + 1} ` : '{{ here\n';
      assert.equal(text.slice(problem.span.start, problem.span.end), expected);
    });
  });

  it('maps fragments of folded and multi-line quoted scalars', () => {
    assert.equal(sourceOf('v: >\n  one {{ a.b }}\n  two {{ c.d }}\n', '{{ c.d }}'), '{{ c.d }}');
    assert.equal(sourceOf('v: "first line\n  second {{ x.y }} \\t tab"\n', '{{ x.y }}'), '{{ x.y }}');
    assert.equal(sourceOf("v: 'it''s\n  {{ x.y }}'\n", '{{ x.y }}'), '{{ x.y }}');
    assert.equal(sourceOf('v: plain\n  continued {{ x.y }}\n', '{{ x.y }}'), '{{ x.y }}');
  });
});

describe('locate', () => {
  it('walks mappings and sequences and reports the key node', () => {
    const document = parseDocument('nodes:\n  a:\n    settings: ["x: 1", "y: 2"]\n');
    assert.ok(isMap(document.contents));
    const found = locate(document.contents, ['nodes', 'a', 'settings', 1]);
    assert.equal((found.node as Scalar).value, 'y: 2');
    const key = locate(document.contents, ['nodes', 'a']);
    assert.equal(key.keyNode?.value, 'a');
    const missing = locate(document.contents, ['nodes', 'b', 'url']);
    assert.equal(missing.node, undefined);
  });
});
