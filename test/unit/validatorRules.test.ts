// Every validation rule, driven by fixture files: <topic>.bad.agent.yaml carries its expected
// problems as annotations (test/support/annotations.ts), <topic>.good.agent.yaml is the same
// topic done right and must have no problems at all.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROBLEM_CODES } from '../../src/core/problems';
import { validateAgentText } from '../../src/core/validate';
import { formatActual, formatExpected, readAnnotations } from '../support/annotations';
import { fixturesDir } from '../support/paths';

const rulesDir = join(fixturesDir, 'rules');
const files = readdirSync(rulesDir).filter((name) => name.endsWith('.agent.yaml')).sort();
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
      assert.deepEqual(problems.map((problem) => `${formatActual(problem)} ${problem.message}`), []);
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
