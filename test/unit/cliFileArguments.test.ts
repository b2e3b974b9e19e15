// Files named on the command line (send --node ID=@file, import curl @file, batch --data, compare's
// files, a .json data file), through the built binary: only a regular file is read, and only up to
// its limit. A FIFO named there must never hang the command (no --timeout applies to a read), and a
// symlink to /dev/zero committed to a repository must never read without end.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { symlinkSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { closedPort } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

/** The built binary's run; killed (code null) if it has not ended in 10 s, which is a hang. */
async function built(args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], { cwd, env: { PATH: process.env.PATH ?? '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A limit, not a wait: the test waits for the process's close; a hang is ended and fails it.
  const hang = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(hang);
  return { code, stdout, stderr };
}

describe('files named on the command line: only regular files, bounded', function () {
  this.timeout(30_000);
  let dir: TempDir;
  before(function () {
    if (process.platform === 'win32') this.skip();
    dir = makeTempDir();
    execFileSync('mkfifo', [join(dir.path, 'fifo.json')]);
    execFileSync('mkfifo', [join(dir.path, 'fifo.jsonl')]);
    symlinkSync('/dev/zero', join(dir.path, 'zero.json'));
    // Sparse: 10 MiB and one byte, read as a stat says, never written.
    dir.write('big.json', '');
    truncateSync(join(dir.path, 'big.json'), 10 * 1024 * 1024 + 1);
  });
  after(() => dir?.remove());

  it('send --node ID=@file: a FIFO, /dev/zero through a symlink, a file past 10 MiB are refused, nothing sent', async () => {
    dir.write(
      'up.agent.yaml',
      `version: 1
name: Up
nodes:
  first: { type: api, method: GET, url: "http://127.0.0.1:${await closedPort()}/a" }
  second: { type: api, method: POST, url: "http://127.0.0.1:${await closedPort()}/b", body: "{{ nodes.first.body }}" }
`,
    );
    const send = (file: string) => built(['send', 'up.agent.yaml', 'second', '--node', `first=@${file}`], dir.path);
    const fifo = await send('fifo.json');
    assert.equal(fifo.code, 2, fifo.stderr);
    assert.match(fifo.stderr, /--node first: fifo\.json: is not a regular file \(it is a FIFO\); only regular files are read/);
    const zero = await send('zero.json');
    assert.equal(zero.code, 2, zero.stderr);
    assert.match(zero.stderr, /--node first: zero\.json: is not a regular file \(it is a character device\)/);
    const big = await send('big.json');
    assert.equal(big.code, 2, big.stderr);
    assert.match(big.stderr, /--node first: big\.json: is too large: 10485761 bytes, more than the 10485760 read here\./);
  });

  it('import curl @file: a FIFO and /dev/zero are refused', async () => {
    for (const [file, kind] of [
      ['fifo.json', 'a FIFO'],
      ['/dev/zero', 'a character device'],
    ]) {
      const result = await built(['import', 'curl', `@${file}`], dir.path);
      assert.equal(result.code, 2, `${file}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`Cannot read the command from ${file}: is not a regular file \\(it is ${kind}\\)`));
    }
  });

  it('batch --data and compare: a FIFO is refused; a .json data file past its limit is named with it', async () => {
    dir.write('a.agent.yaml', 'version: 1\nname: A\ninputs:\n  q: { type: string }\nnodes: {}\n');
    const data = await built(['batch', 'a.agent.yaml', '--data', 'fifo.jsonl', '--local', '--out', 'out.jsonl'], dir.path);
    assert.equal(data.code, 2, data.stderr);
    assert.match(data.stderr, /fifo\.jsonl is not a regular file \(it is a FIFO\)/);
    const compare = await built(['compare', 'fifo.jsonl', 'fifo.json'], dir.path);
    assert.equal(compare.code, 2, compare.stderr);
    assert.match(compare.stderr, /fifo\.jsonl cannot be read: is not a regular file \(it is a FIFO\)/);
    dir.write('rows.json', '');
    truncateSync(join(dir.path, 'rows.json'), 32 * 1024 * 1024 + 1);
    const json = await built(['batch', 'a.agent.yaml', '--data', 'rows.json', '--local', '--out', 'out.jsonl'], dir.path);
    assert.equal(json.code, 2, json.stderr);
    assert.match(json.stderr, /rows\.json is 33554433 bytes, more than the 33554432 a \.json data file may have/);
  });
});
