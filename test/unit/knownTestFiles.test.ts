import * as assert from 'node:assert/strict';
import { KnownTestFiles } from '../../src/testing/knownTestFiles';

describe('KnownTestFiles', () => {
  it('finds the test files a deleted file or folder takes away', () => {
    const files = new KnownTestFiles();
    files.set('file:///w/a/one.agent.test.yaml', '/w/a/one.agent.yaml');
    files.set('file:///w/a/b/two.agent.test.yaml', undefined);
    files.set('file:///w/ab/three.agent.test.yaml', undefined);
    assert.deepEqual(files.deletedWith('file:///w/a/one.agent.test.yaml'), ['file:///w/a/one.agent.test.yaml']);
    assert.deepEqual(files.deletedWith('file:///w/a').sort(), ['file:///w/a/b/two.agent.test.yaml', 'file:///w/a/one.agent.test.yaml']);
    assert.deepEqual(files.deletedWith('file:///w/a/'), files.deletedWith('file:///w/a'));
    assert.deepEqual(files.deletedWith('file:///w/a/readme.md'), []);
    assert.deepEqual(files.deletedWith('file:///elsewhere'), []);
    assert.deepEqual(files.namingAgent('/w/a/one.agent.yaml'), ['file:///w/a/one.agent.test.yaml']);
  });

  it('stops counting a folder once its test files are deleted', () => {
    const files = new KnownTestFiles();
    files.set('file:///w/a/one.agent.test.yaml', undefined);
    files.set('file:///w/a/one.agent.test.yaml', '/w/a/one.agent.yaml'); // set again: still one file
    assert.equal(files.size, 1);
    assert.equal(files.delete('file:///w/a/one.agent.test.yaml'), true);
    assert.equal(files.delete('file:///w/a/one.agent.test.yaml'), false);
    assert.deepEqual(files.deletedWith('file:///w/a'), []);
    assert.deepEqual(files.deletedWith('file:///w'), []);
  });

  it('answers the deletions of a 5,000-file folder in linear time', () => {
    // Counted, not timed: how often a deletion looks through every known file.
    const files = new KnownTestFiles();
    for (let i = 0; i < 2000; i++) files.set(`file:///w/tests/t${i}.agent.test.yaml`, undefined);
    for (let i = 0; i < 5000; i++) assert.deepEqual(files.deletedWith(`file:///w/big/f${i}.txt`), []);
    assert.deepEqual(files.deletedWith('file:///w/big'), []);
    assert.equal(files.scans, 0);
    // The folder of the test files, reported before or after each file in it: one look in all.
    const gone = files.deletedWith('file:///w/tests');
    assert.equal(gone.length, 2000);
    for (const uri of gone) files.delete(uri);
    for (const uri of gone) assert.deepEqual(files.deletedWith(uri), []);
    assert.deepEqual(files.deletedWith('file:///w/tests'), []);
    assert.equal(files.scans, 1);
  });
});
