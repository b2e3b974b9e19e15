// Comparing two runs in the core: results files matched by row number or a key column, streamed in
// step or indexed when out of order (the same answer either way), every kind of change per row, the
// summary, bounded diffs, bad lines named and the rest compared, runs of different agents refused.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { RowResult } from '../../src/core/batch/batchModel';
import { CompareError, fileKindOf, readReport } from '../../src/core/compare/compareFiles';
import { markdownReport } from '../../src/core/compare/compareMarkdown';
import { boundedDiff, durationChanged, MAX_DIFF_LINES, MAX_LINE_CHARS } from '../../src/core/compare/compareRows';
import { compareRuns } from '../../src/core/compare/compareRuns';
import type { Comparison } from '../../src/core/compare/compareRuns';
import { normalizedJson } from '../../src/core/compare/normalizedJson';
import { leadingFields } from '../../src/core/json';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const lines = (rows: readonly (RowResult | string)[]): string =>
  rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n') + '\n';

const finished = (row: number, outputs: Record<string, unknown>, extra: Partial<RowResult> = {}): RowResult => ({
  row,
  status: 'finished',
  ...extra,
  outputs,
  durationMs: extra.durationMs ?? 100 * row,
});

/** The comparison without its paths and mode, for deepEqual between two ways of reading. */
const essence = (comparison: Comparison): unknown => {
  const { mode: _mode, a, b, ...rest } = comparison;
  const { path: _pa, ...sideA } = a;
  const { path: _pb, ...sideB } = b;
  return { ...rest, a: sideA, b: sideB, badLines: comparison.badLines.items.map((bad) => `${bad.side}:${bad.line}`) };
};

describe('compare two runs (core)', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => dir.remove());

  it('tells a file that is not there (a batch that ended no row) from one that cannot be read', async () => {
    const missing = join(dir.path, 'none.jsonl');
    const problemOf = (read: Promise<unknown>): Promise<Record<string, unknown>> =>
      read.then(
        () => assert.fail('refused'),
        (error: unknown) => {
          assert.ok(error instanceof CompareError);
          return error.problem as unknown as Record<string, unknown>;
        },
      );
    for (const problem of [await problemOf(fileKindOf(missing, 'a')), await problemOf(readReport(missing, 'b'))]) {
      assert.equal(problem.kind, 'unreadable');
      assert.equal(problem.missing, true, 'the file is not there');
      assert.match(String(problem.reason), /no such file/);
    }
    // A folder is there, and is no file: not "missing".
    dir.write('folder/x', '');
    const folder = await problemOf(fileKindOf(join(dir.path, 'folder'), 'a'));
    assert.equal(folder.kind, 'unreadable');
    assert.equal(folder.missing, undefined);
  });

  function twoRuns(): { a: string; b: string } {
    const a = dir.write(
      'a.jsonl',
      lines([
        finished(1, { answer: 'sunny', score: 1 }, { passed: true }),
        finished(2, { answer: 'rain' }, { passed: false }),
        { row: 3, status: 'failed', error: 'boom', durationMs: 50 },
        finished(4, { answer: { b: 1, a: 2 } }),
        finished(5, { answer: 'same' }, { durationMs: 400 }),
        finished(6, { answer: 'gone' }),
        finished(7, { answer: 'slow' }, { durationMs: 500 }),
      ]),
    );
    const b = dir.write(
      'b.jsonl',
      lines([
        finished(2, { answer: 'rain' }, { passed: true }),
        finished(1, { answer: 'cloudy', score: 1 }, { passed: false }),
        finished(3, { answer: 'fixed' }),
        finished(4, { answer: { a: 2, b: 1 } }),
        finished(5, { answer: 'same' }, { durationMs: 700 }),
        finished(7, { answer: 'slow' }, { durationMs: 5000 }),
        finished(8, { answer: 'new' }),
      ]),
    );
    return { a, b };
  }

  it('matches rows by number and says what changed: regressions, fixes, outputs, durations, rows on one side', async () => {
    const { a, b } = twoRuns();
    const result = await compareRuns(a, b);
    assert.equal(result.kind, 'results');
    assert.equal(result.mode, 'streamed');
    assert.equal(result.matched, 6);
    assert.deepEqual(
      result.regressions.items.map((change) => [change.key, change.passed, change.outputs?.map((output) => output.name)]),
      [['1', { a: true, b: false }, ['answer']]],
    );
    assert.deepEqual(result.regressions.items[0]?.outputs?.[0]?.diff, ['- sunny', '+ cloudy']);
    assert.deepEqual(result.fixes.items.map((change) => [change.key, change.status ?? change.passed]).sort(), [
      ['2', { a: false, b: true }],
      ['3', { a: 'failed', b: 'finished' }],
    ]);
    // Key order is not a change; 400 -> 700 ms is noise; 500 ms -> 5 s is not.
    assert.deepEqual(
      result.changes.items.map((change) => [change.key, change.duration]),
      [['7', { a: 500, b: 5000 }]],
    );
    assert.equal(result.unchanged, 2);
    assert.equal(result.changedOutputs, 1);
    assert.equal(result.durationChanges, 1);
    assert.deepEqual(result.onlyInA, { count: 1, items: [{ key: '6', row: 6 }] });
    assert.deepEqual(result.onlyInB, { count: 1, items: [{ key: '8', row: 8 }] });
    assert.deepEqual([result.a.rows, result.a.finished, result.a.failures, result.a.checked, result.a.passed], [7, 6, 1, 2, 1]);
    assert.deepEqual([result.b.rows, result.b.finished, result.b.failures, result.b.checked, result.b.passed], [7, 7, 0, 2, 1]);
    assert.deepEqual([result.a.p50Ms, result.a.p95Ms], [400, 600]);
  });

  it('gives the same answer indexed as streamed when rows come in another order', async () => {
    const { a, b } = twoRuns();
    const streamed = await compareRuns(a, b);
    const indexed = await compareRuns(a, b, { maxPendingRows: 1 });
    assert.equal(indexed.mode, 'indexed');
    assert.deepEqual(essence(indexed), essence(streamed));
    // Every row of B read again by its place rather than kept: the same.
    const reread = await compareRuns(a, b, { maxPendingRows: 1, maxKeptLineBytes: 0 });
    assert.deepEqual(essence(reread), essence(streamed));
  });

  it('bounds the streaming window by the bytes of its lines too: past them, indexed, the same answer', async () => {
    // Four rows of about 1 KB, B in reverse order: B's rows all wait for their partner in A.
    const rows = [1, 2, 3, 4].map((row) => finished(row, { text: `${row}`.repeat(1000) }));
    const a = dir.write('a.jsonl', lines(rows));
    const b = dir.write('b.jsonl', lines([...rows].reverse()));
    const streamed = await compareRuns(a, b, { maxPendingBytes: 10_000 });
    assert.equal(streamed.mode, 'streamed');
    const indexed = await compareRuns(a, b, { maxPendingBytes: 2500 });
    assert.equal(indexed.mode, 'indexed', 'three lines of 1 KB waiting pass 2,500 bytes');
    assert.deepEqual(essence(indexed), essence(streamed));
    assert.equal(indexed.unchanged, 4);
  });

  it('a row restarted (two lines) is compared by its last line, streamed or indexed', async () => {
    const a = dir.write('a.jsonl', lines([finished(1, { x: 1 }), finished(2, { x: 2 })]));
    const b = dir.write('b.jsonl', lines([{ row: 1, status: 'unknown', error: 'lost' }, finished(2, { x: 2 }), finished(1, { x: 1 })]));
    for (const result of [await compareRuns(a, b), await compareRuns(a, b, { maxPendingRows: 1 })]) {
      assert.equal(result.matched, 2);
      assert.equal(result.unchanged, 2, JSON.stringify(result.regressions));
      assert.equal(result.b.rows, 2);
    }
    // Row 1 is compared before its later line comes: the files are indexed instead.
    const later = dir.write('c.jsonl', lines([finished(1, { x: 1 }), finished(2, { x: 2 }), finished(1, { x: 9 })]));
    const result = await compareRuns(a, later);
    assert.equal(result.mode, 'indexed');
    assert.deepEqual(
      result.changes.items.map((change) => change.key),
      ['1'],
    );
  });

  it('matches by a key column (other columns, else inputs): rows renumbered, keys missing or twice listed', async () => {
    const a = dir.write(
      'a.jsonl',
      lines([
        finished(1, { v: 'a' }, { columns: { id: 'x' } }),
        finished(2, { v: 'b' }, { columns: { id: 'y' } }),
        finished(3, { v: 'c' }, { inputs: { id: 'z' } }),
        finished(4, { v: 'd' }),
      ]),
    );
    const b = dir.write(
      'b.jsonl',
      lines([
        finished(1, { v: 'c2' }, { inputs: { id: 'z' } }),
        finished(2, { v: 'a' }, { columns: { id: 'x' } }),
        finished(3, { v: 'b' }, { columns: { id: 'y' } }),
        finished(4, { v: 'b' }, { columns: { id: 'y' } }),
      ]),
    );
    for (const options of [{ key: 'id' }, { key: 'id', maxPendingRows: 1 }, { key: 'id', maxPendingRows: 1, maxKeptLineBytes: 0 }]) {
      const result = await compareRuns(a, b, options);
      assert.deepEqual(result.matchedBy, { kind: 'key', column: 'id' });
      assert.equal(result.matched, 3);
      assert.deepEqual(
        result.changes.items.map((change) => [change.key, change.rowA, change.rowB]),
        [['z', 3, 1]],
      );
      assert.deepEqual(result.keyMissing.a.items, [4]);
      assert.deepEqual(result.duplicateKeys.b.items, [{ key: 'y', row: 4 }]);
    }
  });

  it('counts a row without a key, or with a key twice, once whatever its lines, streamed or indexed', async () => {
    // Resumed batches: row 2 (no id) and row 4 (id x again) ended in error, then finished.
    const run = (name: string, first: RowResult[]): string =>
      dir.write(
        name,
        lines([
          ...first,
          { row: 2, status: 'error', error: 'lost', durationMs: 10 },
          finished(3, { v: 'c' }, { columns: { id: 'z' } }),
          { row: 4, status: 'error', error: 'lost', columns: { id: 'x' }, durationMs: 10 },
          finished(2, { v: 'b' }, { passed: true }),
          finished(4, { v: 'd' }, { columns: { id: 'x' } }),
        ]),
      );
    const a = run('a.jsonl', [finished(1, { v: 'a' }, { columns: { id: 'x' } })]);
    const b = run('b.jsonl', [finished(1, { v: 'a2' }, { columns: { id: 'x' } })]);
    const results = [];
    for (const options of [{}, { maxPendingRows: 1 }, { maxPendingRows: 1, maxKeptLineBytes: 0 }])
      results.push(await compareRuns(a, b, { key: 'id', ...options }));
    for (const result of results) {
      assert.equal(result.mode, 'indexed', 'a second line of a row counted alone: only the index knows its last');
      assert.deepEqual([result.a.rows, result.a.finished, result.a.passed], [4, 4, 1]);
      assert.deepEqual([result.b.rows, result.b.finished, result.b.passed], [4, 4, 1]);
      assert.deepEqual(result.keyMissing, { a: { count: 1, items: [2] }, b: { count: 1, items: [2] } });
      assert.deepEqual(result.duplicateKeys.b, { count: 1, items: [{ key: 'x', row: 4 }] });
      assert.equal(result.matched, 2);
      assert.deepEqual(essence(result), essence(results[0]!));
    }
    // Each row's lines in one place: streamed, and the same counts.
    const once = (name: string, v: string): string =>
      dir.write(
        name,
        lines([finished(1, { v }, { columns: { id: 'x' } }), finished(2, { v: 'b' }), finished(3, { v: 'c' }, { columns: { id: 'x' } })]),
      );
    const [c, d] = [once('c.jsonl', 'a'), once('d.jsonl', 'a2')];
    const streamed = await compareRuns(c, d, { key: 'id' });
    assert.equal(streamed.mode, 'streamed');
    assert.deepEqual([streamed.b.rows, streamed.b.finished], [3, 3]);
    const indexed = await compareRuns(c, d, { key: 'id', maxPendingRows: 0, maxKeptLineBytes: 0 });
    assert.equal(indexed.mode, 'indexed');
    assert.deepEqual(essence(indexed), essence(streamed));
  });

  it('names the bad lines of a truncated or hand-edited file and compares the rest', async () => {
    const a = dir.write('a.jsonl', lines([finished(1, { x: 1 }), finished(2, { x: 2 }), finished(3, { x: 3 })]));
    const b = dir.write(
      'b.jsonl',
      lines([finished(1, { x: 1 }), '{"row":2,"status":"finishd","outputs":{}}', 'not json', finished(3, { x: 3 })]) +
        '{"row":4,"status":"fini',
    );
    const result = await compareRuns(a, b);
    const bad = result.badLines.items.map((line) => `${line.side}:${line.line}: ${line.problem}`);
    assert.equal(bad.length, 3);
    assert.equal(bad[0], 'b:2: "status" is not one a batch writes ("finishd")');
    assert.match(bad[1]!, /^b:3: not valid JSON \(.*\): cut short, or edited by hand\?$/);
    assert.match(bad[2]!, /^b:5: not valid JSON \(Unterminated string.*\): cut short, or edited by hand\?$/);
    assert.equal(result.matched, 2);
    assert.deepEqual(result.onlyInA.items, [{ key: '2', row: 2 }]);
  });

  it("an interrupt at any point is 'interrupted', never the rows read before it", async () => {
    const { a, b } = twoRuns();
    for (const options of [{}, { maxPendingRows: 1 }]) {
      // The signal fires as the nth file read starts: each read of each phase in turn, until a run ends first.
      for (let nth = 1; ; nth++) {
        const controller = new AbortController();
        let reads = 0;
        const add = controller.signal.addEventListener.bind(controller.signal);
        controller.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
          if (args[0] === 'abort' && ++reads === nth) queueMicrotask(() => controller.abort());
          add(...args);
        }) as AbortSignal['addEventListener'];
        const outcome = await compareRuns(a, b, { ...options, signal: controller.signal }).catch((error: unknown) => error);
        if (!controller.signal.aborted) {
          // Fewer reads than nth: the run ended whole, after the signal reached the reads of both files.
          assert.equal((outcome as Comparison).kind, 'results', String(outcome));
          assert.ok(nth > 4, `${nth - 1} reads`);
          break;
        }
        assert.ok(outcome instanceof CompareError, `read ${nth}: ${String(outcome)}`);
        assert.equal(outcome.problem.kind, 'interrupted', `read ${nth}: ${outcome.message}`);
      }
    }
  });

  it('cuts the value a bad line names: a 1 MB "row" or "status" makes a short problem', async () => {
    const a = dir.write('a.jsonl', lines([finished(1, { x: 1 })]));
    const huge = 'r'.repeat(1_000_000);
    const b = dir.write('b.jsonl', lines([finished(1, { x: 1 }), JSON.stringify({ row: huge }), JSON.stringify({ row: 2, status: huge })]));
    const result = await compareRuns(a, b);
    const [row, status] = result.badLines.items.map((bad) => bad.problem);
    assert.ok(row!.length < 600 && status!.length < 600, `${row!.length} and ${status!.length} characters`);
    assert.match(row!, /^"row" is not a row number \("r{511}… \(1000002 characters\)\)$/);
    assert.match(status!, /^"status" is not one a batch writes \("r{511}… \(1000002 characters\)\)$/);
  });

  it("reads the named fields of a line's start as far as it goes: cut values skipped, nesting and escapes kept apart", () => {
    const names = new Set(['row', 'status', 'inputs']);
    const read = (text: string): Record<string, unknown> => Object.fromEntries(leadingFields(text, names));
    assert.deepEqual(read('{"row":1,"status":"failed","error":"cut her'), { row: 1, status: 'failed' });
    assert.deepEqual(read(' { "n": {"row": 9, "s": "}\\\\"}, "inputs" : {"q": "a\\"b"} , "row" : 2,"status":"x'), {
      inputs: { q: 'a"b' },
      row: 2,
    });
    // A number at the text's end may be cut (12 of 123): not read; text that is not JSON stops the scan.
    assert.deepEqual(read('{"status":"failed","row":12'), { status: 'failed' });
    assert.deepEqual(read('{"status":"failed",row:1,"row":1}'), { status: 'failed' });
    assert.deepEqual(read('["row",1]'), {});
    assert.deepEqual(read('{"\\u0072ow":3}'), { row: 3 });
  });

  it('refuses runs of different agents (their state files, or outputs with no name in common) unless forced', async () => {
    const a = dir.write('a.jsonl', lines([finished(1, { summary: 's' })]));
    const b = dir.write('b.jsonl', lines([finished(1, { label: 'l' })]));
    await assert.rejects(compareRuns(a, b), (error: unknown) => {
      assert.ok(error instanceof CompareError);
      assert.deepEqual(error.problem, { kind: 'different-agents', a: 'outputs summary', b: 'outputs label', by: 'outputs' });
      return true;
    });
    const forced = await compareRuns(a, b, { force: true });
    assert.equal(forced.differentAgents?.by, 'outputs');
    assert.deepEqual(
      forced.changes.items[0]?.outputs?.map((output) => [output.name, output.only]),
      [
        ['summary', 'a'],
        ['label', 'b'],
      ],
    );
    const header = (agent: string): string =>
      JSON.stringify({ batch: 1, agent, data: '/d/rows.jsonl', mode: 'local', createdAt: 'x' }) + '\n';
    dir.write('c.jsonl.state', header('/w/tickets.agent.yaml'));
    dir.write('d.jsonl.state', header('/w/other.agent.yaml'));
    const c = dir.write('c.jsonl', lines([finished(1, { summary: 's' })]));
    const d = dir.write('d.jsonl', lines([finished(1, { summary: 's' })]));
    await assert.rejects(compareRuns(c, d), /different agents \(tickets\.agent\.yaml and other\.agent\.yaml\)/);
    dir.write('d.jsonl.state', header('/elsewhere/tickets.agent.yaml'));
    assert.equal((await compareRuns(c, d)).unchanged, 1, 'the same agent file in another folder is the same agent');
  });

  it('reads a state file only when it is a regular file, and only its first line: a FIFO or /dev/zero never hangs it', async function () {
    if (process.platform === 'win32') this.skip();
    const a = dir.write('a.jsonl', lines([finished(1, { x: 1 })]));
    const b = dir.write('b.jsonl', lines([finished(1, { x: 2 })]));
    symlinkSync('/dev/zero', `${a}.state`);
    execFileSync('mkfifo', [`${b}.state`]);
    const result = await compareRuns(a, b);
    assert.deepEqual([result.a.agent, result.b.agent, result.changes.count], [undefined, undefined, 1]);
    // A state file of many events: its header is read, not the rest.
    const c = dir.write('c.jsonl', lines([finished(1, { x: 1 })]));
    dir.write('c.jsonl.state', `${JSON.stringify({ agent: '/w/lookup.agent.yaml' })}\n${'{"e":"starting","row":1}\n'.repeat(10_000)}`);
    assert.equal((await compareRuns(c, b)).a.agent, 'lookup.agent.yaml');
  });

  it('says what it cannot compare: a file of neither kind (its line), an empty one, two kinds, a missing one', async () => {
    const results = dir.write('a.jsonl', lines([finished(1, { x: 1 })]));
    const text = dir.write('notes.txt', '\nhello\n');
    const empty = dir.write('empty.jsonl', '\n');
    const report = dir.write(
      'report.json',
      JSON.stringify(
        { passed: 1, failed: 0, files: [{ file: 't.agent.test.yaml', cases: [{ name: 'c', passed: true, durationMs: 3 }] }] },
        null,
        2,
      ),
    );
    const problem = async (a: string, b: string): Promise<unknown> => {
      try {
        await compareRuns(a, b);
      } catch (error) {
        assert.ok(error instanceof CompareError, String(error));
        return error.problem;
      }
      return undefined;
    };
    assert.deepEqual(await problem(results, text), {
      kind: 'not-comparable',
      side: 'b',
      path: text,
      line: 2,
      problem:
        "neither a batch's result (a JSON line with row and status, as batch --out writes) nor an agent-test JSON report (test --reporter json)",
    });
    assert.deepEqual(await problem(empty, results), { kind: 'empty', side: 'a', path: empty });
    // Lines that look like results but none is one: its first bad line is named.
    const broken = dir.write('broken.jsonl', '{"row":1,"status":"fin\n{"row":2,"status":"nope"}\n');
    const refused = (await problem(results, broken)) as { kind: string; line: number; problem: string };
    assert.deepEqual([refused.kind, refused.line], ['not-comparable', 1]);
    assert.match(refused.problem, /^no line is a row's result; this one is not valid JSON \(.*\): cut short, or edited by hand\?$/);
    assert.deepEqual(await problem(results, report), { kind: 'mixed-kinds', a: 'results', b: 'report' });
    assert.equal(((await problem(results, join(dir.path, 'missing.jsonl'))) as { kind: string }).kind, 'unreadable');
  });

  it('compares agent-test JSON reports case by case', async () => {
    const report = (cases: Array<{ name: string; passed: boolean; durationMs: number }>): string =>
      JSON.stringify(
        {
          passed: 0,
          failed: 0,
          broken: 0,
          durationMs: 0,
          files: [{ file: 'w.agent.test.yaml', cases: cases.map((c) => ({ ...c, failures: [] })) }],
        },
        null,
        2,
      );
    const a = dir.write(
      'a.json',
      report([
        { name: 'one', passed: true, durationMs: 5 },
        { name: 'two', passed: false, durationMs: 5 },
        { name: 'three', passed: true, durationMs: 5 },
      ]),
    );
    const b = dir.write(
      'b.json',
      report([
        { name: 'two', passed: true, durationMs: 5 },
        { name: 'one', passed: false, durationMs: 5 },
        { name: 'four', passed: true, durationMs: 5 },
      ]),
    );
    const result = await compareRuns(a, b);
    assert.equal(result.kind, 'report');
    assert.deepEqual(
      result.regressions.items.map((change) => change.key),
      ['w.agent.test.yaml › one'],
    );
    assert.deepEqual(
      result.fixes.items.map((change) => change.key),
      ['w.agent.test.yaml › two'],
    );
    assert.deepEqual(
      result.onlyInA.items.map((only) => only.key),
      ['w.agent.test.yaml › three'],
    );
    assert.deepEqual(
      result.onlyInB.items.map((only) => only.key),
      ['w.agent.test.yaml › four'],
    );
    await assert.rejects(compareRuns(a, b, { key: 'id' }), /matched by test file and case name/);
  });

  it('bounds diffs: huge values cut with their length, long lines cut, many lines counted', async () => {
    const a = dir.write('a.jsonl', lines([finished(1, { text: 'x'.repeat(2_000_000) })]));
    const b = dir.write('b.jsonl', lines([finished(1, { text: 'y'.repeat(3_000_000) })]));
    const [change] = (await compareRuns(a, b)).changes.items;
    const output = change?.outputs?.[0];
    assert.deepEqual([output?.lengthA, output?.lengthB], [2_000_000, 3_000_000]);
    assert.ok(output!.diff.every((line) => line.length <= MAX_LINE_CHARS));
    const many = boundedDiff(
      Array.from({ length: 100 }, (_, i) => `a${i}`).join('\n'),
      Array.from({ length: 100 }, (_, i) => `b${i}`).join('\n'),
    );
    assert.equal(many.lines.length, MAX_DIFF_LINES);
    assert.ok(many.notShown > 0);
    // Unchanged lines far from a change are one "…".
    const context = boundedDiff('1\n2\n3\n4\n5\n6', '1\n2\n3\n4\n5\nsix');
    assert.deepEqual(context.lines, ['  …', '  5', '- 6', '+ six']);
  });

  it('writes output names and values into the Markdown report as inert text, a lone \\r not ending a row', async () => {
    const a = dir.write('a.jsonl', lines([finished(1, { '<img src=x onerror=alert(1)>': 'one', 'cr\rname|x': 'a\rb|c' })]));
    const b = dir.write('b.jsonl', lines([finished(1, { '<img src=x onerror=alert(1)>': 'two', 'cr\rname|x': 'a\rB|c' })]));
    const report = markdownReport(await compareRuns(a, b));
    assert.doesNotMatch(report, /<img/);
    assert.match(report, /\*\*&lt;img src=x onerror=alert\(1\)>\*\*/);
    // Lines as a Markdown reader splits them (\r, \n or both): the changed row is one line of four cells.
    const rows = report.split(/\r\n|\r|\n/).filter((line) => line.startsWith('| 🟡'));
    assert.equal(rows.length, 1, report);
    assert.equal(rows[0]!.split(/(?<!\\)\|/).length, 6, rows[0]);
    assert.match(rows[0]!, /\*\*cr<br>name\\\|x\*\*/);
  });

  it('defines duration noise and normalizes JSON', () => {
    assert.equal(durationChanged(400, 700), false, 'under 2x');
    assert.equal(durationChanged(100, 900), false, 'under a second');
    assert.equal(durationChanged(500, 5000), true);
    assert.equal(durationChanged(5000, 1000), true, 'faster counts too');
    assert.equal(
      normalizedJson({ b: [{ d: 1, c: 2 }], a: null }),
      '{\n  "a": null,\n  "b": [\n    {\n      "c": 2,\n      "d": 1\n    }\n  ]\n}',
    );
  });
});

describe("an execution's text for the editor's diff", () => {
  it('one JSONC object: outputs first, then the error, inputs and trace (no durations), keys sorted', async () => {
    const { executionCompareText } = await import('../../src/core/compare/executionText');
    const text = executionCompareText({
      agentName: 'Greet',
      state: 'problem',
      outputs: { z: 1, a: { d: 2, c: 3 } },
      inputs: { who: 'Ada' },
      error: 'say: boom',
      trace: [{ node: 'say', status: 'failed', durationMs: 12, detail: 'boom' }],
    });
    assert.equal(
      text,
      '// Greet: problem\n{\n  "outputs": {\n    "a": {\n      "c": 3,\n      "d": 2\n    },\n    "z": 1\n  },\n  "error": "say: boom",\n  "inputs": {\n    "who": "Ada"\n  },\n  "trace": [\n    "say: failed (boom)"\n  ]\n}\n',
    );
  });
});

describe('the documents Compare opens', () => {
  it("cuts an execution's values past MAX_DIFF_VALUE_CHARS, saying so, without building them whole", async () => {
    const { executionCompareText } = await import('../../src/core/compare/executionText');
    const { MAX_DIFF_VALUE_CHARS } = await import('../../src/core/compare/normalizedJson');
    // 16 MB of outputs as JSON, nested so that pretty they would be far more.
    let outputs: unknown = 'bottom';
    for (let i = 0; i < 200; i++) outputs = { next: outputs, values: Array.from({ length: 10_000 }, (_, j) => j) };
    const text = executionCompareText({
      agentName: 'Big',
      state: 'problem',
      outputs,
      inputs: { who: 'Ada' },
      error: 'e'.repeat(5_000_000),
      trace: [{ node: 'a', status: 'failed' }],
      traceNotKept: 3,
    });
    assert.ok(text.length < 4 * MAX_DIFF_VALUE_CHARS, `${text.length} characters`);
    assert.match(text, /\/\/ cut: the first 1,000,000 characters are shown; open the result to see all of it\n {2}"outputs": \{/);
    assert.match(text, /"error": "e+…"/);
    assert.match(text, /\/\/ 3 more entries not kept\n {2}"trace"/);
    assert.match(text, /"inputs": \{\n {4}"who": "Ada"\n {2}\}/);
  });

  it('keeps texts by count and by characters, the oldest let go first, never the newest two', async () => {
    const { KeptTexts } = await import('../../src/core/compare/keptTexts');
    const kept = new KeptTexts(4, 100);
    for (const key of ['a', 'b', 'c', 'd', 'e']) kept.set(key, key.repeat(10));
    assert.equal(kept.size, 4);
    assert.equal(kept.get('a'), undefined);
    assert.equal(kept.keptChars, 40);
    kept.set('big', 'x'.repeat(70));
    assert.deepEqual(
      ['b', 'c', 'd', 'e', 'big'].map((key) => kept.get(key) !== undefined),
      [false, true, true, true, true],
    );
    assert.equal(kept.keptChars, 100);
    // A pair larger than the budget stays whole: the editor reads both sides.
    kept.set('left', 'l'.repeat(500));
    kept.set('right', 'r'.repeat(500));
    assert.equal(kept.size, 2);
    assert.equal(kept.get('left')?.length, 500);
    assert.equal(kept.keptChars, 1000);
    // Set again under the same key: counted once.
    kept.set('right', 'r');
    assert.equal(kept.keptChars, 501);
  });
});
