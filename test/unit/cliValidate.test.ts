// `agent-workflows validate`, driven in-process through runCli and once as the built binary.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { json, startServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const VALID =
  'version: 1\nname: Valid\nnodes:\n  hello: { type: template, text: hi }\noutputs:\n  out: { from: "{{ nodes.hello.body }}" }\n';
const INVALID =
  'version: 1\nname: Invalid\nnodes:\n  call:\n    type: api\n    method: get\n    url: https://api.example.com\noutputs:\n  out: { from: "{{ nodes.call.body }}" }\n';
const WARNING_ONLY =
  'version: 1\nname: Warn\nnodes:\n  call:\n    type: api\n    method: GET\n    url: https://api.example.com\n    settings: ["x-api-key: abc123"]\noutputs:\n  out: { from: "{{ nodes.call.body }}" }\n';

const run = (args: string[], cwd: string) => runCliCaptured(args, { cwd, env: {} });

describe('agent-workflows validate', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => dir.remove());

  it('exits 0 for a valid file and prints a summary on stderr', async () => {
    dir.write('ok.agent.yaml', VALID);
    const result = await run(['validate', 'ok.agent.yaml'], dir.path);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /1 file checked: 0 errors, 0 warnings, 0 infos\./);
  });

  it('prints problems like a compiler and exits 1 on errors', async () => {
    dir.write('bad.agent.yaml', INVALID);
    const result = await run(['validate', 'bad.agent.yaml'], dir.path);
    assert.equal(result.code, 1);
    assert.equal(
      result.stdout,
      "bad.agent.yaml:6:13: error unknown-http-method \"get\" is not an HTTP method; use 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE' or 'OPTIONS'. Write it as \"GET\".\n",
    );
  });

  it('exits 0 when there are only warnings', async () => {
    dir.write('warn.agent.yaml', WARNING_ONLY);
    const result = await run(['validate', 'warn.agent.yaml'], dir.path);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^warn\.agent\.yaml:8:28: warning literal-credential /);
  });

  it('prints JSON with ranges for every file', async () => {
    dir.write('a/bad.agent.yaml', INVALID);
    dir.write('a/ok.agent.yml', VALID);
    const result = await run(['validate', '--format', 'json', 'a'], dir.path);
    assert.equal(result.code, 1);
    const json = JSON.parse(result.stdout) as { files: Array<{ file: string; problems: Array<Record<string, unknown>> }> };
    assert.deepEqual(
      json.files.map((f) => f.file),
      [join('a', 'bad.agent.yaml'), join('a', 'ok.agent.yml')],
    );
    assert.deepEqual(json.files[0]!.problems[0], {
      line: 6,
      column: 13,
      endLine: 6,
      endColumn: 16,
      severity: 'error',
      code: 'unknown-http-method',
      message: "\"get\" is not an HTTP method; use 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE' or 'OPTIONS'. Write it as \"GET\".",
    });
    assert.deepEqual(json.files[1]!.problems, []);
  });

  it('searches directories recursively, skipping node_modules', async () => {
    dir.write('agents/one.agent.yaml', VALID);
    dir.write('agents/deep/two.agent.yaml', VALID);
    dir.write('agents/node_modules/pkg/three.agent.yaml', INVALID);
    dir.write('agents/notes.yaml', INVALID);
    const result = await run(['validate', 'agents'], dir.path);
    assert.equal(result.code, 0);
    assert.match(result.stderr, /2 files checked/);
  });

  it('checks agent-workflows.yaml as an environments file, named or found in a folder', async () => {
    const broken = 'default: staging\nenvironments:\n  prod:\n    baseUrl: https://agents.example.com\n    account: acme\n';
    dir.write('agent-workflows.yaml', broken);
    const named = await run(['validate', 'agent-workflows.yaml'], dir.path);
    assert.equal(named.code, 1, named.stderr);
    assert.match(named.stdout, /^agent-workflows\.yaml:1:\d+: error unknown-default-environment /m);
    // Not read as an agent file.
    assert.doesNotMatch(named.stdout, /missing "version"|unknown-property/);
    assert.match(named.stderr, /1 file checked: 1 error/);

    dir.write('agents/ok.agent.yaml', VALID);
    dir.write('agents/ok.agent.test.yaml', 'cases:\n  one:\n    expect: { outputs: { out: nope } }\n    typo: 1\n');
    dir.write('agents/agent-workflows.yaml', broken);
    const folder = await run(['validate', '--format', 'json', 'agents'], dir.path);
    assert.equal(folder.code, 1, folder.stderr);
    const files = (JSON.parse(folder.stdout) as { files: { file: string; problems: { code: string }[] }[] }).files;
    assert.deepEqual(files.map((file) => file.file).sort(), [
      join('agents', 'agent-workflows.yaml'),
      join('agents', 'ok.agent.test.yaml'),
      join('agents', 'ok.agent.yaml'),
    ]);
    const codes = (name: string): string[] => files.find((file) => file.file === join('agents', name))!.problems.map((p) => p.code);
    assert.deepEqual(codes('agent-workflows.yaml'), ['unknown-default-environment']);
    assert.ok(codes('ok.agent.test.yaml').length > 0, 'the test file is checked as a test file');
    assert.deepEqual(codes('ok.agent.yaml'), []);
  });

  it('reads an environments file within its own size limit', async () => {
    dir.write('agent-workflows.yaml', `# ${'x'.repeat(300 * 1024)}\nenvironments: {}\n`);
    const result = await run(['validate', '--format', 'json', 'agent-workflows.yaml'], dir.path);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /"code": "file-too-large"/);
  });

  it('exits 2 with a clear message for missing and unreadable files', async () => {
    dir.write('ok.agent.yaml', VALID);
    dir.write('binary.agent.yaml', Buffer.from([0x76, 0x00, 0x01]));
    const locked = dir.write('locked.agent.yaml', VALID);
    chmodSync(locked, 0o000);
    const result = await run(['validate', 'ok.agent.yaml', 'missing.agent.yaml', 'binary.agent.yaml', 'locked.agent.yaml'], dir.path);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /missing\.agent\.yaml: no such file or directory\./);
    // A binary file was read: it is a problem of that file, reported as the editor does.
    assert.match(result.stdout, /^binary\.agent\.yaml:1:1: error not-text The file contains binary data/m);
    // Root can read any file, so the permission check only applies to other users.
    if (process.getuid?.() !== 0) assert.match(result.stderr, /locked\.agent\.yaml: permission denied/);
    chmodSync(locked, 0o644);
  });

  it('reports binary and too large files as problems with their code (exit 1), a missing one as an error (exit 2)', async () => {
    dir.write('binary.agent.yaml', Buffer.from([0x76, 0x00, 0x01]));
    dir.write('huge.agent.yaml', `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    type Report = {
      files: Array<{ file: string; error?: string; problems: Array<{ line: number; column: number; code: string; message: string }> }>;
    };
    const read = await run(['validate', '--format', 'json', 'binary.agent.yaml', 'huge.agent.yaml'], dir.path);
    assert.equal(read.code, 1, 'files that were read but are not agents are errors of those files');
    const byName = new Map((JSON.parse(read.stdout) as Report).files.map((entry) => [entry.file, entry]));
    assert.deepEqual(
      byName.get('binary.agent.yaml')?.problems.map((problem) => [problem.line, problem.column, problem.code]),
      [[1, 1, 'not-text']],
    );
    assert.deepEqual(
      byName.get('huge.agent.yaml')?.problems.map((problem) => [problem.code, problem.message]),
      [['file-too-large', 'The file is 2.0 MB; agent files are checked up to 768 KB. Split the workflow into smaller agents.']],
    );
    const missing = await run(['validate', '--format', 'json', 'binary.agent.yaml', 'missing.agent.yaml'], dir.path);
    assert.equal(missing.code, 2);
    const entry = (JSON.parse(missing.stdout) as Report).files.find((file) => file.file === 'missing.agent.yaml');
    assert.match(entry?.error ?? '', /no such file/);
  });

  it('exits 2 on usage errors', async () => {
    assert.equal((await run(['validate'], dir.path)).code, 2);
    const badFormat = await run(['validate', '--format', 'xml', 'x.agent.yaml'], dir.path);
    assert.equal(badFormat.code, 2);
    assert.match(badFormat.stderr, /Allowed choices are text, json/);
    assert.equal((await run(['frobnicate'], dir.path)).code, 2);
    const emptyDir = await run(['validate', '.'], dir.path);
    assert.equal(emptyDir.code, 2);
    assert.match(emptyDir.stderr, /no agent, agent test or environments files/);
  });

  it('checks a test file named on the command line as a test file, against its agent', async () => {
    dir.write('hello.agent.yaml', VALID);
    dir.write('hello.agent.test.yaml', 'cases:\n  one:\n    expect: { outputs: { out: hi } }\n');
    const valid = await run(['validate', 'hello.agent.test.yaml', 'hello.agent.yaml'], dir.path);
    assert.deepEqual([valid.code, valid.stdout], [0, '']);
    assert.match(valid.stderr, /^2 files checked: 0 errors, 0 warnings, 0 infos\.$/m);

    // Its own problems, the names it uses against the agent, and an agent that cannot be read.
    dir.write(
      'names.agent.test.yaml',
      'agent: hello.agent.yaml\ncases:\n  one:\n    inputs: { who: x }\n    expect: { outputs: { ot: hi } }\n',
    );
    dir.write('typo.agent.test.yaml', 'agent: hello.agent.yml\ncases:\n  one: {}\n');
    const invalid = await run(['validate', 'names.agent.test.yaml', 'typo.agent.test.yaml'], dir.path);
    assert.equal(invalid.code, 1);
    assert.deepEqual(
      invalid.stdout.split('\n').map((line) => /^([^:]+:\d+:\d+): (\w+) ([\w-]+) /.exec(line)?.slice(1).join(' ') ?? line),
      [
        'names.agent.test.yaml:4:15 error unknown-input',
        'names.agent.test.yaml:5:26 error unknown-output',
        'typo.agent.test.yaml:1:8 error unknown-agent',
        '',
      ],
    );
    assert.match(invalid.stdout, /unknown-output The agent has no output "ot"\. Did you mean "out"\?/);
    assert.match(invalid.stdout, /unknown-agent .*Did you mean "hello\.agent\.yaml"\?/);
    assert.match(invalid.stderr, /^2 files checked: 3 errors, 0 warnings, 0 infos\.$/m);

    // A test file whose agent has errors: one error of the test file, saying what they are (JSON too).
    dir.write('bad.agent.yaml', INVALID);
    dir.write('bad.agent.test.yaml', 'cases:\n  one: { live: true }\n');
    const broken = await run(['validate', '--format', 'json', 'bad.agent.test.yaml'], dir.path);
    assert.equal(broken.code, 1);
    const [entry] = (JSON.parse(broken.stdout) as { files: Array<{ file: string; agentError?: string; problems: unknown[] }> }).files;
    assert.deepEqual(entry?.problems, []);
    assert.match(entry?.agentError ?? '', /^The agent under test has problems: .*bad\.agent\.yaml has 1 error[\s\S]*unknown-http-method/);
    assert.match(broken.stderr, /^1 file checked: 1 error, 0 warnings, 0 infos\.$/m);

    // Too large: in the words of a test file.
    dir.write('huge.agent.test.yaml', `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    const huge = await run(['validate', 'huge.agent.test.yaml'], dir.path);
    assert.equal(huge.code, 1);
    assert.match(
      huge.stdout,
      /^huge\.agent\.test\.yaml:1:1: error file-too-large The file is 2\.0 MB; test files are checked up to 768 KB\./,
    );
  });

  it('prints help and version with exit 0', async () => {
    const help = await run(['validate', '--help'], dir.path);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: agent-workflows validate/);
    assert.equal((await run(['--version'], dir.path)).code, 0);
  });

  it('reads a URL as the engine sends it: a "\\" ends the host, so what follows is no user info', async () => {
    const first = await startServer((_request, response) => json(response, 200, { from: 'first' }));
    const second = await startServer((_request, response) => json(response, 200, { from: 'second' }));
    try {
      const agent = (url: string): string =>
        `version: 1\nname: Echo\nnodes:\n  echo: { type: api, method: GET, url: '${url}' }\noutputs:\n  from: { from: "{{ nodes.echo.body.from }}" }\n`;
      dir.write('slash.agent.yaml', agent(`${first.url}\\@${second.url.slice('http://'.length)}/echo`));
      dir.write('userinfo.agent.yaml', agent(`http://alice:s3cret@${second.url.slice('http://'.length)}/echo`));
      const checked = spawnSync(
        process.execPath,
        [join(repoRoot, 'dist', 'cli.js'), 'validate', '--format', 'json', 'slash.agent.yaml', 'userinfo.agent.yaml'],
        { cwd: dir.path, encoding: 'utf8' },
      );
      const files = (JSON.parse(checked.stdout) as { files: Array<{ file: string; problems: Array<{ code: string }> }> }).files;
      const codes = Object.fromEntries(files.map((file) => [file.file, file.problems.map((problem) => problem.code)]));
      assert.deepEqual(codes, { 'slash.agent.yaml': [], 'userinfo.agent.yaml': ['literal-credential'] }, checked.stdout);
      // The engine (undici) sends to the host before the backslash: no credential left the file.
      const ran = await run(['run', '--local', 'slash.agent.yaml'], dir.path);
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /first/);
      assert.deepEqual([first.requests.length, second.requests.length], [1, 0]);
      assert.equal(first.requests[0]!.headers.authorization, undefined);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('runs as the built binary (dist/cli.js) with the same exit codes', function () {
    const cli = join(repoRoot, 'dist', 'cli.js');
    assert.ok(existsSync(cli), 'dist/cli.js is built before the unit tests');
    dir.write('bad.agent.yaml', INVALID);
    const result = spawnSync(process.execPath, [cli, 'validate', 'bad.agent.yaml'], { cwd: dir.path, encoding: 'utf8' });
    assert.equal(result.status, 1);
    assert.match(result.stdout, /^bad\.agent\.yaml:6:13: error unknown-http-method/);
    const examples = spawnSync(
      process.execPath,
      [cli, 'validate', '--format', 'json', join(repoRoot, 'test', 'fixtures', 'rules', 'basic.good.agent.yaml')],
      { encoding: 'utf8' },
    );
    assert.equal(examples.status, 0, examples.stderr);
    const testFile = spawnSync(process.execPath, [cli, 'validate', join(repoRoot, 'examples', 'weather-report.agent.test.yaml')], {
      encoding: 'utf8',
    });
    assert.deepEqual([testFile.status, testFile.stdout], [0, ''], testFile.stderr);
  });
});
