// The shortcuts that make a cold `validate` fast must find exactly what the full checks find.
import assert from 'node:assert/strict';
import { validateAgentText } from '../../src/core/validation/validate';

const codes = (text: string): string[] => validateAgentText(text).problems.map((p) => p.code);

const agent = (nodeLines: string[]): string =>
  ['version: 1', 'name: fast paths', 'nodes:', ...nodeLines, 'outputs:', '  o: { from: "{{ nodes.a.body }}" }', ''].join('\n');

describe('validation fast paths', () => {
  it('finds a token whose characters are only joined by a double-quoted escape', () => {
    // In the source the longest run of token characters is 31: only the backslash gives it away.
    const text = agent(['  a:', '    type: template', '    text: "ghp_abcdefghij\\u006Blmnopqrstuvwxyz0123456789A"']);
    assert.deepEqual(codes(text), ['possible-secret']);
  });

  it('finds a private key header folded over two lines of a plain scalar', () => {
    const text = agent(['  a:', '    type: template', '    text: -----BEGIN RSA', '      PRIVATE KEY-----']);
    assert.deepEqual(codes(text), ['possible-secret']);
  });

  it('finds a long key of no known format after any character that ends a run of token characters', () => {
    const hex = '0123456789abcdef0123456789abcdef01234567';
    for (const before of [' ', '=', ':', '.', '%', '\t']) {
      const text = agent(['  a:', '    type: template', `    text: "auth${before}${hex}"`]);
      assert.deepEqual(codes(text), ['possible-secret'], JSON.stringify(before));
    }
    assert.deepEqual(codes(agent(['  a:', '    type: template', `    text: ${hex}`])), ['possible-secret']);
  });

  it('finds nothing, and walks nothing, in a file with no token-like text', () => {
    const text = agent(['  a:', '    type: template', '    text: "hello {{ secrets.TOKEN_WITH_A_LONG_NAME_OF_MANY_LETTERS }}"']);
    assert.deepEqual(codes(text), []);
  });

  it('reports a literal credential in every node that repeats it, each with its own secret name', () => {
    const node = (id: string) => [
      `  ${id}:`,
      '    type: api',
      '    method: GET',
      '    url: https://api.example.com/x',
      '    settings: ["Accept: application/json", "x-api-key: abc123literal"]',
    ];
    const problems = validateAgentText(
      [
        'version: 1',
        'name: repeats',
        'nodes:',
        ...node('first'),
        ...node('second'),
        'outputs:',
        '  o: { from: "{{ nodes.first.body }} {{ nodes.second.body }}" }',
        '',
      ].join('\n'),
    ).problems;
    const literals = problems.filter((p) => p.code === 'literal-credential');
    assert.equal(literals.length, 2, problems.map((p) => p.code).join(', '));
    assert.match(literals[0]!.message, /FIRST_API_KEY/);
    assert.match(literals[1]!.message, /SECOND_API_KEY/);
  });

  it('compares keys as a set does in small and large mappings: NaN repeats, 0 and -0 are one key', () => {
    for (const filler of [0, 20]) {
      const extra = Array.from({ length: filler }, (_, i) => `  k${i}: ${i}`);
      const text = ['version: 1', 'name: keys', 'table:', ...extra, '  .nan: a', '  .NaN: b', '  0: c', '  -0: d', '  "0": e', ''].join(
        '\n',
      );
      const duplicates = validateAgentText(text).problems.filter((p) => p.code === 'duplicate-key');
      assert.deepEqual(
        duplicates.map((p) => p.range.line),
        [5 + filler, 7 + filler],
        `with ${filler} other keys`,
      );
    }
  });

  it('tells each member of a long circle its own path without copying the circle for each', () => {
    const count = 5000;
    const lines: string[] = [];
    for (let i = 0; i < count; i++) lines.push(`  n${i}:`, '    type: template', `    text: "{{ nodes.n${(i + 1) % count}.body }}"`);
    const problems = validateAgentText(agent(lines).replace('nodes.a.body', 'nodes.n0.body')).problems.filter((p) => p.code === 'cycle');
    assert.ok(problems.length > 1);
    assert.match(
      problems[0]!.message,
      /^Nodes depend on each other in a circle: n0 → n1 → n2 → n3 → … \(4994 more\) → n4998 → n4999 → n0\./,
    );
    assert.match(problems[1]!.message, /circle: n1 → n2 → n3 → n4 → … \(4994 more\) → n4999 → n0 → n1\./);
  });
});
