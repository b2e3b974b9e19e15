// Definition, references, rename and the outline.
import assert from 'node:assert/strict';
import { definition, documentSymbols, prepareRename, references, rename, RenameError } from '../../src/core/language/navigation';
import type { TextEdit } from '../../src/core/language/quickFixes';
import { validateAgentText } from '../../src/core/validation/validate';

const AGENT = `version: 1
name: Nav
inputs:
  ticket: { type: string, required: true }
nodes:
  fetch:
    type: api
    method: GET
    url: https://api.example.com/t/{{ inputs.ticket }}
  "summarize":
    type: template
    text: "{{ nodes.fetch.body }} / {{ inputs.ticket }}"
outputs:
  out: { from: "{{ nodes.summarize.body }} {{ nodes.fetch.status }}" }
`;

const at = (needle: string, within = 1) => AGENT.indexOf(needle) + within;
const textOf = (span: { start: number; end: number }) => AGENT.slice(span.start, span.end);
function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.span.start - a.span.start))
    result = result.slice(0, edit.span.start) + edit.newText + result.slice(edit.span.end);
  return result;
}

describe('navigation', () => {
  it('goes from a reference to the declaration of an input or a node', () => {
    const inputDeclaration = definition(AGENT, at('inputs.ticket }}', 8))!;
    assert.equal(textOf(inputDeclaration), 'ticket');
    assert.equal(inputDeclaration.start, AGENT.indexOf('ticket:'));
    const nodeDeclaration = definition(AGENT, at('nodes.summarize', 8))!;
    assert.equal(textOf(nodeDeclaration), '"summarize"');
    assert.equal(definition(AGENT, at('Nav')), undefined);
  });

  it('finds every reference, with or without the declaration', () => {
    const spans = references(AGENT, at('fetch:'), true);
    assert.deepEqual(spans.map(textOf), ['fetch', 'fetch', 'fetch']);
    assert.equal(references(AGENT, at('fetch:'), false).length, 2);
    assert.equal(references(AGENT, at('inputs.ticket }}', 8), true).length, 3);
  });

  it('renames a node everywhere, keeping quotes, and the result is still valid', () => {
    assert.deepEqual(prepareRename(AGENT, at('"summarize"', 2)), {
      span: { start: at('"summarize"'), end: at('"summarize"') + 9 },
      name: 'summarize',
    });
    const renamed = applyEdits(AGENT, rename(AGENT, at('nodes.summarize', 8), 'digest'));
    assert.match(renamed, /  "digest":\n/);
    assert.match(renamed, /\{\{ nodes\.digest\.body \}\}/);
    assert.deepEqual(validateAgentText(renamed).problems, []);
    const input = applyEdits(AGENT, rename(AGENT, at('ticket:'), 'issue'));
    assert.equal((input.match(/issue/g) ?? []).length, 3);
    assert.deepEqual(validateAgentText(input).problems, []);
  });

  it('renames an output at its declaration, the one place an agent file names it', () => {
    assert.deepEqual(prepareRename(AGENT, at('out:')), { span: { start: at('out:', 0), end: at('out:', 3) }, name: 'out' });
    assert.deepEqual(references(AGENT, at('out:'), true).map(textOf), ['out']);
    const renamed = applyEdits(AGENT, rename(AGENT, at('out:'), 'digest'));
    assert.match(renamed, /\n {2}digest: \{ from/);
    assert.deepEqual(validateAgentText(renamed).problems, []);
  });

  it('refuses invalid and taken names, and things that are not inputs, nodes or outputs', () => {
    assert.throws(() => rename(AGENT, at('fetch:'), 'two words'), RenameError);
    assert.throws(() => rename(AGENT, at('fetch:'), 'summarize'), /already a node "summarize"/);
    assert.throws(() => prepareRename(AGENT, at('Nav')), /Only input names, node ids and output names/);
  });

  it('outlines inputs, nodes and outputs under their sections', () => {
    const symbols = documentSymbols(AGENT);
    assert.deepEqual(
      symbols.map((s) => [s.name, s.detail, s.children.map((c) => `${c.name} (${c.detail})`)]),
      [
        ['inputs', '1 input', ['ticket (string, required)']],
        ['nodes', '2 nodes', ['fetch (GET api.example.com)', 'summarize (template)']],
        ['outputs', '1 output', ['out ({{ nodes.summarize.body }} {{ nodes.fetch.status }})']],
      ],
    );
    const fetch = symbols[1]!.children[0]!;
    assert.equal(textOf(fetch.selectionSpan), 'fetch');
    assert.match(textOf(fetch.span), /^fetch:\n    type: api[\s\S]*inputs\.ticket \}\}$/);
  });
});
