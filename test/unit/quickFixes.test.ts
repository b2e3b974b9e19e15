// Quick fixes: applied to the text, each removes its problem and leaves a valid file.
import assert from 'node:assert/strict';
import { nameQuickFixes, quickFixes } from '../../src/core/language/quickFixes';
import type { QuickFix, TextEdit } from '../../src/core/language/quickFixes';
import type { Problem, ProblemCode } from '../../src/core/document/problems';
import { validateAgentText } from '../../src/core/validation/validate';

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.span.start - a.span.start))
    result = result.slice(0, edit.span.start) + edit.newText + result.slice(edit.span.end);
  return result;
}

/** The fixes offered for the one problem with this code, and the text after the first fix. */
function fixFor(text: string, code: ProblemCode, which = 0): { fixes: QuickFix[]; fixed: string } {
  const problems = validateAgentText(text).problems.filter((p) => p.code === code);
  assert.equal(
    problems.length,
    1,
    `expected one ${code}, got ${validateAgentText(text)
      .problems.map((p) => p.code)
      .join(', ')}`,
  );
  const fixes = quickFixes(text, problems[0]!);
  assert.ok(fixes.length > which, `no fix for ${code}`);
  return { fixes, fixed: applyEdits(text, fixes[which]!.edits) };
}

function codes(text: string): string[] {
  return validateAgentText(text).problems.map((p) => p.code);
}

const node = (settings: string, extra = '', method = 'POST') =>
  `version: 1\nname: Fix\nnodes:\n  call:\n    type: api\n    method: ${method}\n    url: https://api.example.com/v1/items\n${settings}${extra}outputs:\n  out: { from: "{{ nodes.call.body }}" }\n`;

describe('quick fixes', () => {
  it('encodes plain Basic credentials as Base64, or moves them to a secret', () => {
    const text = node('    settings:\n      - "Authorization: Basic alice:s3cret"\n');
    const { fixes, fixed } = fixFor(text, 'basic-not-encoded');
    assert.match(fixed, /Authorization: Basic YWxpY2U6czNjcmV0"/);
    assert.deepEqual(codes(fixed), ['literal-credential']);
    const moved = applyEdits(text, fixes[1]!.edits);
    assert.match(moved, /Authorization: Basic \{\{ secrets\.CALL_BASIC \}\}"/);
    assert.deepEqual(fixes[1]!.storeSecret, { name: 'CALL_BASIC', value: 'YWxpY2U6czNjcmV0' });
    assert.deepEqual(codes(moved), []);
  });

  it('puts the missing space between "Bearer" and its expression', () => {
    const { fixes, fixed } = fixFor(node('    settings: ["Authorization: Bearer{{ secrets.CALL_TOKEN }}"]\n'), 'missing-auth-scheme');
    assert.equal(fixes[0]!.title, 'Change to "Bearer "');
    assert.match(fixed, /"Authorization: Bearer \{\{ secrets\.CALL_TOKEN \}\}"/);
    assert.deepEqual(codes(fixed), []);
  });

  it('moves a literal Bearer token into a secret and offers to store it', () => {
    const { fixes, fixed } = fixFor(node('    settings: ["Authorization: Bearer abc123"]\n'), 'literal-credential');
    assert.equal(fixes[0]!.title, 'Move the value to secret CALL_TOKEN');
    assert.deepEqual(fixes[0]!.storeSecret, { name: 'CALL_TOKEN', value: 'abc123' });
    assert.doesNotMatch(fixed, /abc123/);
    assert.deepEqual(codes(fixed), []);
  });

  it('moves a literal cookie into a secret, the whole value', () => {
    const { fixes, fixed } = fixFor(node('    settings: ["Cookie: session=9f8e7d6c; theme=dark"]\n'), 'literal-credential');
    assert.deepEqual(fixes[0]!.storeSecret, { name: 'CALL_COOKIE', value: 'session=9f8e7d6c; theme=dark' });
    assert.match(fixed, /"Cookie: \{\{ secrets\.CALL_COOKIE \}\}"/);
    assert.deepEqual(codes(fixed), []);
  });

  it('picks a free secret name when the suggested one is taken', () => {
    const text = node('    settings: ["Authorization: Bearer abc123", "X-Other: {{ secrets.CALL_TOKEN }}"]\n');
    assert.equal(fixFor(text, 'literal-credential').fixes[0]!.storeSecret?.name, 'CALL_TOKEN_2');
  });

  it('replaces a placeholder without offering to store it', () => {
    const { fixes } = fixFor(node('    settings: ["x-api-key: <API_KEY>"]\n', '', 'GET'), 'literal-credential');
    assert.equal(fixes[0]!.storeSecret, undefined);
    assert.match(fixes[0]!.title, /Replace the placeholder/);
  });

  it('moves a token found by secret scanning, and a literal api_key from a URL (decoded)', () => {
    const scanned = `version: 1\nname: S\nnodes:\n  t:\n    type: template\n    text: "key ghp_16C7e42F292c6912E7710c838347Ae178B4a"\noutputs:\n  o: { from: "{{ nodes.t.body }}" }\n`;
    const { fixes, fixed } = fixFor(scanned, 'possible-secret');
    assert.equal(fixes[0]!.storeSecret?.name, 'GITHUB_TOKEN');
    assert.match(fixed, /text: "key \{\{ secrets\.GITHUB_TOKEN \}\}"/);
    const url = node('', '', 'GET').replace('https://api.example.com/v1/items', 'https://api.example.com/v1/items?api_key=a%2Bb');
    assert.deepEqual(fixFor(url, 'literal-credential').fixes[0]!.storeSecret, { name: 'CALL_API_KEY', value: 'a+b' });
  });

  it('moves a password in the URL to a secret, as written, and leaves a valid URL', () => {
    const url = node('', '', 'GET').replace('https://api.example.com/v1/items', 'https://alice:p%40ss@api.example.com/v1/items');
    const { fixes, fixed } = fixFor(url, 'literal-credential');
    // The engine puts an expression before the path into the URL as it is: the secret keeps the encoding.
    assert.deepEqual(fixes[0]!.storeSecret, { name: 'CALL_PASSWORD', value: 'p%40ss' });
    assert.match(fixed, /url: https:\/\/alice:\{\{ secrets\.CALL_PASSWORD \}\}@api\.example\.com\/v1\/items\n/);
    assert.deepEqual(codes(fixed), []);
  });

  it('moves access_token, token and key query values to secrets (decoded) and leaves a valid URL', () => {
    const url = node('', '', 'GET').replace(
      'https://api.example.com/v1/items',
      'https://api.example.com/v1/items?access_token=a%2Bb&page=2',
    );
    const { fixes, fixed } = fixFor(url, 'literal-credential');
    assert.deepEqual(fixes[0]!.storeSecret, { name: 'CALL_TOKEN', value: 'a+b' });
    assert.match(fixed, /\?access_token=\{\{ secrets\.CALL_TOKEN \}\}&page=2\n/);
    assert.deepEqual(codes(fixed), []);
    const key = fixFor(url.replace('access_token=a%2Bb', 'key=k3y'), 'literal-credential');
    assert.deepEqual(key.fixes[0]!.storeSecret, { name: 'CALL_API_KEY', value: 'k3y' });
    assert.deepEqual(codes(key.fixed), []);
    const token = fixFor(url.replace('access_token=a%2Bb', 'token=<TOKEN>'), 'literal-credential');
    assert.equal(token.fixes[0]!.storeSecret, undefined);
    assert.match(token.fixed, /\?token=\{\{ secrets\.CALL_TOKEN \}\}&page=2\n/);
  });

  it('flags a token in a comment or a key, and removes it (nothing refers to it there)', () => {
    const token = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
    const commented = `# old token: ${token}\nversion: 1\nname: S\nnodes:\n  t:\n    type: template\n    text: "hi" # was {{ secrets.${token} }}\noutputs:\n  o: { from: "{{ nodes.t.body }}" }\n`;
    const problem = validateAgentText(commented).problems.find((p) => p.code === 'possible-secret');
    assert.ok(problem);
    assert.deepEqual(
      [problem.span.start, problem.span.end],
      [13, 13 + token.length],
      'the token in the comment, not the name in the expression',
    );
    assert.match(problem.message, /^This looks like a GitHub token, written outside any value \(in a comment or a key\)/);
    const { fixes, fixed } = fixFor(commented, 'possible-secret');
    assert.equal(fixes[0]!.title, 'Remove the token from the file');
    assert.equal(fixes[0]!.storeSecret, undefined);
    assert.ok(fixed.startsWith('# old token: \nversion: 1'), fixed);
    assert.deepEqual(codes(fixed), []);
    const keyed = `version: 1\nname: S\ndescription: x\nnodes:\n  t:\n    type: template\n    text: hi\noutputs:\n  o: { from: "{{ nodes.t.body }}" }\nAKIAIOSFODNN7EXAMPLE: 1\n`;
    assert.ok(codes(keyed).includes('possible-secret'), codes(keyed).join());
  });

  it('adds Content-Type to a block list, a flow list, or creates settings', () => {
    const block = fixFor(
      node('    settings:\n      - "Accept: application/json"\n', '    body: { a: 1 }\n'),
      'json-body-without-content-type',
    ).fixed;
    assert.match(block, /      - "Accept: application\/json"\n      - "Content-Type: application\/json"\n/);
    assert.deepEqual(codes(block), []);
    const flow = fixFor(
      node('    settings: ["Accept: application/json"]\n', '    body: { a: 1 }\n'),
      'json-body-without-content-type',
    ).fixed;
    assert.match(flow, /settings: \["Accept: application\/json", "Content-Type: application\/json"\]/);
    const text = fixFor(node('', `    body: '{"a": 1}'\n`), 'json-body-without-content-type').fixed;
    assert.match(text, /    settings:\n      - "Content-Type: application\/json"\n    body: '/);
    assert.deepEqual(codes(text), []);
    const none = fixFor(node('', '    body:\n      a: 1\n'), 'json-body-without-content-type').fixed;
    assert.match(none, /    settings:\n      - "Content-Type: application\/json"\n    body:\n/);
    assert.deepEqual(codes(none), []);
  });

  it('fixes a header string without a colon and one with a space before it', () => {
    assert.match(
      fixFor(node('    settings: ["Accept application/json"]\n', '', 'GET'), 'header-missing-colon').fixed,
      /settings: \["Accept: application\/json"\]/,
    );
    const spaced = fixFor(node("    settings:\n      - 'Accept : text/plain'\n", '', 'GET'), 'invalid-header-name').fixed;
    assert.match(spaced, /- "Accept: text\/plain"/);
    assert.deepEqual(codes(spaced), []);
  });

  it('removes a duplicate header from a block list and from a flow list', () => {
    const block = fixFor(node('    settings:\n      - "Accept: a/b"\n      - "accept: c/d"\n', '', 'GET'), 'duplicate-header').fixed;
    assert.match(block, /settings:\n      - "Accept: a\/b"\noutputs/);
    const flow = fixFor(node('    settings: ["Accept: a/b", "Accept: c/d", "X-A: 1"]\n', '', 'GET'), 'duplicate-header').fixed;
    assert.match(flow, /settings: \["Accept: a\/b", "X-A: 1"\]/);
  });

  it('moves api_key from a POST URL into an x-api-key header', () => {
    const text = node('    settings: ["Content-Type: text/plain"]\n', '    body: hi\n').replace(
      '/v1/items',
      '/v1/items?api_key={{ secrets.K }}&page=2',
    );
    const { fixed } = fixFor(text, 'api-key-in-url-non-get');
    assert.match(fixed, /url: https:\/\/api\.example\.com\/v1\/items\?page=2\n/);
    assert.match(fixed, /settings: \["Content-Type: text\/plain", "x-api-key: \{\{ secrets\.K \}\}"\]/);
    assert.deepEqual(codes(fixed), []);
    const last = fixFor(text.replace('?api_key={{ secrets.K }}&page=2', '?page=2&api_key={{ secrets.K }}'), 'api-key-in-url-non-get').fixed;
    assert.match(last, /\/v1\/items\?page=2\n/);
  });

  it('replaces misspelled references and values with the closest name', () => {
    const text = `version: 1\nname: R\ninputs:\n  ticket: { type: string }\nnodes:\n  t:\n    type: template\n    text: "{{ inputs.tiket }}"\noutputs:\n  o: { from: "{{ nodes.t.body }}" }\n`;
    const { fixes, fixed } = fixFor(text, 'unknown-input');
    assert.equal(fixes[0]!.title, 'Change to "ticket"');
    assert.deepEqual(codes(fixed), []);
    assert.deepEqual(codes(fixFor(node('', '', 'get'), 'unknown-http-method').fixed), []);
    assert.deepEqual(codes(fixFor(node('', '', 'GET').replace('type: api', 'type: apy'), 'unknown-node-type').fixed), []);
  });

  it('changes the method when a GET has a body', () => {
    const fixed = fixFor(
      node('    settings: ["Content-Type: application/json"]\n', '    body: { a: 1 }\n', 'GET'),
      'body-not-allowed',
    ).fixed;
    assert.match(fixed, /method: POST/);
    assert.deepEqual(codes(fixed), []);
  });
});

describe('quick fixes of test files and the environments file: the suggested name', () => {
  const problem = (code: ProblemCode, start: number, end: number, replacement?: string): Problem => ({
    code,
    severity: 'error',
    message: 'm',
    span: { start, end },
    range: { line: 1, column: 1, endLine: 1, endColumn: 1 },
    ...(replacement !== undefined ? { data: { replacement } } : {}),
  });

  it('writes the name in the quotes it had', () => {
    const text = "agent: 'greet.agnt.yaml'\n";
    const [fix] = nameQuickFixes(text, problem('unknown-agent', 7, 24, "greet's.agent.yaml"));
    assert.equal(applyEdits(text, fix!.edits), "agent: 'greet''s.agent.yaml'\n");
  });

  it('offers nothing where the problem is not at one name (a case that names it through its defaults)', () => {
    const text = 'cases:\n  c:\n    live: true\n';
    assert.deepEqual(nameQuickFixes(text, problem('unknown-input', 9, text.length, 'who')), []);
    assert.deepEqual(nameQuickFixes(text, problem('unknown-input', 0, 5)), [], 'no suggestion, no fix');
    assert.deepEqual(nameQuickFixes(text, problem('missing-mock', 0, 5, 'x')), [], 'not a name problem');
  });
});
