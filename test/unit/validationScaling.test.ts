// Validation of the hostile shapes of issue 9 stops at the problem cap, keeps its messages short,
// and reports nesting that is too deep instead of parsing it. How long it takes (linear in the file
// size, within a multiple of the raw YAML parse) is the bench's, measured against that parse in the
// same run (npm run bench -- validation): a time limit here would fail on a loaded machine.
import assert from 'node:assert/strict';
import { MAX_NESTING_DEPTH } from '../../src/core/document/nestingDepth';
import { MAX_FILE_BYTES } from '../../src/core/limits';
import { MAX_PROBLEMS } from '../../src/core/document/problemSink';
import { validateTestText } from '../../src/core/testing/testFile';
import { validateAgentText } from '../../src/core/validation/validate';
import { HOSTILE_SHAPES } from '../support/hostileAgents';

/** A count for each shape giving a file of 30-100 KB. */
const TEST_COUNTS: Record<string, number> = {
  'template with many {{ inputs.a }}': 2000,
  'unterminated {{': 4000,
  'unterminated {{ in a block scalar': 4000,
  'nodes referencing missing nodes': 600,
  'misspelled input references': 700,
  'one long cycle': 600,
  'deep [ nesting': 100_000,
  'deep indentation nesting': 400,
  'many inputs, all unused': 1000,
  'many token-like literals': 1000,
};

describe('validation of hostile files (issue 9)', () => {
  for (const shape of HOSTILE_SHAPES) {
    it(`stays bounded: ${shape.name}`, () => {
      const count = TEST_COUNTS[shape.name];
      assert.ok(count, `no test size for "${shape.name}"`);
      const large = shape.generate(count * 2);
      const problems = validateAgentText(large).problems;
      assert.ok(problems.length <= MAX_PROBLEMS + 1, `${problems.length} problems`);
      for (const problem of problems)
        assert.ok(problem.message.length < 1000, `a message of ${problem.message.length} characters: ${problem.message.slice(0, 200)}…`);
      const last = problems[problems.length - 1];
      if (problems.length > MAX_PROBLEMS) {
        assert.equal(last?.code, 'too-many-problems');
        assert.match(last?.message ?? '', /More problems are not shown/);
      }
    });
  }

  it('reports the problem cap for every shape that has more problems than it', () => {
    for (const name of [
      'template with many {{ inputs.a }}',
      'unterminated {{',
      'nodes referencing missing nodes',
      'misspelled input references',
      'one long cycle',
    ]) {
      const shape = HOSTILE_SHAPES.find((each) => each.name === name)!;
      const problems = validateAgentText(shape.generate(TEST_COUNTS[name]!)).problems;
      assert.equal(problems.length, MAX_PROBLEMS + 1, name);
      assert.equal(problems[MAX_PROBLEMS]!.code, 'too-many-problems', name);
    }
  });

  it('suggests names and lists a few of them when there are thousands', () => {
    const shape = HOSTILE_SHAPES.find((each) => each.name === 'misspelled input references')!;
    const problems = validateAgentText(shape.generate(700)).problems;
    assert.match(problems[0]!.message, /^There is no input "inptu_0"\. Did you mean "input_0"\?/);
    const missing = HOSTILE_SHAPES.find((each) => each.name === 'nodes referencing missing nodes')!;
    const listed = validateAgentText(missing.generate(600)).problems[0]!.message;
    assert.match(listed, /The nodes are 'node_0', 'node_1', .*'node_9' and 590 more\.$/);
  });

  it('quotes a long broken expression in a short message', () => {
    const text = `version: 1\nname: long\nnodes:\n  t: { type: template, text: "{{ inputs.a ${'b '.repeat(50_000)}}}" }\noutputs:\n  o: { from: "{{ nodes.t.body }}" }\n`;
    const [problem] = validateAgentText(text).problems.filter((p) => p.code === 'expression-syntax');
    assert.ok(problem);
    assert.ok(problem.message.length < 300, problem.message.slice(0, 400));
    assert.match(
      problem.message,
      /^Unexpected "b b b .*…" after the reference in "inputs\.a b b .*…"; an expression holds one reference\.$/,
    );
  });

  it('shortens the path of a long circle and names the node it starts at', () => {
    const shape = HOSTILE_SHAPES.find((each) => each.name === 'one long cycle')!;
    const problems = validateAgentText(shape.generate(600)).problems.filter((p) => p.code === 'cycle');
    assert.equal(
      problems[0]!.message,
      'Nodes depend on each other in a circle: n0 → n1 → n2 → n3 → … (594 more) → n598 → n599 → n0. A node runs after every node it references, so remove one of these references.',
    );
    assert.match(problems[5]!.message, /circle: n5 → n6 → n7 → n8 → … \(594 more\) → n3 → n4 → n5\./);
  });
});

describe('hostile test files (issue 21)', () => {
  it('names a long anchor of an alias case by its start, in a short message', () => {
    const name = 'n'.repeat(300_000);
    const text = `cases:\n  first: &${name}\n    inputs: { q: a }\n  second: *${name}\n`;
    const problems = validateTestText(text, 'a.agent.test.yaml').problems;
    assert.deepEqual(
      problems.map((problem) => [problem.code, problem.range.line]),
      [['test-file-alias', 4]],
    );
    assert.ok(problems[0]!.message.length < 400, problems[0]!.message.slice(0, 500));
  });

  it('stops at the alias limit for thousands of alias cases, before checking each', () => {
    const text = `cases:\n  first: &a\n    inputs: { q: a }\n${Array.from({ length: 5000 }, (_, i) => `  c${i}: *a\n`).join('')}`;
    const problems = validateTestText(text, 'a.agent.test.yaml').problems;
    assert.deepEqual(
      problems.map((problem) => problem.code),
      ['alias-limit'],
    );
  });
});

describe('nesting depth', () => {
  const tooDeep = (text: string) => validateAgentText(text).problems.filter((p) => p.message.includes('nested too deeply'));

  it(`reports brackets nested more than ${MAX_NESTING_DEPTH} levels where the limit is passed`, () => {
    const text = `version: 1\nname: deep\nnodes:\n  a:\n    type: api\n    method: POST\n    url: https://example.com\n    body: ${'['.repeat(150)}${']'.repeat(150)}\n`;
    const problems = validateAgentText(text).problems;
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.code, 'yaml-syntax');
    assert.equal(
      problems[0]!.message,
      `The YAML is nested too deeply here: an agent file nests lists and mappings at most ${MAX_NESTING_DEPTH} levels deep. Close the brackets that are left open, or flatten the structure.`,
    );
    assert.equal(problems[0]!.range.line, 8);
  });

  it('reports deep indentation and "- " entries, and a file of "[" as large as files may be at once', () => {
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) lines.push(`${' '.repeat(i)}k${i}:`);
    assert.equal(tooDeep(`${lines.join('\n')} x\n`).length, 1);
    assert.equal(tooDeep(`a:\n  - ${'- '.repeat(200)}x\n`).length, 1);
    assert.equal(tooDeep('['.repeat(MAX_FILE_BYTES)).length, 1);
  });

  it('does not count brackets in strings, comments, block scalars or plain text', () => {
    const many = '['.repeat(300);
    const text = [
      'version: 1',
      'name: brackets in text',
      `description: "${many}"`,
      `# ${many}`,
      'nodes:',
      '  t:',
      '    type: template',
      '    text: |',
      `      ${many}`,
      `      ${'{ '.repeat(300)}`,
      '  u:',
      '    type: template',
      `    text: 'it''s ${many}'`,
      '  v:',
      '    type: template',
      `    text: plain ${many} text`,
      'outputs:',
      '  o: { from: "{{ nodes.t.body }} {{ nodes.u.body }} {{ nodes.v.body }}" }',
      '',
    ].join('\n');
    assert.deepEqual(
      validateAgentText(text).problems.map((p) => p.code),
      [],
    );
  });

  it('allows real nesting up to the limit, in brackets, indentation and "- " entries', () => {
    const brackets = (depth: number) => `a:\n  b:\n    c: ${'['.repeat(depth - 3)}1${']'.repeat(depth - 3)}\n`;
    const indented = (depth: number) => `${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} x\n`;
    const entries = (depth: number) => `a:\n  - ${'- '.repeat(depth - 2)}x\n`;
    for (const shape of [brackets, indented, entries]) {
      assert.equal(tooDeep(shape(MAX_NESTING_DEPTH)).length, 0, shape(MAX_NESTING_DEPTH).slice(0, 300));
      assert.equal(tooDeep(shape(MAX_NESTING_DEPTH + 2)).length, 1, shape(MAX_NESTING_DEPTH + 2).slice(0, 300));
    }
  });

  it('says where the limit is first passed, in a later document too', () => {
    const text = `a: 1\n---\nb:\n  c: ${'['.repeat(MAX_NESTING_DEPTH + 5)}\n`;
    const problems = tooDeep(text);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.range.line, 4);
  });
});
