// Files a repository can hold instead of text (a FIFO, a symlink to /dev/zero, a huge sparse
// file) are refused before they are read, with a message naming the file: by the reader every
// command shares, and by the built CLI (test, its agents, batch --expect, validate, envs). The CLI
// runs as a child process with a time limit, so a reader that blocks or fills memory fails the
// test instead of hanging it.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTextFile, readTextFileSync } from '../../src/core/document/readTextFile';
import type { FileText, FileTextFailure } from '../../src/core/document/readTextFile';
import { MAX_FILE_BYTES } from '../../src/core/limits';
import { loadSuiteFromText } from '../../src/core/testing/suite';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const posix = process.platform !== 'win32';
const GiB = 1024 * 1024 * 1024;

/** The built CLI in `cwd`, killed after 5 s: the old readers blocked forever on a FIFO or read GBs. */
function cli(args: string[], cwd: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 5000,
    env: { ...process.env, AGENT_WORKFLOWS_ENV: '' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The failure of a read, or nothing when it read text. */
const failure = (read: FileText): Partial<FileTextFailure> => ('error' in read ? read : {});

const TEST_CASE = 'cases:\n  one:\n    inputs: { city: Oslo }\n    live: true\n';

(posix ? describe : describe.skip)('reading files that are not text files', function () {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'weather-report.agent.yaml'));
  });
  afterEach(() => dir.remove());

  it('the shared reader refuses a FIFO, /dev/zero through a symlink, a directory and a sparse 2 GB file, reads a file of the limit', async () => {
    const fifo = join(dir.path, 'pipe.agent.yaml');
    execFileSync('mkfifo', [fifo]);
    const zero = join(dir.path, 'zero.agent.yaml');
    symlinkSync('/dev/zero', zero);
    const sparse = dir.write('sparse.agent.yaml', '');
    truncateSync(sparse, 2 * GiB);
    mkdirSync(join(dir.path, 'folder.agent.yaml'));
    const atLimit = dir.write('limit.agent.yaml', 'a'.repeat(MAX_FILE_BYTES));
    const overLimit = dir.write('over.agent.yaml', 'a'.repeat(MAX_FILE_BYTES + 1));
    for (const read of [readTextFileSync, readTextFile]) {
      assert.deepEqual(await read(fifo), {
        error: 'is not a regular file (it is a FIFO); only regular files are read. Name the file itself.',
        code: 'not-a-file',
      });
      assert.match(failure(await read(zero)).error ?? '', /is not a regular file \(it is a character device\)/);
      assert.deepEqual(await read(sparse), {
        error: 'The file is 2048.0 MB; agent files are checked up to 768 KB. Split the workflow into smaller agents.',
        code: 'file-too-large',
        size: 2 * GiB,
      });
      assert.equal(failure(await read(join(dir.path, 'folder.agent.yaml'))).error, 'is a directory.');
      assert.equal(failure(await read(join(dir.path, 'none.agent.yaml'))).error, 'no such file or directory.');
      assert.equal(((await read(atLimit)) as { text: string }).text.length, MAX_FILE_BYTES);
      assert.equal(failure(await read(overLimit)).code, 'file-too-large');
      // A limit of its own (the environments file's).
      assert.equal(failure(await read(atLimit, { maxBytes: 1024 })).size, MAX_FILE_BYTES);
    }
  });

  it('`test` refuses a FIFO test file, an agent that links to /dev/zero and a 1.5 GB sparse test file, naming each', () => {
    execFileSync('mkfifo', [join(dir.path, 'pipe.agent.test.yaml')]);
    symlinkSync('/dev/zero', join(dir.path, 'evil.agent.yaml'));
    dir.write('evil.agent.test.yaml', TEST_CASE);
    truncateSync(dir.write('huge.agent.test.yaml', ''), 1.5 * GiB);
    for (const [file, expected] of [
      ['pipe.agent.test.yaml', /pipe\.agent\.test\.yaml: is not a regular file \(it is a FIFO\)/],
      [
        'evil.agent.test.yaml',
        /unknown-agent This file tests "evil\.agent\.yaml" .*which cannot be read: .*evil\.agent\.yaml: is not a regular file \(it is a character device\)/,
      ],
      ['huge.agent.test.yaml', /huge\.agent\.test\.yaml: The file is 1536\.0 MB; test files are checked up to 768 KB/],
    ] as const) {
      const result = cli(['test', file], dir.path);
      assert.equal(result.status, 2, `${file}: ${result.output}`);
      assert.match(result.output, expected);
    }
  });

  it('`batch --expect` refuses a FIFO, and `validate` an agent file that links to /dev/zero', () => {
    execFileSync('mkfifo', [join(dir.path, 'expect.agent.test.yaml')]);
    dir.write('rows.jsonl', '{"city":"Oslo"}\n');
    const batch = cli(
      ['batch', 'weather-report.agent.yaml', '--data', 'rows.jsonl', '--local', '--expect', 'expect.agent.test.yaml'],
      dir.path,
    );
    assert.equal(batch.status, 2, batch.output);
    assert.match(batch.output, /--expect .*expect\.agent\.test\.yaml: .*is not a regular file \(it is a FIFO\)/);

    symlinkSync('/dev/zero', join(dir.path, 'evil.agent.yaml'));
    const validate = cli(['validate', 'evil.agent.yaml'], dir.path);
    assert.equal(validate.status, 2, validate.output);
    assert.match(validate.output, /evil\.agent\.yaml: is not a regular file \(it is a character device\)/);
  });

  it('`envs --envs-file` refuses a FIFO and a file over its own limit', () => {
    execFileSync('mkfifo', [join(dir.path, 'pipe.yaml')]);
    const fifo = cli(['envs', '--envs-file', 'pipe.yaml'], dir.path);
    assert.equal(fifo.status, 2, fifo.output);
    assert.match(fifo.output, /The environments file pipe\.yaml: is not a regular file \(it is a FIFO\)/);
    writeFileSync(join(dir.path, 'big.yaml'), `# ${'x'.repeat(300 * 1024)}\n`);
    const big = cli(['envs', '--envs-file', 'big.yaml'], dir.path);
    assert.equal(big.status, 2, big.output);
    assert.match(
      big.output,
      /The environments file big\.yaml: The file is 30\d KB; environments files are checked up to 256 KB\. It should list a few deployments only\./,
    );
  });

  it('a test file whose agent: the schema refuses does not read it (it may name /dev/zero)', () => {
    const asked: string[] = [];
    const loaded = loadSuiteFromText(join(dir.path, 'w.agent.test.yaml'), `agent: /dev/zero\n${TEST_CASE}`, (agentFile) => {
      asked.push(agentFile);
      return { error: 'not read' };
    });
    assert.deepEqual(asked, []);
    assert.ok('message' in loaded);
    assert.match(loaded.problems.map((problem) => problem.message).join('\n'), /agent/);
  });

  it('`test` on a folder leaves out a subfolder it cannot read, saying so, runs the rest and exits 2', function () {
    const root = process.getuid?.() === 0;
    // As root every folder can be read: the CLI then runs as nobody (setpriv), from a copy it may read.
    if (root && !existsSync('/usr/bin/setpriv')) this.skip();
    chmodSync(dir.path, 0o755);
    mkdirSync(join(dir.path, 'cli', 'lazy'), { recursive: true });
    copyFileSync(join(repoRoot, 'dist', 'cli.js'), join(dir.path, 'cli', 'cli.js'));
    for (const name of readdirSync(join(repoRoot, 'dist', 'lazy')).filter((file) => file.endsWith('.js')))
      copyFileSync(join(repoRoot, 'dist', 'lazy', name), join(dir.path, 'cli', 'lazy', name));
    mkdirSync(join(dir.path, 'tests', 'ok'), { recursive: true });
    mkdirSync(join(dir.path, 'tests', 'locked'));
    for (const name of ['weather-report.agent.yaml', 'weather-report.agent.test.yaml'])
      copyFileSync(join(repoRoot, 'examples', name), join(dir.path, 'tests', 'ok', name));
    dir.write('tests/locked/x.agent.test.yaml', TEST_CASE);
    chmodSync(join(dir.path, 'tests', 'locked'), 0o000);
    const command = root ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : [process.execPath];
    const result = spawnSync(command[0]!, [...command.slice(1), join(dir.path, 'cli', 'cli.js'), 'test', 'tests'], {
      cwd: dir.path,
      encoding: 'utf8',
      timeout: 10_000,
      env: { ...process.env, AGENT_WORKFLOWS_ENV: '' },
    });
    chmodSync(join(dir.path, 'tests', 'locked'), 0o755);
    const output = `${result.stdout}${result.stderr}`;
    assert.equal(result.status, 2, output);
    assert.match(output, /tests\/locked: permission denied; check the file's permissions\. Its files are left out\./);
    assert.match(output, /✓ sunny city/);
    assert.doesNotMatch(output, /internal error/);
  });

  it('`test` on a folder finds a test file that is a symbolic link to a regular file', () => {
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.test.yaml'), join(dir.path, 'elsewhere.yaml'));
    mkdirSync(join(dir.path, 'tests'));
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'tests', 'weather-report.agent.yaml'));
    symlinkSync(join(dir.path, 'elsewhere.yaml'), join(dir.path, 'tests', 'weather-report.agent.test.yaml'));
    const result = cli(['test', 'tests'], dir.path);
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, /tests\/weather-report\.agent\.test\.yaml\n {2}✓ sunny city/);
  });
});
