// The one directory walk (src/core/document/fileWalk.ts) over a file system given as a map, as
// VS Code's is given to it in a workspace its search cannot answer for: the bounds, cancelling, a
// folder that cannot be read, links. agentFiles.test.ts walks real folders through Node's.
import assert from 'node:assert/strict';
import { walkFiles } from '../../src/core/document/fileWalk';
import type { DirectoryEntry, DirectoryReader } from '../../src/core/document/fileWalk';
import { AGENT_FILE } from '../../src/core/document/agentFileName';

/** Folders by path ('' is the top), each with its entries; reads are counted. */
function mapReader(tree: Record<string, DirectoryEntry[]>, links: Record<string, boolean> = {}) {
  const read: string[] = [];
  const reader: DirectoryReader<string> = {
    list(directory) {
      read.push(directory);
      const entries = tree[directory];
      if (entries === undefined) return Promise.resolve(undefined);
      if (entries.some((entry) => entry.name === '!unreadable')) return Promise.reject(new Error(`permission denied: ${directory}`));
      return Promise.resolve([...entries]);
    },
    child: (directory, name) => (directory ? `${directory}/${name}` : name),
    linkIsFile: (location) => Promise.resolve(links[location] ?? false),
  };
  return { reader, read };
}

const file = (name: string): DirectoryEntry => ({ name, kind: 'file' });
const folder = (name: string): DirectoryEntry => ({ name, kind: 'directory' });

describe('the directory walk', () => {
  const tree = {
    '': [file('z.agent.yaml'), folder('b'), folder('a'), folder('node_modules'), file('notes.yaml')],
    a: [file('one.agent.yaml'), file('one.agent.test.yaml'), folder('sub')],
    'a/sub': [file('two.agent.yml')],
    b: [file('three.agent.yaml')],
    node_modules: [file('hidden.agent.yaml')],
  };

  it('finds files by name depth first in name order, and never enters a skipped folder', async () => {
    const { reader, read } = mapReader(tree);
    const walk = await walkFiles('', AGENT_FILE, reader);
    assert.deepEqual(walk, { files: ['a/one.agent.yaml', 'a/sub/two.agent.yml', 'b/three.agent.yaml', 'z.agent.yaml'] });
    assert.deepEqual(read, ['', 'a', 'a/sub', 'b']);
  });

  it('stops at the most files asked for, and says so', async () => {
    const { reader } = mapReader(tree);
    assert.deepEqual(await walkFiles('', AGENT_FILE, reader, { maxFiles: 2 }), {
      files: ['a/one.agent.yaml', 'a/sub/two.agent.yml'],
      stopped: 'max-files',
    });
  });

  it('reads at most the folders allowed, and says so', async () => {
    const { reader, read } = mapReader(tree);
    assert.deepEqual(await walkFiles('', AGENT_FILE, reader, { maxDirectories: 2 }), {
      files: ['a/one.agent.yaml'],
      stopped: 'max-directories',
    });
    assert.deepEqual(read, ['', 'a']);
  });

  it('ends when cancelled, with what it found', async () => {
    const { reader, read } = mapReader(tree);
    const walk = await walkFiles('', AGENT_FILE, reader, { cancelled: () => read.length >= 2 });
    assert.deepEqual(walk, { files: ['a/one.agent.yaml'], stopped: 'cancelled' });
  });

  it('goes on past a folder it cannot read and says which; a top it cannot read fails', async () => {
    const { reader } = mapReader({ ...tree, a: [{ name: '!unreadable', kind: 'other' }] });
    const skipped: string[] = [];
    const walk = await walkFiles('', AGENT_FILE, reader, {
      onSkipped: (directory, error) => skipped.push(`${directory}: ${(error as Error).message}`),
    });
    assert.deepEqual(walk.files, ['b/three.agent.yaml', 'z.agent.yaml']);
    assert.deepEqual(skipped, ['a: permission denied: a']);
    const top = mapReader({ '': [{ name: '!unreadable', kind: 'other' }] });
    await assert.rejects(walkFiles('', AGENT_FILE, top.reader), /permission denied/);
  });

  it('finds nothing in a folder that is gone', async () => {
    assert.deepEqual(await walkFiles('gone', AGENT_FILE, mapReader(tree).reader), { files: [] });
  });

  it('takes a link whose name matches when it leads to a file, and asks about no other', async () => {
    const asked: string[] = [];
    const { reader } = mapReader(
      {
        '': [
          { name: 'to-file.agent.yaml', kind: 'link' },
          { name: 'to-folder.agent.yaml', kind: 'link' },
          { name: 'other', kind: 'link' },
        ],
      },
      { 'to-file.agent.yaml': true },
    );
    const linkIsFile = reader.linkIsFile;
    reader.linkIsFile = (location) => {
      asked.push(location);
      return linkIsFile(location);
    };
    assert.deepEqual((await walkFiles('', AGENT_FILE, reader)).files, ['to-file.agent.yaml']);
    assert.deepEqual(asked, ['to-file.agent.yaml', 'to-folder.agent.yaml']);
  });

  describe('reading ahead, several folders at a time', () => {
    /** A tree of `width` folders per level, `depth` levels, a file in each: answers come out of order. */
    function slowTree(width: number, depth: number, unreadable?: string) {
      const tree: Record<string, DirectoryEntry[]> = {};
      const fill = (path: string, level: number): void => {
        const entries: DirectoryEntry[] = [file(`f${level}.agent.yaml`), file('skip.txt')];
        if (level < depth)
          for (let i = 0; i < width; i++) {
            const name = `d${i}`;
            entries.push(folder(name));
            fill(path ? `${path}/${name}` : name, level + 1);
          }
        tree[path] = path === unreadable ? [{ name: '!unreadable', kind: 'other' }] : entries;
      };
      fill('', 0);
      const { reader, read } = mapReader(tree);
      let inFlight = 0;
      let mostInFlight = 0;
      let answered = 0;
      const list = reader.list;
      reader.list = async (directory) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        // Each answer takes its own number of turns, so that they come back out of order.
        for (let turns = (answered++ * 7) % 5; turns >= 0; turns--) await new Promise<void>((resolve) => setImmediate(resolve));
        inFlight--;
        return list(directory);
      };
      return { reader, read, mostInFlight: () => mostInFlight };
    }

    it('finds the same files in the same order, with at most that many reads under way', async () => {
      const sequential = slowTree(3, 4);
      const one = await walkFiles('', AGENT_FILE, sequential.reader);
      const several = slowTree(3, 4);
      assert.deepEqual(await walkFiles('', AGENT_FILE, several.reader, { concurrency: 4 }), one);
      assert.equal(one.files.length, 1 + 3 + 9 + 27 + 81);
      assert.equal(sequential.mostInFlight(), 1);
      assert.equal(several.mostInFlight(), 4);
      // Each folder read once.
      assert.equal(several.read.length, one.files.length);
      assert.equal(new Set(several.read).size, several.read.length);
    });

    it('stops at the most files, and at the most folders, as reading one at a time does', async () => {
      for (const limits of [{ maxFiles: 10 }, { maxFiles: 57 }, { maxDirectories: 5 }, { maxDirectories: 20 }]) {
        const one = await walkFiles('', AGENT_FILE, slowTree(3, 4).reader, limits);
        const several = slowTree(3, 4);
        const walk = await walkFiles('', AGENT_FILE, several.reader, { ...limits, concurrency: 4 });
        if ('maxFiles' in limits) assert.deepEqual(walk, one, JSON.stringify(limits));
        // Past the folders it may read, which were read may differ: never more, and what it found is a start of the whole.
        else {
          assert.equal(walk.stopped, 'max-directories');
          assert.ok(several.read.length <= limits.maxDirectories);
          assert.deepEqual(walk.files, one.files.slice(0, walk.files.length));
        }
      }
    });

    it('says which folder it could not read, in the walk, with the others found', async () => {
      const skipped: string[] = [];
      const several = slowTree(2, 3, 'd1/d0');
      const walk = await walkFiles('', AGENT_FILE, several.reader, { concurrency: 3, onSkipped: (directory) => skipped.push(directory) });
      assert.deepEqual(skipped, ['d1/d0']);
      assert.equal(walk.files.length, 1 + 2 + 4 + 8 - 3);
    });

    it('agrees with reading one at a time on 40 random trees, cut or not', async () => {
      // A seeded generator: the same trees on every run.
      let seed = 7;
      const random = (below: number): number => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % below;
      };
      for (let round = 0; round < 40; round++) {
        const tree: Record<string, DirectoryEntry[]> = {};
        const grow = (path: string, level: number): void => {
          const entries: DirectoryEntry[] = [];
          for (let i = random(5); i > 0; i--) entries.push(file(`${String.fromCharCode(97 + random(26))}${i}.agent.yaml`));
          if (level < 4) for (let i = random(4); i > 0; i--) entries.push(folder(`${random(2) ? 'node_modules' : 'd'}${i}`));
          tree[path] = entries;
          for (const entry of entries) if (entry.kind === 'directory') grow(path ? `${path}/${entry.name}` : entry.name, level + 1);
        };
        grow('', 0);
        const limits = random(2) ? { maxFiles: 1 + random(12) } : {};
        const one = await walkFiles('', AGENT_FILE, mapReader(tree).reader, limits);
        const slow = mapReader(tree);
        const list = slow.reader.list;
        slow.reader.list = async (directory) => {
          for (let turns = random(4); turns >= 0; turns--) await new Promise<void>((resolve) => setImmediate(resolve));
          return list(directory);
        };
        assert.deepEqual(await walkFiles('', AGENT_FILE, slow.reader, { ...limits, concurrency: 1 + random(6) }), one, `round ${round}`);
      }
    });

    it('reads nothing more once cancelled', async () => {
      const several = slowTree(3, 4);
      let cancelled = false;
      const walking = walkFiles('', AGENT_FILE, several.reader, { concurrency: 4, cancelled: () => cancelled });
      await new Promise<void>((resolve) => setImmediate(resolve));
      cancelled = true;
      const walk = await walking;
      assert.equal(walk.stopped, 'cancelled');
      assert.ok(several.read.length <= 1 + 4, `${several.read.length} folders read`);
    });
  });
});
