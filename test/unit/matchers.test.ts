// The expectation vocabulary of agent tests: each operator, plain values with operators inside,
// the place a mismatch points at, and the problems of an expectation itself.
import assert from 'node:assert/strict';
import { parseDocument } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { compileMatcher, deepEqual, matchValue, plainValueOf } from '../../src/core/testing/matchers';
import type { Matcher } from '../../src/core/testing/matchers';
import { PatternTime, testPattern } from '../../src/core/testing/regexTest';

/** Compiles the expectation written in YAML; fails the test on a problem of the expectation. */
function expectation(yaml: string): { matcher: Matcher; text: string } {
  const doc = parseDocument(yaml);
  const problems: string[] = [];
  const matcher = compileMatcher(doc.contents as YamlNode, (_span, message) => problems.push(message));
  assert.deepEqual(problems, [], 'the expectation has no problem');
  return { matcher, text: yaml };
}

function holds(yaml: string, actual: unknown): boolean {
  return matchValue(expectation(yaml).matcher, actual).length === 0;
}

function problemsOf(yaml: string): string[] {
  const problems: string[] = [];
  compileMatcher(parseDocument(yaml).contents as YamlNode, (_span, message) => problems.push(message));
  return problems;
}

describe('matchers', () => {
  it('compares plain values by JSON equality, keys in any order', () => {
    assert.ok(holds('Lisbon: Sunny', { Lisbon: 'Sunny' }));
    assert.ok(holds('{ b: 2, a: [1, "x"] }', { a: [1, 'x'], b: 2 }));
    assert.ok(!holds('1', '1'), 'a number is not text');
    assert.ok(!holds('{ a: 1 }', { a: 1, b: 2 }), 'no extra keys');
    assert.ok(!holds('[1, 2]', [1, 2, 3]));
    assert.ok(!holds('null', undefined), 'absent is not null');
  });

  it('takes operators anywhere inside a plain value', () => {
    assert.ok(holds('{ summary: { $contains: Sunny }, temp: { $gte: 20, $lt: 30 } }', { summary: 'Sunny, 24 °C', temp: 24 }));
    assert.ok(!holds('{ summary: { $contains: Sunny }, temp: { $gte: 20, $lt: 30 } }', { summary: 'Sunny', temp: 30 }));
  });

  it('$subset: the keys given, at any depth; lists item by item', () => {
    const yaml = '$subset: { user: { id: 7 }, tags: [{ name: a }] }';
    assert.ok(holds(yaml, { user: { id: 7, name: 'x' }, tags: [{ name: 'a', extra: true }], more: 1 }));
    assert.ok(!holds(yaml, { user: { id: 8 }, tags: [{ name: 'a' }] }));
    assert.ok(!holds(yaml, { user: { id: 7 }, tags: [{ name: 'a' }, { name: 'b' }] }), 'same list length');
  });

  it('$contains: text in text, or a matching item in a list', () => {
    assert.ok(holds('$contains: ok', 'it is ok'));
    assert.ok(!holds('$contains: ok', 'no'));
    assert.ok(holds('$contains: { id: 2 }', [{ id: 1 }, { id: 2 }]));
    assert.ok(holds('$contains: { $gt: 5 }', [1, 9]));
    assert.ok(!holds('$contains: ok', 42));
  });

  it('$match: a pattern that backtracks without end is stopped after its time limit, and fails saying why', () => {
    const started = performance.now();
    const [mismatch] = matchValue(expectation('$match: "^(a+)+$"').matcher, `${'a'.repeat(40)}!`);
    assert.ok(performance.now() - started < 5000, 'stopped, not run to its end (minutes)');
    assert.match(
      mismatch!.expected,
      /^text matching \/\^\(a\+\)\+\$\/, but testing it was stopped after 1 s: the pattern backtracks without end on this text/,
    );
    assert.ok(holds('$match: "^(a+)+$"', 'aaaa'), 'the same pattern still works where it ends');
  });

  it('$match: a stopped test fails under $not and $contains too, and the tests of one expectation share the limit', () => {
    const stuck = `${'a'.repeat(40)}!`;
    for (const [yaml, actual] of [
      ['$not: { $match: "^(a+)+$" }', stuck],
      ['$contains: { $match: "^(a+)+$" }', ['x', stuck, stuck, stuck]],
      ['{ r: { $not: { $match: "^(a+)+$" } } }', { r: stuck }],
    ] as const) {
      const started = performance.now();
      const mismatches = matchValue(expectation(yaml).matcher, actual);
      assert.ok(performance.now() - started < 2500, `${yaml}: one limit for the expectation, not one per item`);
      assert.equal(mismatches.length, 1, yaml);
      assert.match(mismatches[0]!.expected, /but testing it was stopped after 1 s/, yaml);
    }
    // A pattern without repeats is tested without the sandbox (and its cost): with no time left at
    // all it is still tested, where one with repeats is stopped at once.
    assert.equal(testPattern(/^z/, 'zed', new PatternTime(0)), true);
    assert.equal(testPattern(/^z+/, 'zed', new PatternTime(0)), 'stopped');
    const many = Array.from({ length: 150_000 }, (_, i) => `item ${i}`);
    assert.ok(holds('$contains: { $match: "^z" }', [...many, 'zed']));
  });

  it('$match: g and y flags keep no position between tests', () => {
    const { matcher } = expectation('$match: "/a/g"');
    for (let i = 0; i < 3; i++) assert.equal(matchValue(matcher, 'xa').length, 0, `test ${i + 1}`);
    assert.ok(holds('$contains: { $match: "/a/g", $length: 1 }', ['xa', 'a']));
    assert.ok(holds('$match: "/a/y"', 'ab') && holds('$match: "/a/y"', 'ab'), 'sticky: from the start, each time');
  });

  it('$match: a regular expression, with flags in /…/ form', () => {
    assert.ok(holds('$match: "^Sun"', 'Sunny'));
    assert.ok(holds('$match: "/sunny/i"', 'SUNNY'));
    assert.ok(!holds('$match: "^Sun"', 'Cloudy'));
    assert.ok(!holds('$match: "1"', 1), 'only text matches');
  });

  it('$type, $length, ranges and $absent', () => {
    assert.ok(holds('$type: integer', 3));
    assert.ok(holds('$type: number', 3), 'an integer is a number');
    assert.ok(!holds('$type: integer', 3.5));
    assert.ok(holds('$type: array', []));
    assert.ok(holds('$type: "null"', null));
    assert.ok(holds('$length: 3', [1, 2, 3]));
    assert.ok(holds('$length: { $gte: 1 }', 'x'));
    assert.ok(!holds('$length: 3', { length: 3 }));
    assert.ok(holds('$absent: true', undefined));
    assert.ok(!holds('$absent: true', null));
    assert.ok(holds('$absent: false', 0));
    assert.ok(holds('{ a: { $absent: true } }', {}), 'a key that must be missing');
  });

  it('$eq reads its value literally; $not inverts', () => {
    assert.ok(holds('$eq: { $contains: x }', { $contains: 'x' }));
    assert.ok(!holds('$eq: { $contains: x }', 'xyz'));
    assert.ok(holds('$not: { $contains: error }', 'fine'));
    assert.ok(!holds('$not: { $contains: error }', 'an error'));
  });

  it('points each mismatch at its path and at the expectation in the file', () => {
    const { matcher, text } = expectation('report: "Lisbon: Sunny"\ndetails:\n  temp: { $gte: 20 }\n');
    const mismatches = matchValue(matcher, { report: 'Lisbon: Rain', details: { temp: 12 } });
    assert.deepEqual(
      mismatches.map((m) => m.path),
      ['report', 'details.temp'],
    );
    assert.equal(text.slice(mismatches[0]!.span.start, mismatches[0]!.span.end), '"Lisbon: Sunny"');
    assert.equal(text.slice(mismatches[1]!.span.start, mismatches[1]!.span.end), '20');
    assert.equal(mismatches[0]!.expectedValue, 'Lisbon: Sunny', 'a plain value can be diffed');
    assert.match(mismatches[1]!.expected, />= 20/);
    assert.equal(mismatches[1]!.actual, 12);
  });

  it('names keys that need quoting in paths', () => {
    const { matcher } = expectation('"x-id": 1\nitems: [{ "a b": 1 }]');
    assert.deepEqual(
      matchValue(matcher, { 'x-id': 2, items: [{ 'a b': 2 }] }).map((m) => m.path),
      ['x-id', 'items[0]["a b"]'],
    );
  });

  it('stops at the limit of mismatches', () => {
    const { matcher } = expectation(`[${Array.from({ length: 200 }, () => '1').join(', ')}]`);
    assert.equal(
      matchValue(
        matcher,
        Array.from({ length: 200 }, () => 2),
        '',
        50,
      ).length,
      50,
    );
  });

  it('names the first ten extra keys of a mapping and counts the rest', () => {
    const { matcher } = expectation('a: 1');
    const actual = Object.fromEntries([['a', 1], ...Array.from({ length: 20_000 }, (_, index) => [`k${index}`, index])]);
    const [mismatch, ...others] = matchValue(matcher, actual);
    assert.equal(others.length, 0);
    assert.equal(
      mismatch!.expected,
      'no other keys (found "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9" and 19990 more; use $subset to allow them)',
    );
    assert.match(matchValue(matcher, { a: 1, b: 2 })[0]!.expected, /^no other keys \(found "b"; use \$subset/);
  });

  it('reports problems of the expectation itself, with a suggestion', () => {
    assert.match(problemsOf('$contain: x')[0]!, /"\$contain" is not an operator; did you mean "\$contains"/);
    assert.match(problemsOf('$match: "("')[0]!, /\$match: .*regular expression/);
    assert.match(problemsOf('$type: strng')[0]!, /did you mean "string"/);
    assert.match(problemsOf('$gte: "5"')[0]!, /\$gte takes a number/);
    assert.match(problemsOf('$length: -1')[0]!, /whole number/);
    assert.match(problemsOf('{ $contains: x, name: y }')[0]!, /mixes operators/);
    assert.match(problemsOf('$absent: yes please')[0]!, /\$absent takes true/);
  });

  it('gives the plain value of an expectation without operators, for diffs', () => {
    assert.deepEqual(plainValueOf(expectation('{ a: [1, { b: x }] }').matcher), { a: [1, { b: 'x' }] });
    assert.equal(plainValueOf(expectation('{ a: { $gt: 1 } }').matcher), undefined);
    assert.ok(deepEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] }));
  });
});
