// The TextMate grammar (syntaxes/agent-yaml.tmLanguage.json), tokenized the way VS Code does it:
// vscode-textmate with the Oniguruma engine, line by line, carrying the rule stack across lines.
// Scopes are compared exactly (the whole stack below `source.agent-yaml`), so a changed or missing
// scope fails a test.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import type { IGrammar, IRawGrammar, IToken } from 'vscode-textmate';
import { parseDocument } from 'yaml';
import { repoRoot } from '../support/paths';

const SUFFIX = '.agent-yaml';
const ROOT_SCOPE = 'source.agent-yaml';
const GRAMMAR_PATH = join(repoRoot, 'syntaxes', 'agent-yaml.tmLanguage.json');

// ------------------------------------------------------------------------------------------------
// Helpers

let grammarLoading: Promise<IGrammar> | undefined;

function loadGrammar(): Promise<IGrammar> {
  grammarLoading ??= (async () => {
    const wasm = readFileSync(join(repoRoot, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm'));
    await oniguruma.loadWASM(wasm);
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (text: string) => new oniguruma.OnigString(text),
      }),
      // Only our own grammar exists here: an include of another grammar (source.yaml) would not load.
      loadGrammar: async (scopeName: string) =>
        scopeName === ROOT_SCOPE ? textmate.parseRawGrammar(readFileSync(GRAMMAR_PATH, 'utf8'), GRAMMAR_PATH) : null,
    });
    const grammar = await registry.loadGrammar(ROOT_SCOPE);
    if (!grammar) throw new Error('the agent-yaml grammar did not load');
    return grammar;
  })();
  return grammarLoading;
}

interface Tokenized {
  readonly lines: readonly string[];
  readonly tokens: readonly (readonly IToken[])[];
}

/** Tokenizes a whole document; `text` may be given as lines. */
async function tokenize(text: string | readonly string[]): Promise<Tokenized> {
  const grammar = await loadGrammar();
  const lines = typeof text === 'string' ? text.split('\n') : [...text];
  const tokens: IToken[][] = [];
  let state = textmate.INITIAL;
  for (const line of lines) {
    const result = grammar.tokenizeLine(line, state);
    tokens.push(result.tokens);
    state = result.ruleStack;
  }
  return { lines, tokens };
}

/** A token's scopes below the root, without the `.agent-yaml` suffix (which every scope must have). */
function shortScopes(token: IToken): string[] {
  const [root, ...rest] = token.scopes;
  assert.equal(root, ROOT_SCOPE);
  return rest.map((scope) => {
    assert.ok(scope.endsWith(SUFFIX), `scope "${scope}" does not end in ${SUFFIX}`);
    return scope.slice(0, -SUFFIX.length);
  });
}

/**
 * The scopes (outermost first, root and suffix left out) of `text` on 1-based line `line`; `nth`
 * picks a later occurrence on the line. Every token the text touches must have the same scopes,
 * so asking for "Bearer" fails when "Bearer" is split or shares a token with its neighbours'
 * different scopes.
 */
function scopesOf(doc: Tokenized, line: number, text: string, nth = 1): string[] {
  const lineText = doc.lines[line - 1];
  assert.ok(lineText !== undefined, `there is no line ${line}`);
  let start = -1;
  for (let i = 0; i < nth; i++) {
    start = lineText.indexOf(text, start + 1);
    assert.ok(start !== -1, `occurrence ${nth} of "${text}" is not on line ${line}: ${lineText}`);
  }
  const end = start + text.length;
  const touched = (doc.tokens[line - 1] ?? []).filter((token) => token.startIndex < end && token.endIndex > start);
  const stacks = touched.map((token) => shortScopes(token).join(' > '));
  assert.ok(stacks.length > 0, `no token covers "${text}" on line ${line}`);
  assert.ok(
    stacks.every((stack) => stack === stacks[0]),
    `"${text}" on line ${line} spans tokens with different scopes:\n  ${touched
      .map((token, i) => `${JSON.stringify(lineText.slice(token.startIndex, token.endIndex))}: ${stacks[i]}`)
      .join('\n  ')}`,
  );
  return stacks[0] === '' ? [] : stacks[0]!.split(' > ');
}

/** The innermost scope of `text` (see scopesOf). */
function innermost(doc: Tokenized, line: number, text: string, nth = 1): string | undefined {
  return scopesOf(doc, line, text, nth).at(-1);
}

/** Every token of a line as [text, innermost scope], tokens of only white space left out. */
function lineTokens(doc: Tokenized, line: number): [string, string | undefined][] {
  const lineText = doc.lines[line - 1]!;
  return (doc.tokens[line - 1] ?? [])
    .map((token): [string, string | undefined] => [lineText.slice(token.startIndex, token.endIndex), shortScopes(token).at(-1)])
    .filter(([text]) => text.trim() !== '');
}

function agentFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return agentFilesUnder(path);
    return /\.agent\.ya?ml$/.test(name) ? [path] : [];
  });
}

// The design brief's example file.
const BRIEF_EXAMPLE = `version: 1
name: Ticket summarizer
description: Summarizes a support ticket and posts it to the help desk.

deployment:                     # where the deployed agent lives (paths from the editor's Agents tab)
  baseUrl: https://agents.example.com
  account: acme                 # <account_path>
  agent: ticket-summarizer      # <agent_path>

inputs:                         # named inputs; the map key is the input name **fixed**
  ticket:      { type: string, description: Ticket text, required: true }
  customer_id: { type: string }
  priority:    { type: string, enum: [low, normal, high], default: normal }
  screenshot:  { type: file, accept: [image/png, image/jpeg] }

outputs:                        # named outputs
  summary:    { from: "{{ nodes.summarize.body.summary }}" }
  ticket_url: { from: "{{ nodes.post_ticket.headers.location }}" }

nodes:                          # processing nodes, keyed by id
  lookup_customer:
    type: api                   # the generic API node
    method: GET
    url: https://crm.example.com/v2/customers/{{ inputs.customer_id }}?api_key={{ secrets.CRM_KEY }}
    settings:                   # header strings: "Name: value", exactly as the service's editor takes them **fixed**
      - "Accept: application/json"

  summarize:
    type: api
    method: POST
    url: https://llm.example.com/v1/summarize
    settings:
      - "Authorization: Bearer {{ secrets.LLM_TOKEN }}"
      - "Content-Type: application/json"
    body:
      text: "{{ inputs.ticket }}"
      customer: "{{ nodes.lookup_customer.body.name }}"

  post_ticket:
    type: api
    method: POST
    url: https://helpdesk.example.com/api/tickets
    settings:
      - "Authorization: Basic {{ secrets.HELPDESK_BASIC }}"
      - "Content-Type: application/json"
      - "Accept: application/json"
    body: { title: "{{ inputs.ticket }}", text: "{{ nodes.summarize.body.summary }}" }

  greeting:
    type: template
    text: "Hello {{ nodes.lookup_customer.body.name }}"`;

// Scope stacks used by several tests.
const KEY = ['entity.name.tag'];
const SETTINGS_ITEM_DQ = ['meta.settings', 'string.quoted.double'];
const HEADER_DQ = [...SETTINGS_ITEM_DQ, 'meta.header'];
const VALUE_DQ = [...HEADER_DQ, 'string.unquoted.header-value'];

// ------------------------------------------------------------------------------------------------

describe('TextMate grammar', () => {
  describe('the grammar file', () => {
    const raw = JSON.parse(readFileSync(GRAMMAR_PATH, 'utf8')) as IRawGrammar & Record<string, unknown>;

    it('is self-contained: every include points into its own repository', () => {
      assert.equal(raw.scopeName, ROOT_SCOPE);
      const includes: string[] = [];
      JSON.stringify(raw, (key, value: unknown) => {
        if (key === 'include' && typeof value === 'string') includes.push(value);
        return value;
      });
      assert.ok(includes.length > 10);
      for (const include of includes) {
        assert.match(include, /^#/, `include "${include}" leaves the grammar`);
        assert.ok(include.slice(1) in raw.repository, `include "${include}" has no repository entry`);
      }
    });

    it('ends every scope name it assigns in .agent-yaml', () => {
      const names: string[] = [];
      JSON.stringify({ patterns: raw.patterns, repository: raw.repository }, (key, value: unknown) => {
        if ((key === 'name' || key === 'contentName') && typeof value === 'string') names.push(...value.split(' '));
        return value;
      });
      assert.ok(names.length > 50);
      for (const name of names) assert.ok(name.endsWith(SUFFIX), name);
    });
  });

  describe('YAML', () => {
    it('highlights comments, document markers, keys and the key-value colon', async () => {
      const doc = await tokenize([
        '# a comment', // 1
        'version: 1 # trailing', // 2
        '"quoted key": a', // 3
        "'single key': b", // 4
        'my key: c', // 5
        '---', // 6
        'url: https://api.example.com:8443/v1#frag # real comment', // 7
        '...', // 8
        '%YAML 1.2', // 9
      ]);
      assert.deepEqual(scopesOf(doc, 1, '#'), ['comment.line.number-sign', 'punctuation.definition.comment']);
      assert.deepEqual(scopesOf(doc, 1, ' a comment'), ['comment.line.number-sign']);
      assert.deepEqual(scopesOf(doc, 2, 'version'), KEY);
      assert.deepEqual(scopesOf(doc, 2, ':'), ['punctuation.separator.key-value.mapping']);
      assert.deepEqual(scopesOf(doc, 2, '1'), ['constant.numeric.integer']);
      assert.deepEqual(scopesOf(doc, 2, ' trailing'), ['comment.line.number-sign']);
      assert.deepEqual(scopesOf(doc, 3, '"quoted key"'), ['string.quoted.double', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, 4, "'single key'"), ['string.quoted.single', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, 5, 'my key'), KEY);
      assert.deepEqual(scopesOf(doc, 6, '---'), ['entity.other.document.begin']);
      // A colon without a space after it, and a # without one before it, stay in the value.
      assert.deepEqual(scopesOf(doc, 7, 'https://api.example.com:8443/v1#frag'), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, 7, ' real comment'), ['comment.line.number-sign']);
      assert.deepEqual(scopesOf(doc, 8, '...'), ['entity.other.document.end']);
      assert.deepEqual(scopesOf(doc, 9, 'YAML'), ['meta.directive', 'keyword.other.directive']);
    });

    it('highlights quoted strings with their escapes, plain strings, numbers, booleans and null', async () => {
      const doc = await tokenize([
        'name: "Quoted \\"name\\" \\u00e9 \\q"', // 1
        "label: 'it''s'", // 2
        'plain: Ticket summarizer', // 3
        'enabled: true', // 4
        'disabled: False', // 5
        'nothing: null', // 6
        'tilde: ~', // 7
        'count: -42', // 8
        'ratio: 1.5e3', // 9
        'mask: 0x1F', // 10
        'forever: .inf', // 11
        'answer: yes', // 12
        'version_like: 1.2.3', // 13
      ]);
      assert.deepEqual(scopesOf(doc, 1, '"', 1), ['string.quoted.double', 'punctuation.definition.string.begin']);
      assert.deepEqual(scopesOf(doc, 1, 'Quoted '), ['string.quoted.double']);
      assert.deepEqual(scopesOf(doc, 1, '\\"'), ['string.quoted.double', 'constant.character.escape']);
      assert.deepEqual(scopesOf(doc, 1, '\\u00e9'), ['string.quoted.double', 'constant.character.escape']);
      assert.deepEqual(scopesOf(doc, 1, '\\q'), ['string.quoted.double', 'invalid.illegal.escape']);
      assert.deepEqual(scopesOf(doc, 1, '"', 4), ['string.quoted.double', 'punctuation.definition.string.end']);
      assert.deepEqual(scopesOf(doc, 2, "'", 1), ['string.quoted.single', 'punctuation.definition.string.begin']);
      assert.deepEqual(scopesOf(doc, 2, "''"), ['string.quoted.single', 'constant.character.escape.single-quote']);
      assert.deepEqual(scopesOf(doc, 2, 's'), ['string.quoted.single']);
      assert.deepEqual(scopesOf(doc, 3, 'Ticket summarizer'), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, 4, 'true'), ['constant.language.boolean']);
      assert.deepEqual(scopesOf(doc, 5, 'False'), ['constant.language.boolean']);
      assert.deepEqual(scopesOf(doc, 6, 'null'), ['constant.language.null']);
      assert.deepEqual(scopesOf(doc, 7, '~'), ['constant.language.null']);
      assert.deepEqual(scopesOf(doc, 8, '-42'), ['constant.numeric.integer']);
      assert.deepEqual(scopesOf(doc, 9, '1.5e3'), ['constant.numeric.float']);
      assert.deepEqual(scopesOf(doc, 10, '0x1F'), ['constant.numeric.integer']);
      assert.deepEqual(scopesOf(doc, 11, '.inf'), ['constant.numeric.float']);
      // YAML 1.2 (what the validator parses): yes/no are strings, and so is a dotted version.
      assert.deepEqual(scopesOf(doc, 12, 'yes'), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, 13, '1.2.3'), ['string.unquoted.plain.out']);
    });

    it('highlights sequences, flow collections, anchors, aliases and tags', async () => {
      const doc = await tokenize([
        'list:', // 1
        '  - first', // 2
        '  - 2', // 3
        'base: &defaults { retries: 3, "mode":fast, tags: [alpha, "beta", 1] }', // 4
        'copy: *defaults', // 5
        'tagged: !custom value', // 6
      ]);
      assert.deepEqual(scopesOf(doc, 2, '-'), ['punctuation.definition.block.sequence.item']);
      assert.deepEqual(scopesOf(doc, 2, 'first'), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, 3, '2'), ['constant.numeric.integer']);
      assert.deepEqual(scopesOf(doc, 4, '&'), ['keyword.control.flow.anchor', 'punctuation.definition.anchor']);
      assert.deepEqual(scopesOf(doc, 4, 'defaults'), ['variable.other.anchor']);
      assert.deepEqual(scopesOf(doc, 4, '{'), ['meta.flow-mapping', 'punctuation.definition.mapping.begin']);
      assert.deepEqual(scopesOf(doc, 4, 'retries'), ['meta.flow-mapping', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, 4, '3'), ['meta.flow-mapping', 'constant.numeric.integer']);
      assert.deepEqual(scopesOf(doc, 4, ','), ['meta.flow-mapping', 'punctuation.separator.mapping']);
      assert.deepEqual(scopesOf(doc, 4, '"mode"'), ['meta.flow-mapping', 'string.quoted.double', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, 4, 'fast'), ['meta.flow-mapping', 'string.unquoted.plain.in']);
      assert.deepEqual(scopesOf(doc, 4, '['), ['meta.flow-mapping', 'meta.flow-sequence', 'punctuation.definition.sequence.begin']);
      assert.deepEqual(scopesOf(doc, 4, 'alpha'), ['meta.flow-mapping', 'meta.flow-sequence', 'string.unquoted.plain.in']);
      assert.deepEqual(scopesOf(doc, 4, ',', 3), ['meta.flow-mapping', 'meta.flow-sequence', 'punctuation.separator.sequence']);
      assert.deepEqual(scopesOf(doc, 4, 'beta'), ['meta.flow-mapping', 'meta.flow-sequence', 'string.quoted.double']);
      assert.deepEqual(scopesOf(doc, 4, '1'), ['meta.flow-mapping', 'meta.flow-sequence', 'constant.numeric.integer']);
      assert.deepEqual(scopesOf(doc, 4, ']'), ['meta.flow-mapping', 'meta.flow-sequence', 'punctuation.definition.sequence.end']);
      assert.deepEqual(scopesOf(doc, 4, '}'), ['meta.flow-mapping', 'punctuation.definition.mapping.end']);
      assert.deepEqual(scopesOf(doc, 5, '*'), ['keyword.control.flow.alias', 'punctuation.definition.alias']);
      assert.deepEqual(scopesOf(doc, 5, 'defaults'), ['variable.other.alias']);
      assert.deepEqual(scopesOf(doc, 6, 'custom'), ['storage.type.tag-handle']);
      assert.deepEqual(scopesOf(doc, 6, 'value'), ['string.unquoted.plain.out']);
    });

    it('highlights block scalars: indicators, the indented body, and what follows it', async () => {
      const doc = await tokenize([
        'node:', // 1
        '  text: |', // 2
        '    Dear customer,', // 3
        '    # not a comment in a block scalar', // 4
        '', // 5
        '    key: not a key either', // 6
        '  note: >-2 # folded', // 7
        '    folded', // 8
        '  empty: |', // 9
        '  after: plain', // 10
        '  items:', // 11
        '    - body: |', // 12
        '        item body', // 13
        '      next: x', // 14
        '    - |', // 15
        '      literal item', // 16
        'top: 1', // 17
      ]);
      assert.deepEqual(scopesOf(doc, 2, 'text'), KEY);
      assert.deepEqual(scopesOf(doc, 2, '|'), ['keyword.control.flow.block-scalar.literal']);
      assert.deepEqual(scopesOf(doc, 3, 'Dear customer,'), ['string.unquoted.block']);
      assert.deepEqual(scopesOf(doc, 4, '# not a comment'), ['string.unquoted.block']);
      assert.deepEqual(scopesOf(doc, 6, 'key: not a key either'), ['string.unquoted.block']);
      assert.deepEqual(scopesOf(doc, 7, 'note'), KEY);
      assert.deepEqual(scopesOf(doc, 7, '>'), ['keyword.control.flow.block-scalar.folded']);
      assert.deepEqual(scopesOf(doc, 7, '-'), ['storage.modifier.chomping-indicator']);
      assert.deepEqual(scopesOf(doc, 7, '2'), ['constant.numeric.indentation-indicator']);
      assert.deepEqual(scopesOf(doc, 7, ' folded'), ['comment.line.number-sign']);
      assert.deepEqual(scopesOf(doc, 8, 'folded'), ['string.unquoted.block']);
      // An empty block scalar: the next key at the same indentation is a key, not the body.
      assert.deepEqual(scopesOf(doc, 10, 'after'), KEY);
      assert.deepEqual(scopesOf(doc, 10, 'plain'), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, 12, 'body'), KEY);
      assert.deepEqual(scopesOf(doc, 13, 'item body'), ['string.unquoted.block']);
      assert.deepEqual(scopesOf(doc, 14, 'next'), KEY);
      assert.deepEqual(scopesOf(doc, 15, '-'), ['punctuation.definition.block.sequence.item']);
      assert.deepEqual(scopesOf(doc, 15, '|'), ['keyword.control.flow.block-scalar.literal']);
      assert.deepEqual(scopesOf(doc, 16, 'literal item'), ['string.unquoted.block']);
      assert.deepEqual(scopesOf(doc, 17, 'top'), KEY);
      assert.deepEqual(scopesOf(doc, 17, '1'), ['constant.numeric.integer']);
    });
  });

  describe('expressions', () => {
    it('scopes every part of an expression: braces, root, accessors, properties, index, secret name', async () => {
      const doc = await tokenize('text: "Hi {{ nodes.lookup.body.items[0].name }} {{ secrets.CRM_KEY }}"');
      const E = ['string.quoted.double', 'meta.embedded.expression'];
      assert.deepEqual(lineTokens(doc, 1), [
        ['text', 'entity.name.tag'],
        [':', 'punctuation.separator.key-value.mapping'],
        ['"', 'punctuation.definition.string.begin'],
        ['Hi ', 'string.quoted.double'],
        ['{{', 'punctuation.definition.expression.begin'],
        ['nodes', 'variable.language.root'],
        ['.', 'punctuation.accessor'],
        ['lookup', 'variable.other.property'],
        ['.', 'punctuation.accessor'],
        ['body', 'variable.other.property'],
        ['.', 'punctuation.accessor'],
        ['items', 'variable.other.property'],
        ['[', 'punctuation.section.brackets.begin'],
        ['0', 'constant.numeric.index'],
        [']', 'punctuation.section.brackets.end'],
        ['.', 'punctuation.accessor'],
        ['name', 'variable.other.property'],
        ['}}', 'punctuation.definition.expression.end'],
        ['{{', 'punctuation.definition.expression.begin'],
        ['secrets', 'variable.language.root'],
        ['.', 'punctuation.accessor'],
        ['CRM_KEY', 'variable.other.constant.secret'],
        ['}}', 'punctuation.definition.expression.end'],
        ['"', 'punctuation.definition.string.end'],
      ]);
      assert.deepEqual(scopesOf(doc, 1, '{{'), [...E, 'punctuation.definition.expression.begin']);
      assert.deepEqual(scopesOf(doc, 1, 'nodes'), [...E, 'variable.language.root']);
      assert.deepEqual(scopesOf(doc, 1, '0'), [...E, 'constant.numeric.index']);
      assert.deepEqual(scopesOf(doc, 1, 'CRM_KEY'), [...E, 'variable.other.constant.secret']);
      assert.deepEqual(scopesOf(doc, 1, '}}', 2), [...E, 'punctuation.definition.expression.end']);
    });

    it('highlights expressions in plain, single-quoted and block strings, and header names in paths', async () => {
      const doc = await tokenize([
        'url: https://crm.example.com/{{ inputs.customer_id }}?api_key={{ secrets.CRM_KEY }}', // 1
        "note: '{{ nodes.post_ticket.headers.content-type }}'", // 2
        'template: |', // 3
        '  Dear {{ nodes.lookup.status }},', // 4
        'compact: "{{inputs.ticket}}"', // 5
        'subscript: \'{{ nodes.a.body["full name"] }}\'', // 6
      ]);
      assert.deepEqual(scopesOf(doc, 1, 'https://crm.example.com/'), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, 1, 'inputs'), ['string.unquoted.plain.out', 'meta.embedded.expression', 'variable.language.root']);
      assert.deepEqual(scopesOf(doc, 1, 'customer_id'), [
        'string.unquoted.plain.out',
        'meta.embedded.expression',
        'variable.other.property',
      ]);
      assert.deepEqual(scopesOf(doc, 1, '?api_key='), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, 1, 'CRM_KEY'), [
        'string.unquoted.plain.out',
        'meta.embedded.expression',
        'variable.other.constant.secret',
      ]);
      assert.deepEqual(scopesOf(doc, 2, 'content-type'), ['string.quoted.single', 'meta.embedded.expression', 'variable.other.property']);
      assert.deepEqual(scopesOf(doc, 4, '  Dear '), ['string.unquoted.block']);
      assert.deepEqual(scopesOf(doc, 4, 'nodes'), ['string.unquoted.block', 'meta.embedded.expression', 'variable.language.root']);
      assert.deepEqual(scopesOf(doc, 4, 'status'), ['string.unquoted.block', 'meta.embedded.expression', 'variable.other.property']);
      assert.deepEqual(scopesOf(doc, 4, ','), ['string.unquoted.block']);
      assert.deepEqual(scopesOf(doc, 5, 'inputs'), ['string.quoted.double', 'meta.embedded.expression', 'variable.language.root']);
      assert.deepEqual(scopesOf(doc, 5, 'ticket'), ['string.quoted.double', 'meta.embedded.expression', 'variable.other.property']);
      assert.deepEqual(scopesOf(doc, 6, '"full name"'), ['string.quoted.single', 'meta.embedded.expression', 'string.quoted.other.key']);
    });

    it('marks an unknown root as invalid, still inside the expression', async () => {
      const doc = await tokenize(['a: "{{ input.ticket }}"', 'b: {{ unknown.thing }}']);
      assert.deepEqual(scopesOf(doc, 1, 'input'), ['string.quoted.double', 'meta.embedded.expression', 'invalid.illegal.root']);
      assert.deepEqual(scopesOf(doc, 1, 'ticket'), ['string.quoted.double', 'meta.embedded.expression', 'variable.other.property']);
      assert.deepEqual(scopesOf(doc, 2, 'unknown'), ['string.unquoted.plain.out', 'meta.embedded.expression', 'invalid.illegal.root']);
      assert.deepEqual(scopesOf(doc, 2, '{{'), [
        'string.unquoted.plain.out',
        'meta.embedded.expression',
        'punctuation.definition.expression.begin',
      ]);
      // A root is a whole word: "inputsX" and "nodes_1" are not "inputs" and "nodes".
      const words = await tokenize('c: "{{ inputsX.a }}{{ nodes_1 }}"');
      assert.equal(innermost(words, 1, 'inputsX'), 'invalid.illegal.root');
      assert.equal(innermost(words, 1, 'nodes_1'), 'invalid.illegal.root');
    });

    it('ends an unclosed expression with its string, so the next line is unaffected', async () => {
      const doc = await tokenize(['a: "Hello {{ inputs.name"', 'b: plain {{ inputs.x', 'c: 3', "d: '{{ secrets.MY-KEY }}'"]);
      assert.deepEqual(scopesOf(doc, 1, '"', 2), ['string.quoted.double', 'punctuation.definition.string.end']);
      assert.deepEqual(scopesOf(doc, 2, 'x'), ['string.unquoted.plain.out', 'meta.embedded.expression', 'variable.other.property']);
      assert.deepEqual(scopesOf(doc, 3, 'c'), KEY);
      assert.deepEqual(scopesOf(doc, 3, '3'), ['constant.numeric.integer']);
      // A secret name is letters, digits and _; the rest cannot be read.
      assert.deepEqual(scopesOf(doc, 4, 'MY'), ['string.quoted.single', 'meta.embedded.expression', 'variable.other.constant.secret']);
      assert.deepEqual(scopesOf(doc, 4, '-KEY'), ['string.quoted.single', 'meta.embedded.expression', 'invalid.illegal.expression']);
    });
  });

  describe('header strings in settings', () => {
    it('splits each header of a block settings list into name, colon, scheme and value', async () => {
      const doc = await tokenize([
        'nodes:', // 1
        '  call:', // 2
        '    settings:', // 3
        '      - "Authorization: Bearer {{ secrets.API_TOKEN }}"', // 4
        "      - 'authorization: basic dXNlcjpwYXNz'   # lower case works too", // 5
        '      - "x-api-key: {{ secrets.KEY }}"', // 6
        '', // 7
        '      # a comment between items', // 8
        '      - "Content-Type: application/json"', // 9
        '      - X-Trace:{{ inputs.id }}', // 10
        '    body:', // 11
        '      note: "Accept: not a header"', // 12
      ]);
      assert.deepEqual(lineTokens(doc, 4), [
        ['-', 'punctuation.definition.block.sequence.item'],
        ['"', 'punctuation.definition.string.begin'],
        ['Authorization', 'support.type.property-name.header'],
        [':', 'punctuation.separator.header'],
        ['Bearer', 'keyword.other.auth-scheme'],
        ['{{', 'punctuation.definition.expression.begin'],
        ['secrets', 'variable.language.root'],
        ['.', 'punctuation.accessor'],
        ['API_TOKEN', 'variable.other.constant.secret'],
        ['}}', 'punctuation.definition.expression.end'],
        ['"', 'punctuation.definition.string.end'],
      ]);
      assert.deepEqual(scopesOf(doc, 3, 'settings'), ['meta.settings', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, 4, 'Authorization'), [...HEADER_DQ, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, 4, ':'), [...HEADER_DQ, 'punctuation.separator.header']);
      assert.deepEqual(scopesOf(doc, 4, 'Bearer'), [...VALUE_DQ, 'keyword.other.auth-scheme']);
      assert.deepEqual(scopesOf(doc, 4, 'API_TOKEN'), [...VALUE_DQ, 'meta.embedded.expression', 'variable.other.constant.secret']);
      const headerSq = ['meta.settings', 'string.quoted.single', 'meta.header'];
      assert.deepEqual(scopesOf(doc, 5, 'authorization'), [...headerSq, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, 5, 'basic'), [...headerSq, 'string.unquoted.header-value', 'keyword.other.auth-scheme']);
      assert.deepEqual(scopesOf(doc, 5, ' dXNlcjpwYXNz'), [...headerSq, 'string.unquoted.header-value']);
      assert.deepEqual(scopesOf(doc, 5, ' lower case works too'), ['meta.settings', 'comment.line.number-sign']);
      assert.deepEqual(scopesOf(doc, 6, 'x-api-key'), [...HEADER_DQ, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, 6, 'KEY'), [...VALUE_DQ, 'meta.embedded.expression', 'variable.other.constant.secret']);
      assert.deepEqual(scopesOf(doc, 8, ' a comment between items'), ['meta.settings', 'comment.line.number-sign']);
      assert.deepEqual(scopesOf(doc, 9, 'Content-Type'), [...HEADER_DQ, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, 9, 'application/json'), VALUE_DQ);
      // An unquoted header string (no space after the colon, so YAML reads it as a string).
      const headerPlain = ['meta.settings', 'string.unquoted.plain.out', 'meta.header'];
      assert.deepEqual(scopesOf(doc, 10, 'X-Trace'), [...headerPlain, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, 10, ':'), [...headerPlain, 'punctuation.separator.header']);
      assert.deepEqual(scopesOf(doc, 10, 'inputs'), [
        ...headerPlain,
        'string.unquoted.header-value',
        'meta.embedded.expression',
        'variable.language.root',
      ]);
      // After the block: an ordinary key, and an ordinary string that happens to look like a header.
      assert.deepEqual(scopesOf(doc, 11, 'body'), KEY);
      assert.deepEqual(scopesOf(doc, 12, 'note'), KEY);
      assert.deepEqual(scopesOf(doc, 12, 'Accept: not a header'), ['string.quoted.double']);
    });

    it('only treats Authorization schemes as schemes, and leaves a non-header item a plain string', async () => {
      const doc = await tokenize([
        'settings:', // 1
        '- "X-Note: Bearer of news"', // 2
        '- "Proxy-Authorization: BASIC abc"', // 3
        '- "Accept application/json"', // 4
        '- Accept: application/json', // 5
        'method: GET', // 6
      ]);
      // Items at the key's own indentation belong to the list.
      assert.deepEqual(scopesOf(doc, 2, 'X-Note'), [...HEADER_DQ, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, 2, 'Bearer of news'), VALUE_DQ);
      assert.deepEqual(scopesOf(doc, 3, 'BASIC'), [...VALUE_DQ, 'keyword.other.auth-scheme']);
      // No colon: not a header (the validator reports it); just the string.
      assert.deepEqual(scopesOf(doc, 4, 'Accept application/json'), SETTINGS_ITEM_DQ);
      // Unquoted with ": " YAML reads a mapping, not a string: shown as key and value, as the schema
      // check reports it ("must be quoted").
      assert.deepEqual(scopesOf(doc, 5, 'Accept'), ['meta.settings', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, 5, 'application/json'), ['meta.settings', 'string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, 6, 'method'), KEY);
      assert.deepEqual(scopesOf(doc, 6, 'GET'), ['string.unquoted.plain.out']);
    });

    it('splits headers of a flow settings list, on one line or several, and inside a flow mapping', async () => {
      const doc = await tokenize([
        '  a:', // 1
        '    settings: ["Content-Type: application/json", \'Authorization: Basic {{ secrets.B }}\', Accept:text/plain]', // 2
        '    url: https://a.example.com', // 3
        '  b:', // 4
        '    settings: [', // 5
        '      "Authorization: Bearer {{ secrets.T }}",  # why', // 6
        '      "Accept: application/json"', // 7
        '    ]', // 8
        '    method: GET', // 9
        '  c: { type: api, settings: ["x-api-key: {{ secrets.K }}"], url: "Accept: no" }', // 10
      ]);
      const flow = ['meta.settings', 'meta.flow-sequence'];
      assert.deepEqual(scopesOf(doc, 2, '['), [...flow, 'punctuation.definition.sequence.begin']);
      assert.deepEqual(scopesOf(doc, 2, 'Content-Type'), [
        ...flow,
        'string.quoted.double',
        'meta.header',
        'support.type.property-name.header',
      ]);
      assert.deepEqual(scopesOf(doc, 2, ':', 2), [...flow, 'string.quoted.double', 'meta.header', 'punctuation.separator.header']);
      assert.deepEqual(scopesOf(doc, 2, 'application/json'), [
        ...flow,
        'string.quoted.double',
        'meta.header',
        'string.unquoted.header-value',
      ]);
      assert.deepEqual(scopesOf(doc, 2, ','), [...flow, 'punctuation.separator.sequence']);
      assert.deepEqual(scopesOf(doc, 2, 'Authorization'), [
        ...flow,
        'string.quoted.single',
        'meta.header',
        'support.type.property-name.header',
      ]);
      assert.deepEqual(scopesOf(doc, 2, 'Basic'), [
        ...flow,
        'string.quoted.single',
        'meta.header',
        'string.unquoted.header-value',
        'keyword.other.auth-scheme',
      ]);
      assert.deepEqual(scopesOf(doc, 2, 'B', 2), [
        ...flow,
        'string.quoted.single',
        'meta.header',
        'string.unquoted.header-value',
        'meta.embedded.expression',
        'variable.other.constant.secret',
      ]);
      assert.deepEqual(scopesOf(doc, 2, 'Accept'), [
        ...flow,
        'string.unquoted.plain.in',
        'meta.header',
        'support.type.property-name.header',
      ]);
      assert.deepEqual(scopesOf(doc, 2, 'text/plain'), [
        ...flow,
        'string.unquoted.plain.in',
        'meta.header',
        'string.unquoted.header-value',
      ]);
      assert.deepEqual(scopesOf(doc, 3, 'url'), KEY);
      assert.deepEqual(scopesOf(doc, 6, 'Bearer'), [
        ...flow,
        'string.quoted.double',
        'meta.header',
        'string.unquoted.header-value',
        'keyword.other.auth-scheme',
      ]);
      assert.deepEqual(scopesOf(doc, 6, ' why'), [...flow, 'comment.line.number-sign']);
      assert.deepEqual(scopesOf(doc, 7, 'Accept'), [...flow, 'string.quoted.double', 'meta.header', 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, 8, ']'), [...flow, 'punctuation.definition.sequence.end']);
      assert.deepEqual(scopesOf(doc, 9, 'method'), KEY);
      const inMapping = ['meta.flow-mapping', 'meta.flow-sequence', 'string.quoted.double', 'meta.header'];
      assert.deepEqual(scopesOf(doc, 10, 'settings'), ['meta.flow-mapping', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, 10, 'x-api-key'), [...inMapping, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, 10, 'Accept: no'), ['meta.flow-mapping', 'string.quoted.double']);
    });

    it('does not treat "Name: value" strings outside settings as headers', async () => {
      const doc = await tokenize([
        'description: "Authorization: Bearer nothing"', // 1
        'items:', // 2
        '  - "Accept: json"', // 3
        "  - 'x-api-key: abc'", // 4
        'my_settings:', // 5
        '  - "Accept: json"', // 6
        'other: ["Accept: json"]', // 7
      ]);
      assert.deepEqual(scopesOf(doc, 1, 'Authorization: Bearer nothing'), ['string.quoted.double']);
      assert.deepEqual(scopesOf(doc, 3, 'Accept: json'), ['string.quoted.double']);
      assert.deepEqual(scopesOf(doc, 4, 'x-api-key: abc'), ['string.quoted.single']);
      assert.deepEqual(scopesOf(doc, 5, 'my_settings'), KEY);
      assert.deepEqual(scopesOf(doc, 6, 'Accept: json'), ['string.quoted.double']);
      assert.deepEqual(scopesOf(doc, 7, 'Accept: json'), ['meta.flow-sequence', 'string.quoted.double']);
    });
  });

  describe('whole files', () => {
    it('highlights the design brief example', async () => {
      const doc = await tokenize(BRIEF_EXAMPLE);
      const at = (text: string, from = 1): number => {
        const index = doc.lines.findIndex((line, i) => i + 1 >= from && line.includes(text));
        assert.ok(index !== -1, `no line with "${text}"`);
        return index + 1;
      };
      assert.deepEqual(scopesOf(doc, at('version'), 'version'), KEY);
      assert.deepEqual(scopesOf(doc, at('deployment:'), ' where the deployed agent lives (paths from the editor'), [
        'comment.line.number-sign',
      ]);
      assert.deepEqual(scopesOf(doc, at('baseUrl'), 'https://agents.example.com'), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, at('priority:'), 'low'), ['meta.flow-mapping', 'meta.flow-sequence', 'string.unquoted.plain.in']);
      assert.deepEqual(scopesOf(doc, at('priority:'), 'default'), ['meta.flow-mapping', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, at('ticket:'), 'true'), ['meta.flow-mapping', 'constant.language.boolean']);
      assert.deepEqual(scopesOf(doc, at('ticket_url:'), 'location'), [
        'meta.flow-mapping',
        'string.quoted.double',
        'meta.embedded.expression',
        'variable.other.property',
      ]);
      assert.deepEqual(scopesOf(doc, at('url: https://crm'), 'CRM_KEY'), [
        'string.unquoted.plain.out',
        'meta.embedded.expression',
        'variable.other.constant.secret',
      ]);
      const firstSettings = at('settings:');
      assert.deepEqual(scopesOf(doc, firstSettings, ' header strings: "Name: value", exactly as'), [
        'meta.settings',
        'comment.line.number-sign',
      ]);
      assert.deepEqual(scopesOf(doc, firstSettings + 1, 'Accept'), [...HEADER_DQ, 'support.type.property-name.header']);
      // The blank line and the next node id end the first settings block.
      assert.deepEqual(scopesOf(doc, at('summarize:'), 'summarize'), KEY);
      const bearer = at('Bearer');
      assert.deepEqual(scopesOf(doc, bearer, 'Authorization'), [...HEADER_DQ, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, bearer, 'Bearer'), [...VALUE_DQ, 'keyword.other.auth-scheme']);
      assert.deepEqual(scopesOf(doc, bearer, 'LLM_TOKEN'), [...VALUE_DQ, 'meta.embedded.expression', 'variable.other.constant.secret']);
      assert.deepEqual(scopesOf(doc, bearer + 1, 'Content-Type'), [...HEADER_DQ, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, bearer + 1, 'application/json'), VALUE_DQ);
      // body: right after the settings block is an ordinary key again, and so are its strings.
      assert.deepEqual(scopesOf(doc, bearer + 2, 'body'), KEY);
      assert.deepEqual(scopesOf(doc, bearer + 3, 'text'), KEY);
      assert.deepEqual(scopesOf(doc, bearer + 3, 'ticket'), [
        'string.quoted.double',
        'meta.embedded.expression',
        'variable.other.property',
      ]);
      const basic = at('Basic');
      assert.deepEqual(scopesOf(doc, basic, 'Basic'), [...VALUE_DQ, 'keyword.other.auth-scheme']);
      assert.deepEqual(scopesOf(doc, basic, 'HELPDESK_BASIC'), [...VALUE_DQ, 'meta.embedded.expression', 'variable.other.constant.secret']);
      assert.deepEqual(scopesOf(doc, basic + 2, 'Accept'), [...HEADER_DQ, 'support.type.property-name.header']);
      assert.deepEqual(scopesOf(doc, basic + 3, 'body'), KEY);
      assert.deepEqual(scopesOf(doc, basic + 3, 'title'), ['meta.flow-mapping', 'entity.name.tag']);
      assert.deepEqual(scopesOf(doc, at('type: template'), 'template'), ['string.unquoted.plain.out']);
      assert.deepEqual(scopesOf(doc, at('Hello'), 'Hello '), ['string.quoted.double']);
      assert.deepEqual(scopesOf(doc, at('Hello'), 'lookup_customer'), [
        'string.quoted.double',
        'meta.embedded.expression',
        'variable.other.property',
      ]);
    });

    it('leaves no region open at the end of any example or test fixture', async () => {
      const files = [...agentFilesUnder(join(repoRoot, 'examples')), ...agentFilesUnder(join(repoRoot, 'test', 'fixtures'))];
      // A file that is not even YAML (a fixture for parse errors) may well leave a string open.
      const wellFormed = files
        .map((file) => ({ file, text: readFileSync(file, 'utf8').replace(/\r\n/g, '\n') }))
        .filter(({ text }) => parseDocument(text).errors.length === 0);
      assert.ok(wellFormed.length >= 3, `only ${wellFormed.length} well-formed agent files found`);
      for (const { file, text } of wellFormed) {
        const doc = await tokenize(`${text}\nlast_key: value`);
        const last = doc.lines.length;
        assert.deepEqual(
          lineTokens(doc, last),
          [
            ['last_key', 'entity.name.tag'],
            [':', 'punctuation.separator.key-value.mapping'],
            ['value', 'string.unquoted.plain.out'],
          ],
          file,
        );
        assert.deepEqual(scopesOf(doc, last, 'last_key'), KEY, file);
      }
    });
  });
});

describe('language configuration', () => {
  interface Configuration {
    comments: { lineComment: string };
    autoClosingPairs: { open: string; close: string }[];
    folding: { offSide: boolean };
    indentationRules: { increaseIndentPattern: string; decreaseIndentPattern: string };
    onEnterRules: { beforeText: string; action: { indent: string; appendText?: string } }[];
    wordPattern: string;
  }
  const configuration = JSON.parse(readFileSync(join(repoRoot, 'language-configuration.json'), 'utf8')) as Configuration;

  it('comments with #, folds by indentation and closes {{ with }}', () => {
    assert.equal(configuration.comments.lineComment, '#');
    assert.equal(configuration.folding.offSide, true);
    assert.ok(configuration.autoClosingPairs.some((pair) => pair.open === '{{' && pair.close === '}}'));
  });

  it('indents after a key that opens a block, and not after a finished value', () => {
    const increase = new RegExp(configuration.indentationRules.increaseIndentPattern);
    for (const line of ['nodes:', '  lookup:   # comment', '    settings:', '  - name:', 'text: |', 'text: >-', 'body: {', 'a: &anchor']) {
      assert.ok(increase.test(line), line);
    }
    for (const line of ['name: x', '  - "Accept: application/json"', '# note:', 'url: https://example.com']) {
      assert.ok(!increase.test(line), line);
    }
    assert.ok(new RegExp(configuration.indentationRules.decreaseIndentPattern).test('  }'));
  });

  it('continues a list of quoted strings (settings) with "- " on Enter', () => {
    const rule = configuration.onEnterRules.find((r) => new RegExp(r.beforeText).test('      - "Accept: application/json"'));
    assert.equal(rule?.action.appendText, '- ');
    assert.ok(!new RegExp(configuration.onEnterRules[0]!.beforeText).test('  - plain: value'));
  });

  it('takes expression parts and header names as words', () => {
    const words = (text: string) => text.match(new RegExp(configuration.wordPattern, 'g'));
    assert.deepEqual(words('{{ secrets.LLM_TOKEN }}'), ['secrets', 'LLM_TOKEN']);
    assert.deepEqual(words('"Content-Type: application/json"'), ['Content-Type', 'application', 'json']);
    assert.deepEqual(words('{{ nodes.post-ticket.headers.x-request-id }}'), ['nodes', 'post-ticket', 'headers', 'x-request-id']);
  });
});
