// Completion in every context: keys, values, header strings and expressions.
import assert from 'node:assert/strict';
import { complete } from '../../src/core/language/completion';
import { cursorContext, keyLine } from '../../src/core/language/cursorContext';
import type { CompletionOptions } from '../../src/core/language/completion';
import { withCursor } from '../support/cursor';

function completeAt(marked: string, options?: CompletionOptions) {
  const { text, offset } = withCursor(marked);
  const result = complete(text, offset, options);
  return { ...result, labels: result.items.map((item) => item.label), text, offset };
}

const AGENT = `version: 1
name: Demo
inputs:
  ticket: { type: string, required: true, description: Ticket text }
  count: { type: number }
nodes:
  fetch:
    type: api
    method: GET
    url: https://api.example.com/{{ inputs.ticket }}
  summarize:
    type: api
    method: POST
    url: https://llm.example.com
    body: { text: "{{ nodes.fetch.body }}" }
  render:
    type: template
    text: "{{ nodes.summarize.body }}"
outputs:
  out: { from: "{{ nodes.render.body }}" }
`;

describe('completion', () => {
  describe('keys', () => {
    it('offers the top-level keys that are not there yet', () => {
      const { labels, replace, offset } = completeAt('version: 1\nname: x\nde¦\n');
      assert.deepEqual(labels, ['description', 'deployment', 'inputs', 'outputs', 'nodes']);
      assert.deepEqual(replace, { start: offset - 2, end: offset });
    });

    it('offers the keys of an API node and of a template node by their type', () => {
      const api = completeAt('nodes:\n  call:\n    type: api\n    ¦\n');
      assert.deepEqual(api.labels, ['description', 'method', 'url', 'settings', 'body']);
      const settings = api.items.find((item) => item.label === 'settings')!;
      assert.equal(settings.insertText, 'settings:\n\t- "$0"');
      assert.match(settings.documentation!, /Name: value/);
      const template = completeAt('nodes:\n  greet:\n    type: template\n    ¦\n');
      assert.deepEqual(template.labels, ['description', 'text']);
      const untyped = completeAt('nodes:\n  fresh:\n    ¦\n');
      assert.deepEqual(untyped.labels, ['type', 'description']);
    });

    it('offers input, output and deployment keys', () => {
      assert.deepEqual(completeAt('inputs:\n  q:\n    type: string\n    ¦').labels, [
        'description',
        'required',
        'default',
        'enum',
        'accept',
      ]);
      assert.deepEqual(completeAt('outputs:\n  o:\n    ¦').labels, ['from', 'description']);
      assert.deepEqual(completeAt('deployment:\n  baseUrl: https://a.example.com\n  ¦').labels, ['account', 'agent', 'environments']);
    });

    it('offers keys inside a flow mapping', () => {
      assert.deepEqual(completeAt('inputs:\n  q: { type: string, ¦ }').labels, ['description', 'required', 'default', 'enum', 'accept']);
    });

    it('offers nothing in a comment', () => {
      assert.deepEqual(completeAt('# nodes: ¦').labels, []);
    });
  });

  describe('values', () => {
    it('offers node types, HTTP methods, input types, required and version', () => {
      assert.deepEqual(completeAt('nodes:\n  a:\n    type: ¦').labels, ['api', 'template']);
      assert.deepEqual(completeAt('nodes:\n  a:\n    type: api\n    method: P¦').labels, [
        'GET',
        'HEAD',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'OPTIONS',
      ]);
      const partial = completeAt('nodes:\n  a:\n    type: api\n    method: P¦');
      assert.deepEqual(partial.replace, { start: partial.offset - 1, end: partial.offset });
      assert.deepEqual(completeAt('inputs:\n  q: { type: ¦ }').labels, ['string', 'number', 'boolean', 'file']);
      assert.deepEqual(completeAt('inputs:\n  q:\n    required: ¦').labels, ['true', 'false']);
      assert.deepEqual(completeAt('version: ¦').labels, ['1']);
    });
  });

  describe('header strings in settings', () => {
    it('offers header names in a block list item, inserting the colon', () => {
      const result = completeAt('nodes:\n  a:\n    settings:\n      - "Acc¦"\n');
      assert.ok(result.labels.includes('Authorization'));
      assert.ok(result.labels.includes('x-api-key'));
      assert.ok(result.labels.includes('Content-Type'));
      const accept = result.items.find((item) => item.label === 'Accept')!;
      assert.equal(accept.insertText, 'Accept: ');
      assert.equal(accept.retrigger, true);
      assert.deepEqual(result.replace, { start: result.offset - 3, end: result.offset });
    });

    it('offers Bearer and Basic after Authorization, with a secret placeholder', () => {
      const result = completeAt('nodes:\n  a:\n    settings:\n      - "Authorization: ¦"\n');
      assert.deepEqual(result.labels, ['Bearer', 'Basic']);
      assert.equal(result.items[0]!.insertText, 'Bearer {{ secrets.${1:API_TOKEN} }}');
      assert.equal(result.items[0]!.snippet, true);
      assert.deepEqual(completeAt('nodes:\n  a:\n    settings:\n      - "Authorization: Bearer abc¦"\n').labels, []);
    });

    it('offers media types for Content-Type and Accept, also in a flow list and at the key indentation', () => {
      assert.ok(completeAt('nodes:\n  a:\n    settings:\n      - "Content-Type: ¦"').labels.includes('application/json'));
      assert.ok(completeAt('nodes:\n  a:\n    settings: ["Accept: ¦"]').labels.includes('application/json'));
      assert.ok(completeAt('nodes:\n  a:\n    settings:\n    - "Accept: ¦"').labels.includes('*/*'));
    });

    it('offers a secret for x-api-key', () => {
      assert.deepEqual(completeAt('nodes:\n  a:\n    settings:\n      - "x-api-key: ¦"').labels, ['{{ secrets.API_KEY }}']);
    });

    it('does not treat other lists as header strings', () => {
      assert.deepEqual(completeAt('inputs:\n  p:\n    enum:\n      - "Acc¦"').labels, []);
    });
  });

  describe('expressions', () => {
    it('offers the roots', () => {
      const result = completeAt(AGENT.replace('{{ nodes.render.body }}', '{{ ¦'));
      assert.deepEqual(result.labels, ['inputs', 'nodes', 'secrets']);
      assert.equal(result.items[0]!.retrigger, true);
    });

    it('offers declared inputs, closing the expression only when it is open', () => {
      const open = completeAt(AGENT.replace('{{ nodes.render.body }}', '{{ inputs.t¦'));
      assert.deepEqual(open.labels, ['ticket', 'count']);
      assert.equal(open.items[0]!.insertText, 'ticket }}');
      assert.equal(open.items[0]!.detail, 'string, required');
      assert.equal(open.items[0]!.documentation, 'Ticket text');
      const closed = completeAt(AGENT.replace('{{ nodes.render.body }}', '{{ inputs.¦ }}'));
      assert.equal(closed.items[0]!.insertText, 'ticket');
    });

    it('offers node ids, never the node itself or one that depends on it', () => {
      // In fetch: summarize and render depend on fetch (directly or not), so nothing else is offered.
      const inFetch = completeAt(AGENT.replace('https://api.example.com/{{ inputs.ticket }}', 'https://api.example.com/{{ nodes.¦ }}'));
      assert.deepEqual(inFetch.labels, []);
      const inRender = completeAt(AGENT.replace('{{ nodes.summarize.body }}', '{{ nodes.¦ }}'));
      assert.deepEqual(inRender.labels, ['fetch', 'summarize']);
      assert.equal(inRender.items[0]!.detail, 'GET https://api.example.com/{{ inputs.ticket }}');
      const inOutput = completeAt(AGENT.replace('{{ nodes.render.body }}', '{{ nodes.¦ }}'));
      assert.deepEqual(inOutput.labels, ['fetch', 'summarize', 'render']);
    });

    it('offers body, status and headers after a node id, only body for a template node', () => {
      assert.deepEqual(completeAt(AGENT.replace('{{ nodes.render.body }}', '{{ nodes.fetch.¦ }}')).labels, ['body', 'status', 'headers']);
      assert.deepEqual(completeAt(AGENT.replace('{{ nodes.render.body }}', '{{ nodes.render.¦ }}')).labels, ['body']);
      assert.ok(completeAt(AGENT.replace('{{ nodes.render.body }}', '{{ nodes.fetch.headers.¦ }}')).labels.includes('content-type'));
    });

    it('offers the secret names of the file and of the workspace', () => {
      const text = AGENT.replace('url: https://llm.example.com', 'url: https://llm.example.com?api_key={{ secrets.LLM_KEY }}').replace(
        '{{ nodes.render.body }}',
        '{{ secrets.¦',
      );
      assert.deepEqual(completeAt(text, { workspaceSecrets: ['CRM_TOKEN'] }).labels, ['CRM_TOKEN', 'LLM_KEY']);
    });

    it('works while the YAML is broken elsewhere', () => {
      const broken = `${AGENT}extra: [unclosed\n`.replace('{{ nodes.render.body }}', '{{ inputs.¦ }}');
      assert.deepEqual(completeAt(broken).labels, ['ticket', 'count']);
    });
  });

  describe('long lines', () => {
    const pick = ({ kind, from }: { kind: string; from: number | undefined }) => ({ kind, from });
    // What the key of a line was read with before: a lazy key followed by \s* scanned each run of
    // spaces again from every character before it. The answers must stay the same.
    const KEY_LINE = /^(\s*)(?:-\s+)?("[^"]*"|'[^']*'|[^\s#:'"{}[\],-][^:#"']*?|-[^\s:#"'][^:#"']*?)\s*:(?:\s|$)/;

    it('reads the key of a line as the regex did, for every short line of the characters that matter', () => {
      const alphabet = [' ', '\t', '-', ':', '#', '"', "'", 'a', '{'];
      let lines = [''];
      for (let length = 1; length <= 6; length++) {
        lines = lines.flatMap((line) => (line.length === length - 1 ? alphabet.map((c) => line + c) : []));
        for (const line of lines) {
          const match = KEY_LINE.exec(line);
          const expected = match ? { key: match[2]!, start: match[0].indexOf(match[2]!), end: match[0].length } : undefined;
          const found = keyLine(line);
          assert.deepEqual(found && { key: found.key, start: found.start, end: found.end }, expected, JSON.stringify(line));
        }
      }
    });

    it('answers at once below a line of 500,000 spaces, and after long runs on the line', () => {
      // The regexes took minutes here (mocha's timeout fails them); the scans are linear.
      const below = (line: string) =>
        completeAt(AGENT.replace('    text: "{{ nodes.summarize.body }}"', `    text: |\n${line}\n    ¦`)).labels;
      assert.deepEqual(below(`      a${' '.repeat(500_000)}b`), below('      a b'));
      // Long runs at the cursor, where what is being typed is measured back from the cursor.
      const run = 'a'.repeat(500_000);
      const at = (marked: string) => {
        const { text, offset } = withCursor(marked);
        const context = cursorContext(text, offset);
        return { ...context, from: 'partial' in context ? offset - context.partial.start : undefined };
      };
      assert.deepEqual(pick(at(`url: "{{ ${run} ¦`)), { kind: 'expression', from: 0 });
      assert.deepEqual(pick(at(`settings: ["${run} ¦`)), { kind: 'header', from: 0 });
      assert.deepEqual(pick(at(`ticket: { ${run}!¦`)), { kind: 'key', from: 0 });
      assert.deepEqual(pick(at(`settings: ${'['.repeat(500_000)}¦`)), { kind: 'none', from: undefined });
    });
  });
});
