// src/core/posixPath.ts stands in for Node's `path` in the browser build: each of its functions
// must answer as Node's path.posix does, on ordinary paths and on the odd ones.
import assert from 'node:assert/strict';
import { posix } from 'node:path';
import * as browserPath from '../../src/core/posixPath';

const SAMPLES = [
  ...['', '.', '..', '...', '/', '//', '/a', '/a/', 'a', 'a/', 'a/b', 'a//b/', '/a/b/../c', 'a/../..', '../a', './a', 'a/./b'],
  ...['/..', '/../a', 'file.txt', '.profile', '.profile.sh', 'a.', 'a..', 'dir.x/file', '/x/y.tar.gz', 'a/b.c/', '.a.', '..a', 'a/.'],
];

describe('posixPath (Node path for the browser build)', () => {
  for (const name of ['basename', 'dirname', 'extname', 'normalize', 'isAbsolute'] as const) {
    it(`${name} answers as path.posix.${name}`, () => {
      for (const sample of SAMPLES) assert.equal(browserPath[name](sample), posix[name](sample), `${name}(${JSON.stringify(sample)})`);
    });
  }

  it('join and resolve answer as path.posix', () => {
    for (const first of SAMPLES)
      for (const second of SAMPLES) {
        assert.equal(
          browserPath.join(first, second),
          posix.join(first, second),
          `join(${JSON.stringify(first)}, ${JSON.stringify(second)})`,
        );
        assert.equal(
          browserPath.resolve('/cwd', first, second),
          posix.resolve('/cwd', first, second),
          `resolve('/cwd', ${JSON.stringify(first)}, ${JSON.stringify(second)})`,
        );
      }
    assert.equal(browserPath.basename('/a/file.txt', '.txt'), posix.basename('/a/file.txt', '.txt'));
    assert.equal(browserPath.sep, posix.sep);
  });
});
