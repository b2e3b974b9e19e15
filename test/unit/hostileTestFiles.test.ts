// Hostile test files and the files `agent-workflows test` writes (issue 21, points 11 and 12):
// `--update` writes a file only when it reads back, with the same loader and limits, as the file
// with its snapshots (else it refuses, naming the case and why); a YAML alias in a test file is a
// problem with a code, not a case left out; reports written with --output escape control
// characters as standard output does, and JUnit attributes keep line breaks and entities.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { create } from 'xmlbuilder2';
import { MAX_FILE_BYTES } from '../../src/core/limits';
import { runCliCaptured } from '../support/cli';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const run = (args: string[], cwd: string) => runCliCaptured(args, { cwd, env: {} });

/** An agent without API nodes: its cases need no mocks, and its output repeats its input. */
const ECHO_AGENT = `version: 1
name: Echo
inputs:
  q: { type: string }
nodes:
  t: { type: template, text: "{{ inputs.q }}" }
outputs:
  report: { from: "{{ nodes.t.body }}" }
`;

const BOM = '\uFEFF';

describe('hostile test files and --update (issue 21)', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    dir.write('echo.agent.yaml', ECHO_AGENT);
  });
  afterEach(() => dir.remove());

  const write = (text: string | Buffer): string => dir.write('echo.agent.test.yaml', text);

  it('keeps an anchor on the outputs it replaces, and the comment of their line', async () => {
    const file = write(
      'cases:\n  a:\n    snapshot: true\n    inputs: { q: hi }\n    expect:\n      outputs: &out { report: old }   # the last run\n      within_ms: 1000\n',
    );
    const update = await run(['test', '--update'], dir.path);
    assert.equal(update.code, 0, update.stdout + update.stderr);
    assert.equal(
      readFileSync(file, 'utf8'),
      'cases:\n  a:\n    snapshot: true\n    inputs: { q: hi }\n    expect:\n      outputs: &out   # the last run\n        report: hi\n      within_ms: 1000\n',
    );
    assert.equal((await run(['test'], dir.path)).code, 0);
  });

  it('keeps a byte-order mark and a comment at the end of the file', async () => {
    const file = write(Buffer.from(`${BOM}# tests\ncases:\n  a:\n    snapshot: true\n    inputs: { q: hi }\n# the end`, 'utf8'));
    const update = await run(['test', '--update'], dir.path);
    assert.equal(update.code, 0, update.stdout + update.stderr);
    const bytes = readFileSync(file);
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'the byte-order mark is kept');
    assert.equal(
      bytes.toString('utf8'),
      `${BOM}# tests\ncases:\n  a:\n    snapshot: true\n    inputs: { q: hi }\n    expect:\n      outputs:\n        report: hi\n# the end`,
    );
  });

  it('refuses outputs written as an explicit key (? outputs), naming the case, and leaves the file as it was', async () => {
    const original = 'cases:\n  a:\n    snapshot: true\n    inputs: { q: hi }\n    expect:\n      ? outputs\n      : report: old\n';
    const file = write(original);
    const update = await run(['test', '--update'], dir.path);
    assert.equal(update.code, 2, update.stdout + update.stderr);
    assert.match(update.stderr, /echo\.agent\.test\.yaml: snapshots not written: case "a": .*\? outputs/);
    assert.equal(readFileSync(file, 'utf8'), original);
    assert.doesNotMatch(update.stdout, /snapshot written/);
  });

  it('refuses to write a file that would grow past the size test files are read up to', async () => {
    // 200 cases of a 3,000-character input: 600 KB, read; their outputs written would double it.
    const long = 'x'.repeat(3000);
    const original = `cases:\n${Array.from({ length: 200 }, (_, i) => `  c${i}:\n    snapshot: true\n    inputs: { q: ${long} }\n`).join('')}`;
    assert.ok(original.length < MAX_FILE_BYTES);
    const file = write(original);
    const update = await run(['test', '--update'], dir.path);
    assert.equal(update.code, 2, update.stderr);
    assert.match(
      update.stderr,
      /snapshots not written: with them the file would be too large to run: The file is 1\.2 MB; test files are checked up to 768 KB\./,
    );
    assert.equal(readFileSync(file, 'utf8'), original);
    assert.equal((await run(['test'], dir.path)).code, 1, 'the file still runs (its snapshots are missing)');
  });

  it('refuses a splice that would change what the case reads (a kept final line break), naming the case', async () => {
    // The case ends in a block scalar that keeps its final line breaks (|+): the outputs written
    // after its last line would take those line breaks from the input.
    const original = 'cases:\n  a:\n    snapshot: true\n    inputs:\n      q: |+\n        hi\n\n  b:\n    inputs: { q: x }\n';
    const file = write(original);
    const update = await run(['test', '--update'], dir.path);
    assert.equal(update.code, 2, update.stdout + update.stderr);
    assert.match(update.stderr, /snapshots not written: case "a": the file written would not read back as the file with its snapshots/);
    assert.equal(readFileSync(file, 'utf8'), original);
  });

  it('reports a case written as an alias (name: *alias) in validate and test, with a code', async () => {
    write('cases:\n  first: &base\n    inputs: { q: hi }\n  second: *base\n');
    const validate = await run(['validate', 'echo.agent.test.yaml'], dir.path);
    assert.notEqual(validate.code, 0);
    assert.match(validate.stdout, /echo\.agent\.test\.yaml:4:11: error test-file-alias Case "second" is written as the alias \*base/);
    const test = await run(['test'], dir.path);
    assert.equal(test.code, 2);
    assert.match(test.stdout, /:4:11: test-file-alias /);
  });

  it('reports an alias inside a case, which the cases would read wrongly, and --update leaves the file alone', async () => {
    const original =
      'cases:\n  a:\n    snapshot: true\n    inputs: { q: hi }\n    expect:\n      outputs: &out\n        report: old\n  b:\n    inputs: { q: hi }\n    expect:\n      outputs: *out\n';
    const file = write(original);
    const update = await run(['test', '--update'], dir.path);
    assert.equal(update.code, 2);
    assert.match(update.stdout, /:11:16: test-file-alias The alias \*out/);
    assert.equal(readFileSync(file, 'utf8'), original);
  });

  it('--update as the built binary refuses an explicit key and exits 2', () => {
    const original = 'cases:\n  a:\n    snapshot: true\n    inputs: { q: hi }\n    expect:\n      ? outputs\n      : report: old\n';
    const file = write(original);
    const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'test', '--update'], { cwd: dir.path, encoding: 'utf8' });
    assert.equal(result.status, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /snapshots not written: case "a"/);
    assert.equal(readFileSync(file, 'utf8'), original);
  });
});

describe('reports written with --output (issue 21)', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    dir.write('echo.agent.yaml', ECHO_AGENT);
    // A case name with an escape sequence (ESC, CSI in C1), a line break and an entity's text; it fails.
    dir.write(
      'echo.agent.test.yaml',
      'cases:\n  "red \\e[31m \\x9b2J two\\nlines &amp; more":\n    inputs: { q: "a\\x07b" }\n    expect:\n      outputs: { report: other }\n',
    );
  });
  afterEach(() => dir.remove());

  const NAME_ESCAPED = 'red \\u001b[31m \\u009b2J two';

  it('escapes control characters in a text report as standard output does', async () => {
    const shown = await run(['test'], dir.path);
    assert.ok(shown.stdout.includes(NAME_ESCAPED), shown.stdout);
    const result = await run(['test', '--output', 'report.txt'], dir.path);
    assert.equal(result.code, 1, result.stderr);
    const text = readFileSync(join(dir.path, 'report.txt'), 'utf8');
    assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    assert.ok(text.includes(NAME_ESCAPED), text);
    assert.ok(text.includes('a\\u0007b'), text);
  });

  it('escapes them in a JSON report, which keeps its meaning', async () => {
    await run(['test', '--reporter', 'json', '--output', 'report.json'], dir.path);
    const text = readFileSync(join(dir.path, 'report.json'), 'utf8');
    assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const report = JSON.parse(text) as { files: Array<{ cases: Array<{ name: string }> }> };
    assert.equal(report.files[0]!.cases[0]!.name, 'red \u001b[31m \u009b2J two\nlines &amp; more');
  });

  it('writes a JUnit attribute with its line break as &#10; and its text as it is, read back by an XML parser', async () => {
    await run(['test', '--reporter', 'junit', '--output', 'report.xml'], dir.path);
    const text = readFileSync(join(dir.path, 'report.xml'), 'utf8');
    assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    // A line break written raw in an attribute would be read as a space (XML 1.0, 3.3.3).
    const attribute = /<testcase name="([^"]*)"/.exec(text)?.[1];
    assert.equal(attribute, `${NAME_ESCAPED}&#10;lines &amp;amp; more`);
    const xml = create(text).end({ format: 'object' }) as {
      testsuites: { testsuite: { testcase: { '@name': string; failure: { '@message': string; '#': string } } } };
    };
    assert.equal(xml.testsuites.testsuite.testcase['@name'], `${NAME_ESCAPED}\nlines &amp; more`);
    assert.match(xml.testsuites.testsuite.testcase.failure['#'], /a\\u0007b/);
  });
});
