// The editor's validation worker (dist/validationWorker.js through ValidationWorker), run for real
// in a worker thread: same problems and outline as in-process, latest wins per document, a check over its time
// limit is stopped with a validation-stopped problem and the next check gets a new worker, and the
// calling thread stays responsive while a hostile file is checked. The Test Explorer's reading of a
// test file (the testFile task): its cases at their lines, its agent from disk or an unsaved text;
// and for a run (the testRun task): the suite, copied to this thread, runs as one loaded in place.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { documentSymbols } from '../../src/core/language/navigation';
import { validateAgentText } from '../../src/core/validation/validate';
import { ValidationWorker } from '../../src/language/validationWorkerClient';
import { nodeWorkerThread } from '../../src/language/nodeWorkerThread';
import type { ValidationOutcome } from '../../src/language/validationWorkerClient';
import type { CaseResult } from '../../src/core/testing/caseResult';
import { loadSuite, runSuite } from '../../src/core/testing/suite';
import { workerRead } from '../../src/testing/workerReads';
import { HOSTILE_SHAPES } from '../support/hostileAgents';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const scriptPath = join(repoRoot, 'dist', 'validationWorker.js');
const BROKEN =
  'version: 1\nname: w\nnodes:\n  a: { type: template, text: "{{ inputs.nope }}" }\noutputs:\n  o: { from: "{{ nodes.a.body }}" }\n';

function shape(name: string) {
  const found = HOSTILE_SHAPES.find((each) => each.name === name);
  assert.ok(found, name);
  return found;
}

function problemsOf(outcome: ValidationOutcome): string[] {
  assert.ok(
    outcome.kind === 'checked' || outcome.kind === 'stopped',
    `outcome ${outcome.kind}${outcome.kind === 'failed' ? `: ${outcome.error}` : ''}`,
  );
  return outcome.problems.map((p) => `${p.range.line}:${p.range.column} ${p.code} ${p.message}`);
}

describe('validation worker', function () {
  this.timeout(10_000);
  let worker: ValidationWorker | undefined;

  before(() => assert.ok(existsSync(scriptPath), `${scriptPath} is built by node esbuild.mjs`));
  afterEach(() => worker?.dispose());

  it('reports the same problems as validating in-process', async () => {
    worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
    const outcome = await worker.validate('a', BROKEN);
    assert.equal(outcome.kind, 'checked');
    assert.deepEqual(problemsOf(outcome), problemsOf({ kind: 'checked', problems: validateAgentText(BROKEN).problems }));
  });

  it("lists the outline's symbols like the core does in-process", async () => {
    worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
    const outcome = await worker.run('symbols', 'a', BROKEN);
    assert.equal(outcome.kind, 'done');
    assert.deepEqual(outcome.kind === 'done' && outcome.result, documentSymbols(BROKEN));
  });

  it('drops results a newer text of the same document replaced, and keeps other documents', async () => {
    worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
    const slow = shape('misspelled input references').generate(1000);
    const first = worker.validate('a', slow);
    const second = worker.validate('a', slow);
    const other = worker.validate('b', BROKEN);
    const third = worker.validate('a', BROKEN);
    const outcomes = await Promise.all([first, second, other, third]);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['superseded', 'superseded', 'checked', 'checked'],
    );
    assert.deepEqual(problemsOf(outcomes[3]!), problemsOf(outcomes[2]!));
  });

  it("answers every outline request, a replaced waiting one with the newer text's symbols", async () => {
    worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
    const slow = shape('misspelled input references').generate(1000);
    const running = worker.run('symbols', 'a', slow);
    const replaced = worker.run('symbols', 'a', slow);
    const newest = worker.run('symbols', 'a', BROKEN);
    const outcomes = await Promise.all([running, replaced, newest]);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['done', 'done', 'done'],
    );
    assert.deepEqual(outcomes[1], outcomes[2], 'the replaced request gets the newest answer');
    assert.deepEqual(outcomes[2]!.kind === 'done' && outcomes[2]!.result, documentSymbols(BROKEN));
  });

  it('stops a check over its time limit, says so, and starts a new worker for the next one', async () => {
    worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 40 });
    const slow = shape('many inputs, all unused').generate(20_000);
    const outcome = await worker.validate('a', slow);
    assert.equal(outcome.kind, 'stopped');
    assert.deepEqual(problemsOf(outcome), [
      `1:1 validation-stopped Validation was stopped after 40 ms: checking this file (${Math.ceil(slow.length / 1024)} KB) takes too long, so its problems are not shown. Simplify or split the file, or run "agent-workflows validate" on it.`,
    ]);
    assert.equal(outcome.kind === 'stopped' && outcome.problems[0]!.severity, 'warning');
    assert.equal(worker.restarts, 1);
    // The next, small file is checked by a fresh worker (a generous limit: it starts and loads first).
    const fast = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
    try {
      assert.equal((await fast.validate('a', BROKEN)).kind, 'checked');
    } finally {
      fast.dispose();
    }
    const again = await worker.validate('b', 'version: 1\n');
    assert.ok(again.kind === 'checked' || again.kind === 'stopped');
  });

  it('keeps the calling thread responsive while a large hostile file is checked', async () => {
    worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 8000 });
    await worker.validate('warm-up', BROKEN);
    const text = shape('many inputs, all unused').generate(20_000);
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    try {
      const outcome = await worker.validate('big', text);
      assert.equal(outcome.kind, 'checked');
    } finally {
      clearInterval(ticker);
    }
    const took = performance.now() - started;
    // In this thread the check would block for all of `took`; in the worker, timers keep running.
    assert.ok(longestGap < Math.max(100, took / 3), `a timer waited ${longestGap.toFixed(0)} ms during a ${took.toFixed(0)} ms check`);
  });

  it('answers nothing more after dispose', async () => {
    worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
    const pending = worker.validate('a', shape('one long cycle').generate(2000));
    worker.dispose();
    assert.equal((await pending).kind, 'superseded');
    assert.equal((await worker.validate('a', BROKEN)).kind, 'superseded');
  });

  describe('reading a test file for the Test Explorer', () => {
    const fixture = join(repoRoot, 'test', 'fixtures', 'workspace', 'agent-tests');
    const agentText = readFileSync(join(fixture, 'greeter.agent.yaml'), 'utf8');
    const testText = readFileSync(join(fixture, 'greeter.agent.test.yaml'), 'utf8');
    let dir: TempDir;

    beforeEach(() => {
      dir = makeTempDir();
    });
    afterEach(() => dir.remove());

    it('lists the cases at their lines and the agent it names, read from disk or from an unsaved text', async () => {
      worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
      const agentFile = dir.write('greeter.agent.yaml', agentText);
      const testFile = dir.write('greeter.agent.test.yaml', testText);
      const read = await worker.run('testFile', testFile, testText, { file: testFile });
      assert.equal(read.kind, 'done');
      const summary = read.kind === 'done' ? read.result : undefined;
      const lineOf = (needle: string): number => testText.slice(0, testText.indexOf(needle)).split('\n').length;
      assert.deepEqual(
        summary?.cases.map((testCase) => [testCase.name, testCase.range.line]),
        [
          ['known person', lineOf('known person:')],
          ['wrong title', lineOf('wrong title:')],
        ],
      );
      assert.equal(summary?.agentFile, agentFile);
      assert.equal(summary?.failure, undefined);
      assert.deepEqual(summary?.problems, []);

      // An unsaved agent text wins over the file: one without the output the test expects.
      const unsaved = agentText.replace(/outputs:[\s\S]*$/, 'outputs: {}\n');
      const edited = await worker.run('testFile', testFile, testText, { file: testFile, agentTexts: [[agentFile, unsaved]] });
      assert.equal(edited.kind, 'done');
      assert.match(edited.kind === 'done' ? (edited.result.failure ?? '') : '', /problem/);
      assert.ok(edited.kind === 'done' && edited.result.problems.some((problem) => problem.severity === 'error'));
      assert.equal(edited.kind === 'done' && edited.result.cases.length, 2, 'the cases are still listed');

      rmSync(agentFile);
      const gone = await worker.run('testFile', testFile, testText, { file: testFile });
      assert.equal(gone.kind, 'done');
      assert.equal(gone.kind === 'done' && gone.result.agentFile, agentFile, 'the agent it names, for its code lens');
      assert.match(gone.kind === 'done' ? (gone.result.failure ?? '') : '', /problem|cannot be read/);
    });

    it('loads a test file for a run: the suite, copied from the worker, runs as one loaded in place', async () => {
      worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
      const agentFile = dir.write('greeter.agent.yaml', agentText);
      const testFile = dir.write('greeter.agent.test.yaml', testText);
      // Two runs of the same file at once: each gets its suite (a run is not told to drop its read).
      const [read, again] = await Promise.all([
        worker.run('testRun', testFile, testText, { file: testFile }),
        worker.run('testRun', testFile, testText, { file: testFile }),
      ]);
      assert.equal(again.kind, 'done');
      assert.equal(read.kind, 'done');
      const forRun = read.kind === 'done' ? read.result : undefined;
      assert.deepEqual(
        forRun?.summary.cases.map((testCase) => testCase.name),
        ['known person', 'wrong title'],
      );
      assert.equal(forRun?.summary.agentFile, agentFile);
      assert.ok(forRun?.loaded, 'a runnable suite');
      const inPlace = loadSuite(testFile);
      assert.ok('suite' in inPlace);
      const shown = (results: CaseResult[]): unknown =>
        results.map((result) => [result.name, result.passed, result.failures.map((failure) => [failure.message, failure.span])]);
      const ran = shown(await runSuite(forRun.loaded));
      assert.deepEqual(ran, shown(await runSuite(inPlace)));
      assert.deepEqual(
        (ran as Array<[string, boolean]>).map(([name, passed]) => [name, passed]),
        [
          ['known person', true],
          ['wrong title', false],
        ],
      );

      // An agent with errors (here an unsaved text): no suite to run, and why.
      const unsaved = agentText.replace(/outputs:[\s\S]*$/, 'outputs: {}\n');
      const broken = await worker.run('testRun', testFile, testText, { file: testFile, agentTexts: [[agentFile, unsaved]] });
      assert.equal(broken.kind, 'done');
      assert.equal(broken.kind === 'done' && broken.result.loaded, undefined);
      assert.match(broken.kind === 'done' ? (broken.result.summary.failure ?? '') : '', /problem/);
    });

    it('gives up on a test file read for a run over the time limit, in the words of its item', async () => {
      worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 40 });
      dir.write('greeter.agent.yaml', agentText);
      const testFile = join(dir.path, 'greeter.agent.test.yaml');
      let text = 'cases:\n';
      for (let index = 0; text.length < 700_000; index++) text += `  case ${index}:\n    inputs: { who: Ada }\n`;
      const read = workerRead(await worker.run('testRun', testFile, text, { file: testFile }), text.length, 40);
      assert.deepEqual(read, {
        kind: 'unreadable',
        why: `Reading it was stopped after 40 ms (${Math.ceil(text.length / 1024)} KB): it, or its agent, takes too long to parse. Split or simplify the file.`,
      });
      assert.equal(worker.restarts, 1);
    });

    it('reports a case written as an alias with its code, for the Problems panel and the Test Explorer', async () => {
      worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
      dir.write('greeter.agent.yaml', agentText);
      const aliased = testText.replace(/^cases:\n {2}([^\n]+):/m, 'cases:\n  $1: &first').replace(/\n*$/, '\n  again: *first\n');
      assert.notEqual(aliased, testText);
      const testFile = dir.write('greeter.agent.test.yaml', aliased);
      const read = await worker.run('testFile', testFile, aliased, { file: testFile });
      assert.equal(read.kind, 'done');
      const summary = read.kind === 'done' ? read.result : undefined;
      const line = aliased.split('\n').indexOf('  again: *first') + 1;
      assert.deepEqual(
        summary?.problems.map((problem) => [problem.code, problem.range.line, problem.range.column]),
        [['test-file-alias', line, 10]],
      );
      assert.match(summary?.failure ?? '', /problem/);
    });

    it('keeps the calling thread responsive while a large test file is read', async () => {
      worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 8000 });
      dir.write('greeter.agent.yaml', agentText);
      const testFile = join(dir.path, 'greeter.agent.test.yaml');
      await worker.run('testFile', testFile, testText, { file: testFile });
      let text = 'cases:\n';
      for (let index = 0; text.length < 700_000; index++)
        text += `  case ${index}:\n    inputs: { who: Ada }\n    mocks: { profile: { body: { title: Mr } } }\n`;
      let last = performance.now();
      let longestGap = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
      }, 5);
      const started = performance.now();
      let cases = 0;
      try {
        const outcome = await worker.run('testFile', testFile, text, { file: testFile });
        assert.equal(outcome.kind, 'done', outcome.kind === 'failed' ? outcome.error : outcome.kind);
        cases = outcome.kind === 'done' ? outcome.result.cases.length : 0;
      } finally {
        clearInterval(ticker);
      }
      const took = performance.now() - started;
      assert.ok(cases > 5000, `${cases} cases`);
      assert.ok(longestGap < Math.max(100, took / 3), `a timer waited ${longestGap.toFixed(0)} ms during a ${took.toFixed(0)} ms read`);
    });

    it('drops a read that a newer text of the same test file replaced, and stops one over the time limit', async () => {
      worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 5000 });
      const testFile = dir.write('greeter.agent.test.yaml', testText);
      const first = worker.run('testFile', testFile, testText, { file: testFile });
      const second = worker.run('testFile', testFile, testText, { file: testFile });
      const third = worker.run('testFile', testFile, testText, { file: testFile });
      assert.deepEqual(
        (await Promise.all([first, second, third])).map((outcome) => outcome.kind),
        ['superseded', 'superseded', 'done'],
      );
      worker.dispose();
      worker = new ValidationWorker({ startThread: nodeWorkerThread(scriptPath), timeLimitMs: 40 });
      let text = 'cases:\n';
      for (let index = 0; text.length < 700_000; index++) text += `  case ${index}:\n    inputs: { who: Ada }\n`;
      assert.equal((await worker.run('testFile', testFile, text, { file: testFile })).kind, 'stopped');
    });
  });
});
