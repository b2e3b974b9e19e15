// CI reports of the command line: several reporters in one run (JUnit, CTRF checked against the
// CTRF JSON Schema the `ctrf` package publishes, JSON), usage errors for bad choices, and GitHub's
// annotations (checked line by line, escaped as the runner reads them, secrets masked) and step summary.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Ajv from 'ajv';
import { runCliCaptured } from '../support/cli';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const ECHO_AGENT = `version: 1
name: Echo
inputs:
  q: { type: string }
nodes:
  t: { type: template, text: "{{ inputs.q }} {{ secrets.TOKEN }}" }
outputs:
  report: { from: "{{ nodes.t.body }}" }
`;
// A file name with "," and ":" (escaped in a property), a case name with "%", "," and ":", an
// expected value with "%" and a line break, an API key written in the file, a case secret echoed.
const FILE = 'sub/a,b:c.agent.test.yaml';
const TESTS = `cases:
  passes:
    inputs: { q: hi }
    secrets: { TOKEN: s3cr3t-case-token }
    expect:
      outputs: { report: "hi [redacted]" }
  "50% off, now: sold":
    inputs: { q: "key-ABCD1234 x" }
    secrets: { TOKEN: s3cr3t-case-token }
    expect:
      outputs: { report: "100% done\\nnext" }
`;
const API_KEY = 'key-ABCD1234';

const ctrfPackage = createRequire(join(repoRoot, 'package.json'))('ctrf') as {
  validate(report: unknown): { valid: boolean; errors: unknown[] };
};
const ctrfSchema = JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'ctrf', 'dist', 'ctrf-schema-0.0.json'), 'utf8')) as object;

/** CTRF validated by the schema file itself (ajv, formats not checked: the report writes none) and by the package. */
function assertCtrf(document: unknown): void {
  const ajv = new Ajv({ strict: false, validateFormats: false });
  const valid = ajv.validate(ctrfSchema, document);
  assert.ok(valid, JSON.stringify(ajv.errors));
  const checked = ctrfPackage.validate(document);
  assert.ok(checked.valid, JSON.stringify(checked.errors));
}

describe('CI reporters of agent-workflows test', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    dir.write('sub/a,b:c.agent.yaml', ECHO_AGENT);
    dir.write(FILE, TESTS);
  });
  afterEach(() => dir.remove());

  // The API key is written in the test file: only GitHub's reports, which know it, must mask it.
  const run = (args: string[], env: Record<string, string> = {}, secrets: string[] = []) =>
    runCliCaptured(args, { cwd: dir.path, env }, ['s3cr3t-case-token', ...secrets]);

  it('the CTRF validator rejects a document that breaks the schema', () => {
    const ajv = new Ajv({ strict: false, validateFormats: false });
    assert.equal(
      ajv.validate(ctrfSchema, { reportFormat: 'CTRF', specVersion: '0.0.0', results: { tool: { name: 'x' }, tests: [] } }),
      false,
    );
  });

  it('writes junit, ctrf and json reports in one run, each to its file, and text to standard output', async () => {
    const result = await run([
      'test',
      'sub',
      '--reporter',
      'junit:out.xml',
      '--reporter',
      'ctrf:ctrf.json',
      '--reporter',
      'json:r.json',
      '-r',
      'text',
    ]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /✗ 50% off, now: sold/);
    assert.match(result.stderr, /report written to out\.xml\nreport written to ctrf\.json\nreport written to r\.json\n/);
    assert.match(readFileSync(join(dir.path, 'out.xml'), 'utf8'), /<testsuites name="agent-workflows test" tests="2" failures="1"/);
    assert.equal((JSON.parse(readFileSync(join(dir.path, 'r.json'), 'utf8')) as { failed: number }).failed, 1);
    const ctrf = JSON.parse(readFileSync(join(dir.path, 'ctrf.json'), 'utf8')) as {
      results: { summary: Record<string, number>; tests: Array<Record<string, unknown>> };
    };
    assertCtrf(ctrf);
    assert.deepEqual(
      { tests: ctrf.results.summary.tests, passed: ctrf.results.summary.passed, failed: ctrf.results.summary.failed },
      { tests: 2, passed: 1, failed: 1 },
    );
    const failed = ctrf.results.tests[1]!;
    assert.equal(failed.name, '50% off, now: sold');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.filePath, FILE);
    assert.equal(failed.line, 11);
    assert.deepEqual(failed.suite, [FILE]);
    assert.match(String(failed.message), /^outputs\.report: expected "100% done\\nnext", got "key-ABCD1234 x \[redacted\]"$/);
  });

  it('keeps the old forms: --reporter junit --output FILE, and a bare --reporter json on standard output', async () => {
    const junit = await run(['test', 'sub', '--reporter', 'junit', '--output', 'out.xml']);
    assert.equal(junit.code, 1);
    assert.equal(junit.stdout, '');
    assert.match(readFileSync(join(dir.path, 'out.xml'), 'utf8'), /<testsuites/);
    const json = await run(['test', 'sub', '--reporter', 'json']);
    assert.equal((JSON.parse(json.stdout) as { passed: number }).passed, 1);
  });

  it('refuses an unknown type, a TYPE: without a file, two reporters on standard output, and github with a file (exit 2)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['--reporter', 'tap'],
        /--reporter tap: there is no reporter "tap"; the reporters are text, json, junit, ctrf, github \(TYPE for standard output, TYPE:FILE for a file\)\./,
      ],
      [['--reporter', 'junit:'], /--reporter junit: names no file: give junit:FILE, or junit alone for standard output\./],
      [
        ['--reporter', 'json', '--reporter', 'junit'],
        /--reporter json and --reporter junit would all write to standard output: give all but one a file \(TYPE:FILE\)\./,
      ],
      [['--reporter', 'github:x.txt'], /github takes no file/],
      [['--reporter', 'json:a.json', '--reporter', 'ctrf:a.json'], /--reporter json and ctrf would both write a\.json/],
      [
        ['--reporter', 'json', '--reporter', 'junit', '--output', 'x'],
        /--output names the file of one reporter, and json and junit are given without one/,
      ],
      [['--compare-with', 'old.json'], /--compare-with compares the JSON report of this run with an earlier one/],
    ];
    for (const [args, message] of cases) {
      const result = await run(['test', 'sub', ...args]);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message);
    }
  });

  it('writes GitHub annotations, escaped, secrets masked, and a step summary with the comparison asked for', async () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir.path, 'summary.md'), AGENT_WORKFLOWS_API_KEY: API_KEY };
    dir.write('summary.md', '# before\n');
    const first = await run(['test', 'sub', '--reporter', 'json:old.json'], env);
    assert.equal(first.code, 1);
    const result = await run(['test', 'sub', '--reporter', 'json:new.json', '--reporter', 'github', '--compare-with', 'old.json'], env, [
      API_KEY,
    ]);
    assert.equal(result.code, 1, result.stderr);
    const annotations = result.stderr.split('\n').filter((line) => line.startsWith('::'));
    assert.deepEqual(annotations, [
      '::error file=sub/a%2Cb%3Ac.agent.test.yaml,line=11,title=50%25 off%2C now%3A sold::line 11: outputs.report: expected "100%25 done\\nnext", got "••• x [redacted]"%0A  - expected%0A  + actual%0A  - 100%25 done%0A  - next%0A  + ••• x [redacted]',
    ]);
    const summary = readFileSync(join(dir.path, 'summary.md'), 'utf8');
    assert.ok(summary.startsWith('# before\n### agent-workflows test: ❌ 1 failed\n'), summary);
    assert.match(
      summary,
      /\| 50% off, now: sold \| failed \| sub\/a,b:c\.agent\.test\.yaml:11 \| outputs\.report: expected "100% done\\\\nnext", got "••• x \[redacted\]" \|/,
    );
    assert.match(summary, /### Agent runs compared: no regressions/);
    assert.match(summary, /\| file \| old\.json \| new\.json \|/);
    assert.ok(!summary.includes(API_KEY));
  });

  it('adds github to text on GitHub Actions when no reporter is given, files relative to GITHUB_WORKSPACE', async () => {
    const result = await run(['test', 'a,b:c.agent.test.yaml'.replace(/^/, 'sub/')], {
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: dir.path,
    });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /2 cases: 1 passed, 1 failed/);
    assert.match(result.stderr, /^::error file=sub\/a%2Cb%3Ac\.agent\.test\.yaml,line=11,title=50%25 off%2C now%3A sold::/m);
    const outside = await run(['test', 'sub', '-r', 'github'], { GITHUB_WORKSPACE: join(dir.path, 'sub') });
    assert.match(outside.stderr, /^::error file=a%2Cb%3Ac\.agent\.test\.yaml,line=11,/m);
  });
});

describe('CI reporters of agent-workflows batch', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    dir.write(
      'echo.agent.yaml',
      'version: 1\nname: Echo\ninputs:\n  q: { type: string }\nnodes:\n  t: { type: template, text: "{{ inputs.q }} {{ secrets.TOKEN }}" }\noutputs:\n  report: { from: "{{ nodes.t.body }}" }\n',
    );
    // Row 1 passes (its id is the secret's value), row 2 misses its expectation, row 3 is not JSON (skipped).
    dir.write(
      'rows.jsonl',
      '{"id":"tok-secret-123","q":"hi","expect.report":"hi [redacted]"}\n{"id":"b,c:d","q":"50%","expect.report":"100%\\nx"}\n{bad\n',
    );
  });
  afterEach(() => dir.remove());

  it('writes a test per row to junit, ctrf and json, and GitHub annotations and summary, secrets masked', async () => {
    const env = { AGENT_SECRET_TOKEN: 'tok-secret-123', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir.path, 'summary.md') };
    const args = ['batch', 'echo.agent.yaml', '--data', 'rows.jsonl', '--local', '--out', 'res.jsonl'];
    const result = await runCliCaptured(
      [...args, '-r', 'junit:j.xml', '-r', 'ctrf:c.json', '-r', 'json:r.json', '-r', 'github'],
      { cwd: dir.path, env },
      ['tok-secret-123'],
    );
    assert.equal(result.code, 1, result.stderr);
    const annotations = result.stderr.split('\n').filter((line) => line.startsWith('::'));
    assert.equal(annotations.length, 2, result.stderr);
    assert.equal(
      annotations[0],
      '::error file=rows.jsonl,title=row 2 (id=b%2Cc%3Ad)::outputs.report: expected 100%25%0Ax, got 50%25 [redacted]',
    );
    assert.match(annotations[1]!, /^::warning file=rows\.jsonl,title=row 3 \(skipped\)::.+/);
    const ctrf = JSON.parse(readFileSync(join(dir.path, 'c.json'), 'utf8')) as {
      results: { summary: Record<string, number>; tests: Array<Record<string, unknown>> };
    };
    assertCtrf(ctrf);
    assert.deepEqual(
      ctrf.results.tests.map((test) => [test.name, test.status, test.rawStatus]),
      [
        ['row 1 (id=•••)', 'passed', 'finished'],
        ['row 2 (id=b,c:d)', 'failed', 'not passed'],
        ['row 3', 'skipped', 'skipped'],
      ],
    );
    assert.equal(ctrf.results.summary.tests, 3);
    const junit = readFileSync(join(dir.path, 'j.xml'), 'utf8');
    assert.match(junit, /<testsuites name="agent-workflows batch" tests="3" failures="1" errors="0" skipped="1"/);
    assert.match(junit, /<testcase name="row 3" classname="rows\.jsonl" file="rows\.jsonl" time="0\.000">\s*<skipped message="/);
    const json = JSON.parse(readFileSync(join(dir.path, 'r.json'), 'utf8')) as {
      rows: number;
      passed: number;
      failed: number;
      skipped: number;
    };
    assert.deepEqual([json.rows, json.passed, json.failed, json.skipped], [3, 1, 1, 1]);
    const summary = readFileSync(join(dir.path, 'summary.md'), 'utf8');
    assert.match(summary, /^### agent-workflows batch over rows\.jsonl: ❌ 2 not passed\n/);
    assert.match(
      summary,
      /\| row 2 \(id=b,c:d\) \| not passed \| rows\.jsonl \| outputs\.report: expected 100%<br>x, got 50% \[redacted\] \|/,
    );
  });

  it('refuses --compare-with without --out and github (exit 2)', async () => {
    const result = await runCliCaptured(['batch', 'echo.agent.yaml', '--data', 'rows.jsonl', '--local', '--compare-with', 'old.jsonl'], {
      cwd: dir.path,
      env: {},
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--compare-with compares the results of this batch \(--out\) with an earlier one/);
  });
});

describe('CI reporters of agent-workflows validate', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    dir.write(
      'a,b:c.agent.yaml',
      'version: 1\nname: X\nbogus: 1\ninputs:\n  q: { type: string }\nnodes:\n  t: { type: template, text: "{{ inputs.zz }}" }\noutputs:\n  report: { from: "{{ nodes.t.body }}" }\n',
    );
  });
  afterEach(() => dir.remove());

  it('on GitHub Actions, prints its text and annotates each error and warning (code as title), with a step summary', async () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir.path, 'summary.md') };
    const result = await runCliCaptured(['validate', '.'], { cwd: dir.path, env });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^a,b:c\.agent\.yaml:3:1: error unknown-property /);
    assert.deepEqual(
      result.stderr.split('\n').filter((line) => line.startsWith('::')),
      [
        `::error file=a%2Cb%3Ac.agent.yaml,line=3,col=1,title=unknown-property::The agent has no key "bogus". It takes 'version', 'name', 'description', 'deployment', 'inputs', 'outputs' and 'nodes'.`,
        `::error file=a%2Cb%3Ac.agent.yaml,line=7,col=41,title=unknown-input::There is no input "zz". The inputs are 'q'. Declare it under "inputs:" to use it.`,
      ],
    );
    const summary = readFileSync(join(dir.path, 'summary.md'), 'utf8');
    assert.match(summary, /^### agent-workflows validate: ❌ 2 errors\n/);
    assert.match(summary, /\| a,b:c\.agent\.yaml:7:41 \| error \| unknown-input \|/);
  });

  it('writes json to a file with --reporter json:FILE, and refuses --format with --reporter', async () => {
    const result = await runCliCaptured(['validate', '.', '-r', 'json:v.json', '-r', 'text'], { cwd: dir.path, env: {} });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /unknown-input/);
    assert.equal((JSON.parse(readFileSync(join(dir.path, 'v.json'), 'utf8')) as { files: unknown[] }).files.length, 1);
    const both = await runCliCaptured(['validate', '.', '-f', 'json', '-r', 'github'], { cwd: dir.path, env: {} });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--format json and --reporter both choose the output: give --reporter json instead\./);
  });
});
