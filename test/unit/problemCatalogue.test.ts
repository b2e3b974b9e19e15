// Every problem code is produced by some input (a rules fixture or a sample here) and documented.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_PROBLEMS } from '../../src/core/document/problemSink';
import { PROBLEM_CODES } from '../../src/core/document/problems';
import { parseEnvironmentsFile } from '../../src/core/environments/environmentsFile';
import type { ProblemCode } from '../../src/core/document/problems';
import { validateTestText } from '../../src/core/testing/testFile';
import { validateAgentText } from '../../src/core/validation/validate';
import { readAnnotations } from '../support/annotations';
import { fixturesDir, repoRoot } from '../support/paths';

/** Inputs for the codes that a caret annotation cannot express (whole-file problems). */
const SAMPLES: Partial<Record<ProblemCode, string>> = {
  'empty-file': '',
  'not-text': 'version: 1\u0000\u0001\u0002',
  'file-too-large': `name: x\n${'#'.repeat(3 * 1024 * 1024)}\n`,
  'yaml-syntax': 'version: 1\nname: [unclosed\n',
  'yaml-warning': 'version: 1\nname: !custom Agent\n',
  'duplicate-key': 'version: 1\nname: a\nname: b\n',
  'multiple-documents': 'version: 1\nname: a\n---\nversion: 1\nname: b\n',
  'not-a-mapping': '- version: 1\n',
  'alias-limit':
    'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n',
  'too-many-problems': `version: 1\nname: many\nnodes:\n${Array.from({ length: MAX_PROBLEMS + 20 }, (_, i) => `  n${i}: { type: template, text: "{{ nodes.missing${i}.body }}" }\n`).join('')}`,
};

/** Test files (against TEST_AGENT) for the codes only test files have. */
const TEST_AGENT =
  'version: 1\nname: a\ninputs:\n  city: { type: string }\nnodes:\n  fetch: { type: api, method: GET, url: "https://x.example/{{ inputs.city }}" }\noutputs:\n  report: { from: "{{ nodes.fetch.body }}" }\n';
const TEST_FILE_SAMPLES: Partial<Record<ProblemCode, string>> = {
  'unknown-output': 'cases:\n  one:\n    mocks: { fetch: { body: x } }\n    expect: { outputs: { reprot: x } }\n',
  'missing-mock': 'cases:\n  one:\n    inputs: { city: Oslo }\n',
  'unused-secret': 'cases:\n  one:\n    mocks: { fetch: { body: x } }\n    secrets: { TOKEN: x }\n',
  'invalid-expectation': 'cases:\n  one:\n    mocks: { fetch: { body: x } }\n    expect: { outputs: { report: { $contain: x } } }\n',
  'test-file-alias': 'cases:\n  one: &one\n    mocks: { fetch: { body: x } }\n  two: *one\n',
};

/** The codes of the environments file (agent-workflows.yaml), and of agent files checked against its names. */
const ENVIRONMENT_SAMPLES: Partial<Record<ProblemCode, () => readonly { code: string }[]>> = {
  'unknown-default-environment': () =>
    parseEnvironmentsFile('default: prd\nenvironments:\n  prod: { baseUrl: https://a.example, account: a }\n').problems,
  'unknown-environment': () =>
    validateAgentText('version: 1\nname: a\ndeployment:\n  environments:\n    prd: { agent: b }\n', {
      environments: { names: ['prod'], locked: [] },
    }).problems,
  'protected-environment-override': () =>
    validateAgentText('version: 1\nname: a\ndeployment:\n  environments:\n    prod: { baseUrl: https://b.example }\n', {
      environments: { names: ['prod'], locked: ['prod'] },
    }).problems,
};

/** A test file whose agent cannot be read (the reader says why, and which agent files are there). */
const UNREADABLE_AGENT_SAMPLES: Partial<Record<ProblemCode, () => readonly { code: string }[]>> = {
  'unknown-agent': () =>
    validateTestText('agent: a.agent.yml\ncases:\n  one: { live: true }\n', 'a.agent.test.yaml', () => ({
      unreadable: 'a.agent.yml does not exist.',
      agentFilesThere: ['a.agent.yaml'],
    })).problems,
};

function codesInFixtures(): Set<string> {
  const codes = new Set<string>();
  const rulesDir = join(fixturesDir, 'rules');
  for (const name of readdirSync(rulesDir).filter((n) => n.endsWith('.bad.agent.yaml'))) {
    for (const problem of readAnnotations(readFileSync(join(rulesDir, name), 'utf8'))) codes.add(problem.code);
  }
  return codes;
}

describe('problem catalogue', () => {
  for (const [code, text] of Object.entries(SAMPLES)) {
    it(`a sample input produces ${code}`, function () {
      this.timeout(10_000);
      const problems = validateAgentText(text).problems;
      assert.ok(
        problems.some((problem) => problem.code === code),
        `expected ${code}, got ${problems.map((p) => p.code).join(', ') || 'nothing'}`,
      );
    });
  }

  for (const [code, text] of Object.entries(TEST_FILE_SAMPLES)) {
    it(`a sample test file produces ${code}`, () => {
      const agent = validateAgentText(TEST_AGENT);
      assert.deepEqual(agent.problems, [], 'the sample agent is valid');
      const problems = validateTestText(text, 'a.agent.test.yaml', agent.model).problems;
      assert.deepEqual(
        problems.map((problem) => problem.code),
        [code],
      );
      assert.equal(problems[0]!.severity, PROBLEM_CODES[code as ProblemCode].severity);
    });
  }

  for (const [code, problemsOf] of Object.entries({ ...ENVIRONMENT_SAMPLES, ...UNREADABLE_AGENT_SAMPLES })) {
    it(`a sample produces ${code}, alone`, () => {
      assert.deepEqual(
        problemsOf().map((problem) => problem.code),
        [code],
      );
    });
  }

  it('every code is produced by a rules fixture or a sample', () => {
    const covered = codesInFixtures();
    for (const code of [
      ...Object.keys(SAMPLES),
      ...Object.keys(TEST_FILE_SAMPLES),
      ...Object.keys(ENVIRONMENT_SAMPLES),
      ...Object.keys(UNREADABLE_AGENT_SAMPLES),
    ])
      covered.add(code);
    // Produced by the editor's validation worker, not by validateAgentText (validationWorker.test.ts).
    covered.add('validation-stopped');
    const missing = Object.keys(PROBLEM_CODES).filter((code) => !covered.has(code));
    assert.deepEqual(missing, []);
  });

  it('every code is documented in docs/agent-yaml.md', () => {
    const docs = readFileSync(join(repoRoot, 'docs', 'agent-yaml.md'), 'utf8');
    const missing = Object.keys(PROBLEM_CODES).filter((code) => !new RegExp(`^#+ \`${code}\``, 'm').test(docs));
    assert.deepEqual(missing, [], 'each code needs a heading like: ### `code`');
  });
});
