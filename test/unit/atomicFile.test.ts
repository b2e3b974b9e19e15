// Writing a file whole or not at all (src/core/atomicFile.ts): a write that fails midway, or a
// rename that fails, leaves the file as it was and nothing beside it.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile, writeFileAtomically } from '../../src/core/atomicFile';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

describe('atomicFile', () => {
  let dir: TempDir;
  beforeEach(() => (dir = makeTempDir()));
  afterEach(() => dir.remove());

  it('creates a file, then replaces it whole, leaving no other file', async () => {
    const path = join(dir.path, 'cases.agent.test.yaml');
    await writeFileAtomically(path, 'first\n');
    assert.equal(readFileSync(path, 'utf8'), 'first\n');
    await writeFileAtomically(path, Buffer.from('second, longer\n'));
    assert.equal(readFileSync(path, 'utf8'), 'second, longer\n');
    assert.deepEqual(readdirSync(dir.path), ['cases.agent.test.yaml']);
  });

  it('leaves the file as it was, and nothing beside it, when the write fails midway', async () => {
    const path = dir.write('cases.agent.test.yaml', 'written by hand\n');
    await assert.rejects(
      replaceFile(path, async (file) => {
        await file.write('half of the new te');
        throw new Error('ENOSPC: no space left on device');
      }),
      /ENOSPC/,
    );
    assert.equal(readFileSync(path, 'utf8'), 'written by hand\n');
    assert.deepEqual(readdirSync(dir.path), ['cases.agent.test.yaml']);
  });

  it('removes what it wrote when the rename fails', async () => {
    // A folder cannot be replaced by a file: the rename is refused after the whole text is written.
    const folder = join(dir.path, 'taken');
    mkdirSync(folder);
    await assert.rejects(writeFileAtomically(folder, 'text'));
    assert.ok(statSync(folder).isDirectory());
    assert.deepEqual(readdirSync(dir.path), ['taken']);
  });

  it('keeps the mode of the file it replaces', async function () {
    if (process.platform === 'win32') this.skip();
    const path = dir.write('run.sh', '#!/bin/sh\n');
    chmodSync(path, 0o750);
    await writeFileAtomically(path, '#!/bin/sh\necho new\n');
    assert.equal(statSync(path).mode & 0o777, 0o750);
    assert.equal(readFileSync(path, 'utf8'), '#!/bin/sh\necho new\n');
  });

  it('replaces the file a symlink names, and the link stays', async function () {
    if (process.platform === 'win32') this.skip();
    const real = dir.write('real/cases.agent.test.yaml', 'old\n');
    const link = join(dir.path, 'link.agent.test.yaml');
    symlinkSync(real, link);
    await writeFileAtomically(link, 'new\n');
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(real, 'utf8'), 'new\n');
    assert.deepEqual(readdirSync(join(dir.path, 'real')), ['cases.agent.test.yaml']);
  });

  it('keeps the hard links of the file it replaces: every name reads the new text', async function () {
    if (process.platform === 'win32') this.skip();
    const path = dir.write('cases.agent.test.yaml', 'old\n');
    const other = join(dir.path, 'other-name.yaml');
    linkSync(path, other);
    await writeFileAtomically(path, 'new, longer\n');
    assert.equal(readFileSync(other, 'utf8'), 'new, longer\n');
    assert.equal(statSync(path).nlink, 2);
    assert.equal(statSync(path).ino, statSync(other).ino);
    assert.deepEqual(readdirSync(dir.path).sort(), ['cases.agent.test.yaml', 'other-name.yaml']);
  });

  it("keeps the owner of a file that is someone else's", async function () {
    // Only root may give a file to someone else: what CI runs as.
    if (process.platform === 'win32' || process.getuid?.() !== 0) this.skip();
    const path = dir.write('cases.agent.test.yaml', 'old\n');
    chownSync(path, 4321, 4321);
    await writeFileAtomically(path, 'new\n');
    assert.equal(statSync(path).uid, 4321);
    assert.equal(statSync(path).gid, 4321);
    assert.equal(readFileSync(path, 'utf8'), 'new\n');
    assert.deepEqual(readdirSync(dir.path), ['cases.agent.test.yaml']);
  });

  it('refuses a file that cannot be written, as writing in place would', async function () {
    // root may write any file: the check has nothing to refuse there.
    if (process.platform === 'win32' || process.getuid?.() === 0) this.skip();
    const path = dir.write('locked.agent.test.yaml', 'kept\n');
    chmodSync(path, 0o444);
    await assert.rejects(writeFileAtomically(path, 'new\n'), { code: 'EACCES' });
    assert.equal(readFileSync(path, 'utf8'), 'kept\n');
    assert.deepEqual(readdirSync(dir.path), ['locked.agent.test.yaml']);
  });
});
