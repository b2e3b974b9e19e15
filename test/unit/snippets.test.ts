// Every snippet, expanded with its default values where it belongs, is a valid agent file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateAgentText } from '../../src/core/validation/validate';
import { repoRoot } from '../support/paths';

interface Snippet {
  prefix: string;
  body: string[];
  description: string;
}

const snippets = JSON.parse(readFileSync(join(repoRoot, 'snippets', 'agent-yaml.json'), 'utf8')) as Record<string, Snippet>;

/** Expands a snippet body the way VS Code does when the user accepts every default. */
export function expandSnippet(body: readonly string[]): string {
  let text = body.join('\n');
  const defaults = new Map<string, string>();
  // Placeholders with defaults (possibly nested), innermost first, then choices, then tab stops.
  for (let previous = ''; previous !== text;) {
    previous = text;
    text = text.replace(/\$\{(\d+):([^${}]*)\}/g, (_, index: string, value: string) => {
      defaults.set(index, value);
      return value;
    });
  }
  text = text.replace(/\$\{(\d+)\|([^|]*)\|\}/g, (_, index: string, choices: string) => {
    const first = choices.split(',')[0] ?? '';
    defaults.set(index, first);
    return first;
  });
  text = text.replace(/\$(\d+)/g, (_, index: string) => defaults.get(index) ?? '');
  return text.replace(/\\([$}\\])/g, '$1');
}

/** Indents every line of a snippet expansion by `spaces`. */
function indent(text: string, spaces: number): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : ' '.repeat(spaces) + line))
    .join('\n');
}

/** Puts an expanded snippet where it is used, in a file that is otherwise valid. */
function inContext(prefix: string, expanded: string): string {
  const base = 'version: 1\nname: Snippet test\n';
  if (prefix === 'agent') return expanded;
  if (prefix === 'deployment')
    return `${base}${expanded}\nnodes:\n  hello: { type: template, text: hi }\noutputs:\n  out: { from: "{{ nodes.hello.body }}" }\n`;
  if (prefix.startsWith('input-')) {
    const name = /^(\w+):/.exec(expanded)?.[1];
    return `${base}inputs:\n${indent(expanded, 2)}\nnodes:\n  echo: { type: template, text: "{{ inputs.${name} }}" }\noutputs:\n  out: { from: "{{ nodes.echo.body }}" }\n`;
  }
  if (prefix === 'output') {
    return `${base}nodes:\n  node_id: { type: template, text: hi }\noutputs:\n${indent(expanded, 2)}\n`;
  }
  if (prefix.startsWith('header-')) {
    return `${base}nodes:\n  call:\n    type: api\n    method: GET\n    url: https://api.example.com/v1\n    settings:\n${indent(expanded, 6)}\noutputs:\n  out: { from: "{{ nodes.call.body }}" }\n`;
  }
  // Node snippets.
  const id = /^(\w+):/.exec(expanded)?.[1];
  return `${base}inputs:\n  name: { type: string }\nnodes:\n${indent(expanded, 2)}\noutputs:\n  out: { from: "{{ nodes.${id}.body }}" }\n`;
}

describe('snippets', () => {
  it('covers a new agent, each authorization method, a template node, each input type and an output', () => {
    const prefixes = new Set(Object.values(snippets).map((snippet) => snippet.prefix));
    for (const prefix of [
      'agent',
      'api-bearer',
      'api-basic',
      'api-key-header',
      'api-key-url',
      'template',
      'input-string',
      'input-number',
      'input-boolean',
      'input-file',
      'output',
    ]) {
      assert.ok(prefixes.has(prefix), `missing snippet ${prefix}`);
    }
  });

  it('expands placeholders the way VS Code does', () => {
    assert.equal(expandSnippet(['${1:a} ${2|x,y|} $1 ${3:b ${4:c}}']), 'a x a b c');
  });

  for (const [name, snippet] of Object.entries(snippets)) {
    it(`"${name}" (${snippet.prefix}) expands to a file with no errors or warnings`, () => {
      const text = inContext(snippet.prefix, expandSnippet(snippet.body));
      const problems = validateAgentText(text).problems.filter((problem) => problem.severity !== 'info');
      assert.deepEqual(
        problems.map((p) => `${p.range.line}:${p.range.column} ${p.code} ${p.message}`),
        [],
        text,
      );
    });
  }
});
