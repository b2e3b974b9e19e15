// Snapshots written into a test file's text (`agent-workflows test --update`): the outputs spliced
// in where they belong (replacing old ones, into an expect block, or with a new expect), every other
// byte of the file kept: comments, their spacing, line endings; flow-style cases rewritten whole.
import assert from 'node:assert/strict';
import { parseDocument } from 'yaml';
import { snapshotOutputs, writeSnapshots } from '../../src/core/testing/snapshot';
import type { CaseResult } from '../../src/core/testing/caseResult';
import type { TestCase } from '../../src/core/testing/testModel';

const OUTPUTS = { report: 'Lisbon: Sunny, 24 degrees (metric).', temperature: 24 };

function outputsOf(text: string, name: string): unknown {
  return (parseDocument(text).toJS() as { cases: Record<string, { expect?: { outputs?: unknown } }> }).cases[name]?.expect?.outputs;
}

describe('snapshots written into a test file', () => {
  it('adds outputs to an expect block, after its last line and its comment, nothing else touched', () => {
    const text = [
      '# Top comment',
      'cases:',
      '  sunny city:   # the usual',
      '    snapshot: true',
      '    inputs: { city: Lisbon }        # a city',
      '    # expectations below',
      '    expect:',
      '      within_ms: 2000   # fast',
      '  other:',
      '    inputs: { city: Oslo }',
      '',
    ].join('\n');
    const written = writeSnapshots(text, new Map([['sunny city', OUTPUTS]]));
    assert.equal(
      written,
      text.replace(
        '      within_ms: 2000   # fast\n',
        '      within_ms: 2000   # fast\n      outputs:\n        report: "Lisbon: Sunny, 24 degrees (metric)."\n        temperature: 24\n',
      ),
    );
    assert.deepEqual(outputsOf(written, 'sunny city'), OUTPUTS);
  });

  it('replaces old outputs, block or flow, and adds an expect where there is none', () => {
    const text = [
      'cases:',
      '  a:',
      '    snapshot: true',
      '    expect:',
      '      outputs:',
      '        report: old',
      '        gone: 1',
      '      within_ms: 10',
      '  b:',
      '    snapshot: true',
      '    expect:',
      '      outputs: { report: old }',
      '  c:',
      '    snapshot: true',
      '    inputs:',
      '      city: Oslo',
      '# last comment',
      '',
    ].join('\n');
    const written = writeSnapshots(
      text,
      new Map<string, Record<string, unknown>>([
        ['a', { report: 'new a' }],
        ['b', { report: 'new b', list: [1, 2] }],
        ['c', { report: 'multi\nline' }],
      ]),
    );
    assert.deepEqual(outputsOf(written, 'a'), { report: 'new a' });
    assert.deepEqual(outputsOf(written, 'b'), { report: 'new b', list: [1, 2] });
    assert.deepEqual(outputsOf(written, 'c'), { report: 'multi\nline' });
    assert.match(written, /\n {6}within_ms: 10\n/, 'the key after the replaced outputs stays');
    assert.match(written, /\n {6}city: Oslo\n {4}expect:\n {6}outputs:\n/, "a new expect at the case keys' indentation");
    assert.ok(written.endsWith('# last comment\n'), written);
  });

  it('keeps CRLF line endings', () => {
    const text = 'cases:\r\n  a:\r\n    snapshot: true\r\n    expect:\r\n      within_ms: 10\r\n';
    const written = writeSnapshots(text, new Map([['a', { report: 'x' }]]));
    assert.equal(written, `${text}      outputs:\r\n        report: x\r\n`);
  });

  it('rewrites a file with a case in flow style through the yaml library, outputs right', () => {
    const text = 'cases:\n  a: { snapshot: true, expect: { within_ms: 10 } }   # flow\n';
    const written = writeSnapshots(text, new Map([['a', { report: 'x' }]]));
    assert.deepEqual(outputsOf(written, 'a'), { report: 'x' });
    assert.match(written, /# flow/);
  });

  it("keeps the old outputs' anchor when a flow-style case makes it re-print the whole file", () => {
    const text = 'cases:\n  a: { snapshot: true, expect: { outputs: &last { report: old } } }\n';
    const written = writeSnapshots(text, new Map([['a', { report: 'x' }]]));
    assert.deepEqual(outputsOf(written, 'a'), { report: 'x' });
    assert.match(written, /outputs: &last \{ report: x \}/);
  });

  it('keeps CRLF line endings when a flow-style case makes it re-print the whole file', () => {
    const text = 'cases:\r\n  a: { snapshot: true, expect: { within_ms: 10 } }\r\n  b:\r\n    inputs: { q: hi }\r\n';
    const written = writeSnapshots(text, new Map([['a', { report: 'x' }]]));
    assert.deepEqual(outputsOf(written, 'a'), { report: 'x' });
    assert.ok(!/(?<!\r)\n/.test(written), `every line ends in CRLF: ${JSON.stringify(written)}`);
  });

  // `test --update` on a large file: each case's node found by name once, the text built in one pass
  // (it was a scan of the cases and a copy of the whole text per snapshot: 25-41 s for 20,000 cases).
  // A correctness test; bench/agentTests.ts times 5,000 and 20,000 (the size that was slow) and
  // checks the time per case stays the same: a time limit here would fail on a loaded machine.
  it('writes 2,000 snapshots, each into its own case, every other line kept', () => {
    const count = 2_000;
    const shapes = [
      (i: number) => `  case ${i}:\n    snapshot: true\n    expect:\n      outputs:\n        report: old\n      within_ms: ${i}\n`,
      (i: number) => `  case ${i}:\n    snapshot: true\n    expect:\n      within_ms: ${i}\n`,
      (i: number) => `  case ${i}:   # case ${i}\n    snapshot: true\n`,
    ];
    const text = `cases:\n${Array.from({ length: count }, (_, i) => shapes[i % 3]!(i)).join('')}`;
    const cases = Array.from({ length: count }, (_, i) => ({ name: `case ${i}`, snapshot: true }) as TestCase);
    // Results end in any order (cases run concurrently).
    const results = Array.from(
      { length: count },
      (_, i) =>
        ({
          name: `case ${count - 1 - i}`,
          execution: { status: 'finished', outputs: { report: `r${count - 1 - i}` } },
        }) as unknown as CaseResult,
    );
    const snapshots = snapshotOutputs(cases, results);
    assert.equal(snapshots.size, count);
    const written = writeSnapshots(text, snapshots);
    const read = parseDocument(written, { uniqueKeys: false }).toJS() as {
      cases: Record<string, { expect: { outputs: unknown; within_ms?: number } }>;
    };
    for (let i = 0; i < count; i++) {
      const expect = read.cases[`case ${i}`]!.expect;
      assert.deepEqual(expect.outputs, { report: `r${i}` }, `case ${i}`);
      if (i % 3 !== 2) assert.equal(expect.within_ms, i, `case ${i}`);
    }
    assert.equal(Object.keys(read.cases).length, count);
    assert.match(written, /\n {2}case 1997: {3}# case 1997\n {4}snapshot: true\n {4}expect:\n {6}outputs:\n {8}report: r1997\n/);
  });

  it('writes 2,000 snapshots into cases in flow style', () => {
    const count = 2_000;
    const text = `cases: {\n${Array.from({ length: count }, (_, i) => `  case ${i}: { snapshot: true },\n`).join('')}}\n`;
    const snapshots = new Map(Array.from({ length: count }, (_, i) => [`case ${i}`, { report: `r${i}` }] as const));
    const read = parseDocument(writeSnapshots(text, snapshots), { uniqueKeys: false }).toJS() as {
      cases: Record<string, { expect: { outputs: unknown } }>;
    };
    for (let i = 0; i < count; i++) assert.deepEqual(read.cases[`case ${i}`]!.expect.outputs, { report: `r${i}` }, `case ${i}`);
  });
});
