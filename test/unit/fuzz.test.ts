// Fuzz stage: seeded, deterministic mutations of every example and fixture agent file
// (test/support/agentMutants), each validated in-process. No exception may escape, and every problem
// must have a known code, a message and a range inside the text. A failure names the seed and the
// file, so it can be replayed. How long they take is `npm run bench -- fuzz`.
import assert from 'node:assert/strict';
import { outlineOf } from '../../src/core/language/outline';
import { PROBLEM_CODES } from '../../src/core/document/problems';
import type { Problem } from '../../src/core/document/problems';
import { validateAgentText } from '../../src/core/validation/validate';
import { agentMutants, fuzzedAgentFiles, MUTANTS_PER_FILE } from '../support/agentMutants';

function checkProblem(problem: Problem, text: string, where: string): void {
  assert.ok(problem.code in PROBLEM_CODES, `${where}: unknown code ${problem.code}`);
  assert.ok(typeof problem.message === 'string' && problem.message.trim().length > 0, `${where}: ${problem.code} without a message`);
  const { span, range } = problem;
  assert.ok(
    span.start >= 0 && span.start <= span.end && span.end <= text.length,
    `${where}: ${problem.code} span ${span.start}-${span.end} outside 0-${text.length}`,
  );
  assert.ok(
    range.line >= 1 && range.column >= 1 && range.endLine >= range.line,
    `${where}: ${problem.code} range ${JSON.stringify(range)}`,
  );
  assert.ok(
    range.endLine > range.line || range.endColumn >= range.column,
    `${where}: ${problem.code} range ${JSON.stringify(range)} ends before it starts`,
  );
}

describe('fuzz: mutated example and fixture agents', function () {
  this.timeout(30_000);
  const files = fuzzedAgentFiles();

  it('finds the agent files to mutate', () => {
    assert.ok(files.length >= 20, `${files.length} files`);
  });

  it(`validates ${MUTANTS_PER_FILE} mutants of each file without an exception, every problem well-formed`, () => {
    let mutants = 0;
    for (const { text, where } of agentMutants(files)) {
      let problems: Problem[];
      try {
        problems = validateAgentText(text).problems;
        // Read as each kind of file, for the outline: none may throw on any text.
        for (const kind of ['agent', 'test', 'environments'] as const) outlineOf(kind, text);
      } catch (error) {
        assert.fail(`${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
      for (const problem of problems) checkProblem(problem, text, where);
      mutants++;
    }
    assert.equal(mutants, files.length * MUTANTS_PER_FILE);
  });
});
