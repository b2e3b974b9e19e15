// Every validation rule, driven by fixture files: <topic>.bad.agent.yaml carries its expected
// problems as annotations (test/support/annotations.ts), <topic>.good.agent.yaml is the same
// topic done right and must have no problems at all.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROBLEM_CODES } from '../../src/core/document/problems';
import { validateAgentText } from '../../src/core/validation/validate';
import { formatActual, formatExpected, readAnnotations } from '../support/annotations';
import { fixturesDir } from '../support/paths';

const rulesDir = join(fixturesDir, 'rules');
const files = readdirSync(rulesDir)
  .filter((name) => name.endsWith('.agent.yaml'))
  .sort();
const badFiles = files.filter((name) => name.endsWith('.bad.agent.yaml'));

describe('validation rules (fixtures)', () => {
  for (const name of badFiles) {
    it(`${name} reports exactly its annotated problems`, () => {
      const text = readFileSync(join(rulesDir, name), 'utf8');
      const expected = readAnnotations(text);
      assert.ok(expected.length > 0, `${name} has no annotations`);
      const actual = validateAgentText(text).problems.map(formatActual).sort();
      assert.deepEqual(actual, expected.map(formatExpected).sort());
    });

    const good = name.replace('.bad.', '.good.');
    it(`${good} has no problems`, () => {
      assert.ok(files.includes(good), `${good} is missing: every bad fixture has a good counterpart`);
      const problems = validateAgentText(readFileSync(join(rulesDir, good), 'utf8')).problems;
      assert.deepEqual(
        problems.map((problem) => `${formatActual(problem)} ${problem.message}`),
        [],
      );
    });
  }

  it('annotations name only codes that exist', () => {
    for (const name of badFiles) {
      for (const problem of readAnnotations(readFileSync(join(rulesDir, name), 'utf8'))) {
        assert.ok(problem.code in PROBLEM_CODES, `${name}: unknown code ${problem.code}`);
      }
    }
  });
});

describe('validation messages (issue 9)', () => {
  const messageOf = (text: string, code: string): string => {
    const found = validateAgentText(text).problems.filter((p) => p.code === code);
    assert.equal(
      found.length,
      1,
      `expected one ${code}: ${validateAgentText(text)
        .problems.map((p) => p.code)
        .join(', ')}`,
    );
    return found[0]!.message;
  };
  const apiNode = (line: string) =>
    `version: 1\nname: m\nnodes:\n  call:\n    type: api\n    method: GET\n${line}\noutputs:\n  o: { from: "{{ nodes.call.body }}" }\n`;

  it('names a mapping given as an input type instead of printing [object Object]', () => {
    const message = messageOf(
      'version: 1\nname: m\ninputs:\n  a: { type: {} }\nnodes:\n  t: { type: template, text: "{{ inputs.a }}" }\noutputs:\n  o: { from: "{{ nodes.t.body }}" }\n',
      'invalid-input-type',
    );
    assert.equal(message, `The type of input "a" is a mapping; write one of 'string', 'number', 'boolean' or 'file'.`);
  });

  it('asks for https:// first when a URL has no scheme, even with a space in it', () => {
    const message = messageOf(apiNode('    url: api.example.com/search?q=two words'), 'invalid-url');
    assert.equal(message, 'The URL of node "call" is not a valid URL. It must start with https:// or http://.');
  });

  it('reports "Bearer" glued to its expression', () => {
    const message = messageOf(
      apiNode('    url: https://api.example.com/x\n    settings: ["Authorization: Bearer{{ secrets.T }}"]'),
      'missing-auth-scheme',
    );
    assert.equal(
      message,
      '"Bearer" needs a space before the credentials, or it is sent glued to them and the server sees no scheme. Write "Authorization: Bearer {{ secrets.T }}".',
    );
  });

  it('names a password in the URL and the secret to move it to', () => {
    const message = messageOf(apiNode('    url: https://alice:hunter2@api.example.com/v1/items'), 'literal-credential');
    assert.equal(
      message,
      'This password in the URL is written in the file, where anyone who can read the file or its history can use it. Move it to a secret: write "alice:{{ secrets.CALL_PASSWORD }}@" and store the value as secret CALL_PASSWORD (the command line reads AGENT_SECRET_CALL_PASSWORD).',
    );
  });

  it('names an access_token, token or key query value and the secret to move it to', () => {
    const token = messageOf(apiNode('    url: https://api.example.com/v1/items?access_token=ya29a0AfH6'), 'literal-credential');
    assert.equal(
      token,
      'This access_token value is written in the file, where anyone who can read the file or its history can use it. Move it to a secret: write "access_token={{ secrets.CALL_TOKEN }}" and store the value as secret CALL_TOKEN (the command line reads AGENT_SECRET_CALL_TOKEN).',
    );
    const key = messageOf(apiNode('    url: https://api.example.com/v1/items?KEY=<YOUR_KEY>'), 'literal-credential');
    assert.equal(
      key,
      'This KEY value looks like a placeholder. Replace it with a secret reference: "KEY={{ secrets.CALL_API_KEY }}", then store the real value as secret CALL_API_KEY (the command line reads AGENT_SECRET_CALL_API_KEY).',
    );
  });

  it("names GitLab's private_token query value as a credential too", () => {
    const token = messageOf(
      apiNode('    url: https://gitlab.example.com/api/v4/projects?private_token=glpat-0123456789abcdef'),
      'literal-credential',
    );
    assert.match(token, /write "private_token=\{\{ secrets\.CALL_TOKEN \}\}"/);
  });

  it("names OpenWeatherMap's appid query value as a credential too", () => {
    const key = messageOf(
      apiNode('    url: https://api.openweathermap.org/data/2.5/weather?q=London&appid=abc123xyz'),
      'literal-credential',
    );
    assert.match(key, /write "appid=\{\{ secrets\.CALL_API_KEY \}\}"/);
  });

  it('counts a token, key or password in the URL, from a secret too, as credentials sent over plain http', () => {
    for (const url of [
      'http://api.example.com/v1/items?token={{ secrets.T }}',
      'http://api.example.com/v1/items?access_token={{ secrets.T }}',
      'http://alice:{{ secrets.P }}@api.example.com/v1/items',
      'http://api.example.com?key={{ secrets.K }}',
    ])
      assert.match(
        messageOf(apiNode(`    url: ${url}`), 'insecure-url'),
        /^Node "call" sends credentials over plain http to api\.example\.com/,
        url,
      );
    const codes = validateAgentText(apiNode('    url: http://api.example.com/v1/items?page=2')).problems.map((p) => p.code);
    assert.ok(!codes.includes('insecure-url'), 'no credential, no warning');
  });

  it('flags JSON text in a block scalar body without Content-Type, and only JSON text', () => {
    const post = (body: string, settings = '') =>
      `version: 1\nname: m\nnodes:\n  call:\n    type: api\n    method: POST\n    url: https://api.example.com/v1/items\n${settings}    body: |\n${body}outputs:\n  o: { from: "{{ nodes.call.body }}" }\n`;
    const message = messageOf(post('      [\n        {"id": 1}\n      ]\n'), 'json-body-without-content-type');
    assert.equal(
      message,
      'Node "call" sends JSON text as its body but sets no Content-Type, so it goes as text/plain and the API may not read it as JSON. Add "Content-Type: application/json" to its settings.',
    );
    const codesOf = (text: string) => validateAgentText(text).problems.map((p) => p.code);
    assert.deepEqual(codesOf(post('      {"id": 1}\n', '    settings: ["content-type: application/json"]\n')), []);
    assert.deepEqual(codesOf(post('      [draft] notes, not JSON\n')), []);
    assert.deepEqual(codesOf(post('      "just a JSON string"\n')), []);
  });

  it('does not call an input unused when the expression naming it cannot be read', () => {
    const text =
      'version: 1\nname: m\ninputs:\n  who: { type: string }\nnodes:\n  t: { type: template, text: "Hello {{ inputs.who " }\noutputs:\n  o: { from: "{{ nodes.t.body }}" }\n';
    assert.deepEqual(
      validateAgentText(text).problems.map((p) => p.code),
      ['expression-syntax'],
    );
  });
});
