// The TextMate grammar, tokenized as VS Code does it (vscode-textmate + Oniguruma).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scopesOf, tokenize } from '../support/grammar';
import type { Token } from '../support/grammar';
import { repoRoot } from '../support/paths';

const S = '.agent-yaml';

/** Asserts that every token covering `text` on `line` has `scope` as its innermost scope. */
function expectScope(tokens: readonly Token[], line: number, text: string, scope: string): void {
  const scopes = scopesOf(tokens, line, text);
  assert.ok(scopes.length > 0);
  for (const stack of scopes) assert.equal(stack.split(' ').pop(), scope + S, `"${text}" on line ${line}: ${stack}`);
}

function expectWithin(tokens: readonly Token[], line: number, text: string, scope: string): void {
  for (const stack of scopesOf(tokens, line, text)) assert.ok(stack.split(' ').includes(scope + S), `"${text}" on line ${line}: ${stack}`);
}

function expectNotWithin(tokens: readonly Token[], line: number, text: string, scope: string): void {
  for (const stack of scopesOf(tokens, line, text)) assert.ok(!stack.split(' ').includes(scope + S), `"${text}" on line ${line}: ${stack}`);
}

describe('TextMate grammar', () => {
  it('highlights YAML: keys, comments, strings, numbers, constants, anchors and aliases', async () => {
    const tokens = await tokenize(
      [
        '# a comment',
        'version: 1 # trailing',
        'name: "Quoted \\"name\\""',
        "label: 'it''s'",
        'enabled: true',
        'nothing: null',
        'ratio: -1.5e3',
        'base: &defaults { retries: 3 }',
        'copy: *defaults',
        '---',
        'tagged: !custom value',
      ].join('\n'),
    );
    expectScope(tokens, 1, '# a comment'.slice(1), 'comment.line.number-sign');
    expectScope(tokens, 2, 'version', 'entity.name.tag');
    expectScope(tokens, 2, ':', 'punctuation.separator.key-value.mapping');
    expectScope(tokens, 2, '1', 'constant.numeric');
    expectScope(tokens, 2, ' trailing', 'comment.line.number-sign');
    expectWithin(tokens, 3, 'Quoted', 'string.quoted.double');
    expectScope(tokens, 3, '\\"', 'constant.character.escape');
    expectScope(tokens, 4, "''", 'constant.character.escape.single-quote');
    expectScope(tokens, 5, 'true', 'constant.language');
    expectScope(tokens, 6, 'null', 'constant.language');
    expectScope(tokens, 7, '-1.5e3', 'constant.numeric');
    expectScope(tokens, 8, 'defaults', 'variable.other.anchor');
    expectScope(tokens, 8, 'retries', 'entity.name.tag');
    expectScope(tokens, 8, '3', 'constant.numeric');
    expectScope(tokens, 9, 'defaults', 'variable.other.alias');
    expectScope(tokens, 10, '---', 'entity.other.document');
    expectScope(tokens, 11, '!custom', 'storage.type.tag-handle');
  });

  it('keeps a plain value with a colon inside, such as a URL, one string', async () => {
    const tokens = await tokenize('url: https://api.example.com:8443/v1?q=a:b');
    expectScope(tokens, 1, 'https://api.example.com:8443/v1?q=a:b', 'string.unquoted.plain');
  });

  it('highlights the parts of expressions in plain, quoted and block strings', async () => {
    const tokens = await tokenize(
      [
        'url: https://crm.example.com/{{ inputs.customer_id }}?api_key={{ secrets.CRM_KEY }}',
        'text: "Hi {{ nodes.lookup.body.items[0].name }}"',
        "note: '{{ nodes.a.headers.content-type }}'",
        'template: |',
        '  Dear {{ nodes.lookup.body.name }},',
        '  bye',
        'after: {{ unknown.thing }}',
      ].join('\n'),
    );
    expectScope(tokens, 1, '{{', 'punctuation.definition.expression.begin');
    expectScope(tokens, 1, 'inputs', 'variable.language.root');
    expectScope(tokens, 1, 'customer_id', 'variable.other.property');
    expectScope(tokens, 1, '}}', 'punctuation.definition.expression.end');
    expectScope(tokens, 1, 'CRM_KEY', 'variable.other.constant.secret');
    expectScope(tokens, 1, '?api_key=', 'string.unquoted.plain');
    expectWithin(tokens, 2, 'nodes', 'string.quoted.double');
    expectScope(tokens, 2, 'nodes', 'variable.language.root');
    expectScope(tokens, 2, '0', 'constant.numeric.index');
    expectScope(tokens, 2, 'name', 'variable.other.property');
    expectScope(tokens, 3, 'content-type', 'variable.other.property');
    expectScope(tokens, 4, '|', 'keyword.control.flow.block-scalar.literal');
    expectWithin(tokens, 5, 'Dear', 'string.unquoted.block');
    expectScope(tokens, 5, 'lookup', 'variable.other.property');
    expectWithin(tokens, 6, 'bye', 'string.unquoted.block');
    expectScope(tokens, 7, 'after', 'entity.name.tag');
    expectScope(tokens, 7, 'unknown', 'invalid.illegal.root');
  });

  it('highlights header strings of a block settings list: name, colon, scheme and value', async () => {
    const tokens = await tokenize(
      [
        'nodes:',
        '  call:',
        '    settings:',
        '      - "Authorization: Bearer {{ secrets.API_TOKEN }}"',
        "      - 'authorization: basic dXNlcjpwYXNz'",
        '      - "x-api-key: {{ secrets.KEY }}"',
        '',
        '      # a comment inside',
        '      - "Accept: application/json"',
        '    body:',
        '      note: "Accept: not a header"',
      ].join('\n'),
    );
    expectScope(tokens, 4, 'Authorization', 'support.type.property-name.header');
    expectScope(tokens, 4, ':', 'punctuation.separator.header');
    expectScope(tokens, 4, 'Bearer', 'keyword.other.auth-scheme');
    expectScope(tokens, 4, 'API_TOKEN', 'variable.other.constant.secret');
    expectScope(tokens, 5, 'authorization', 'support.type.property-name.header');
    expectScope(tokens, 5, 'basic', 'keyword.other.auth-scheme');
    expectScope(tokens, 5, ' dXNlcjpwYXNz', 'string.unquoted.header-value');
    expectScope(tokens, 6, 'x-api-key', 'support.type.property-name.header');
    expectScope(tokens, 9, 'Accept', 'support.type.property-name.header');
    expectScope(tokens, 9, ' application/json', 'string.unquoted.header-value');
    // After the settings block, keys and strings are ordinary again.
    expectScope(tokens, 10, 'body', 'entity.name.tag');
    expectNotWithin(tokens, 10, 'body', 'meta.settings');
    expectNotWithin(tokens, 11, 'Accept', 'support.type.property-name.header');
    expectWithin(tokens, 11, 'Accept', 'string.quoted.double');
  });

  it('highlights header strings of a flow settings list and items at the key indentation', async () => {
    const tokens = await tokenize(
      [
        '  a:',
        '    settings: ["Content-Type: application/json", "Authorization: Basic {{ secrets.B }}"]',
        '    url: https://a.example.com',
        '  b:',
        '    settings:',
        '    - "Accept: text/plain"',
        '    method: GET',
      ].join('\n'),
    );
    expectScope(tokens, 2, 'Content-Type', 'support.type.property-name.header');
    expectScope(tokens, 2, ' application/json', 'string.unquoted.header-value');
    expectScope(tokens, 2, 'Basic', 'keyword.other.auth-scheme');
    expectScope(tokens, 3, 'url', 'entity.name.tag');
    expectNotWithin(tokens, 3, 'url', 'meta.settings');
    expectScope(tokens, 6, 'Accept', 'support.type.property-name.header');
    expectNotWithin(tokens, 7, 'method', 'meta.settings');
  });

  it('does not treat "Name: value" strings outside settings as headers', async () => {
    const tokens = await tokenize(['description: "Authorization: Bearer nothing"', 'items:', '  - "Accept: json"'].join('\n'));
    expectNotWithin(tokens, 1, 'Authorization', 'support.type.property-name.header');
    expectNotWithin(tokens, 1, 'Bearer', 'keyword.other.auth-scheme');
    expectNotWithin(tokens, 3, 'Accept', 'support.type.property-name.header');
  });

  it('tokenizes every example and fixture without an unclosed region at the end', async () => {
    const files = [
      ...['ticket-summarizer', 'weather-report', 'customer-360'].map((name) => join(repoRoot, 'examples', `${name}.agent.yaml`)),
      join(repoRoot, 'test', 'fixtures', 'rules', 'basic.bad.agent.yaml'),
    ];
    for (const file of files) {
      const tokens = await tokenize(`${readFileSync(file, 'utf8')}\nlast_key: value`);
      const last = tokens.filter((token) => token.text === 'last_key');
      assert.equal(last.length, 1, file);
      assert.deepEqual(last[0]!.scopes, ['source.agent-yaml', 'entity.name.tag.agent-yaml'], file);
    }
  });
});
