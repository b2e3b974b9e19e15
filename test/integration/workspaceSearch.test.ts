// Finding the workspace's files where VS Code's search cannot answer (src/workspaceSearch.ts), in
// the real extension host: a file system registered here, with no search provider, as a virtual
// one in VS Code for the Web is. vscode.workspace.findFiles never answers for it; the search is
// waited for (on a fake clock) and then the folder is read through vscode.workspace.fs, and the
// next search reads it at once. On disk (file:), VS Code's search answers and is used.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { MAX_WALKED_DIRECTORIES } from '../../src/core/limits';
import { AGENT_FILES, TEST_FILES } from '../../src/language/languageIds';
import { SEARCH_WAIT_MS, findWorkspaceFiles } from '../../src/workspaceSearch';
import { FakeClock } from '../support/fakeClock';
import { workspaceUri } from './workspace';

const SCHEME = 'aw-search-test';

/** A read-only file system of folders and empty files, given by path; it counts the folders read. */
class FolderTree implements vscode.FileSystemProvider {
  readonly directoriesRead: string[] = [];
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  /** Each folder's entries, by the folder's path. */
  private readonly children = new Map<string, [string, vscode.FileType][]>();

  constructor(private readonly entries: ReadonlyMap<string, vscode.FileType>) {
    for (const [path, type] of entries) {
      const slash = path.lastIndexOf('/');
      const parent = slash === 0 ? '/' : path.slice(0, slash);
      const list = this.children.get(parent) ?? [];
      list.push([path.slice(slash + 1), type]);
      this.children.set(parent, list);
    }
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const type = uri.path === '/' ? vscode.FileType.Directory : this.entries.get(uri.path);
    if (type === undefined) throw vscode.FileSystemError.FileNotFound(uri);
    return { type, ctime: 0, mtime: 0, size: 0 };
  }

  readDirectory(uri: vscode.Uri): [string, vscode.FileType][] {
    this.directoriesRead.push(uri.path);
    if (uri.path !== '/' && this.entries.get(uri.path) !== vscode.FileType.Directory) throw vscode.FileSystemError.FileNotFound(uri);
    return this.children.get(uri.path) ?? [];
  }

  readFile(): Uint8Array {
    return new Uint8Array();
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }
  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
  writeFile(): void {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
  delete(): void {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
  rename(): void {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
}

/** The entries of a tree of files: each path's folders are made too. */
function treeOf(files: readonly string[], links: Record<string, vscode.FileType> = {}): Map<string, vscode.FileType> {
  const entries = new Map<string, vscode.FileType>();
  for (const file of files) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) entries.set(`/${parts.slice(0, i).join('/')}`, vscode.FileType.Directory);
    entries.set(`/${file}`, vscode.FileType.File);
  }
  for (const [path, type] of Object.entries(links)) entries.set(`/${path}`, type);
  return entries;
}

const paths = (uris: readonly vscode.Uri[]): string[] => uris.map((uri) => uri.path).sort();

describe('finding files where VS Code cannot search', function () {
  this.timeout(30_000);
  const registrations: vscode.Disposable[] = [];
  afterEach(() => {
    for (const registration of registrations.splice(0)) registration.dispose();
  });

  function mount(scheme: string, tree: FolderTree): vscode.Uri {
    registrations.push(vscode.workspace.registerFileSystemProvider(scheme, tree, { isReadonly: true }));
    return vscode.Uri.from({ scheme, path: '/' });
  }

  it('waits for the search once, then reads the folders, skipping dependencies and build output', async () => {
    const tree = new FolderTree(
      treeOf(
        [
          'a.agent.yaml',
          'b/c.agent.yml',
          'b/c.agent.test.yaml',
          'b/notes.yaml',
          'node_modules/pkg/hidden.agent.yaml',
          'dist/built.agent.yaml',
          '.git/x.agent.yaml',
        ],
        // A link to a file is found (VS Code says what it leads to); a link to a folder is not entered.
        {
          'linked.agent.yaml': vscode.FileType.SymbolicLink | vscode.FileType.File,
          loop: vscode.FileType.SymbolicLink | vscode.FileType.Directory,
        },
      ),
    );
    const root = mount(SCHEME, tree);
    const clock = new FakeClock();
    const waiting = clock.nextTimer();
    const searching = findWorkspaceFiles(AGENT_FILES, { under: root, max: 100 }, clock);
    await waiting;
    assert.deepEqual(clock.waits, [SEARCH_WAIT_MS]);
    assert.deepEqual(tree.directoriesRead, [], 'nothing is read while the search is waited for');
    clock.advance(SEARCH_WAIT_MS);
    assert.deepEqual(paths(await searching), ['/a.agent.yaml', '/b/c.agent.yml', '/linked.agent.yaml']);
    assert.deepEqual(tree.directoriesRead.sort(), ['/', '/b']);

    // The scheme is known now: the next search reads at once, with no wait.
    const tests = await findWorkspaceFiles(TEST_FILES, { under: root, max: 100 }, clock);
    assert.deepEqual(paths(tests), ['/b/c.agent.test.yaml']);
    assert.deepEqual(clock.waits, [SEARCH_WAIT_MS]);
    assert.equal(clock.pending, 0);
  });

  it('stops at the files asked for, and at the folders it may read, saying so', async () => {
    const folders = Array.from({ length: MAX_WALKED_DIRECTORIES + 5 }, (_, i) => `f${String(i).padStart(5, '0')}/x.agent.yaml`);
    const tree = new FolderTree(treeOf(folders));
    const root = mount(`${SCHEME}-many`, tree);
    const clock = new FakeClock();
    const waiting = clock.nextTimer();
    const first = findWorkspaceFiles(AGENT_FILES, { under: root, max: 3 }, clock);
    await waiting;
    clock.advance(SEARCH_WAIT_MS);
    assert.deepEqual(paths(await first), ['/f00000/x.agent.yaml', '/f00001/x.agent.yaml', '/f00002/x.agent.yaml']);

    const partial: string[] = [];
    const all = await findWorkspaceFiles(AGENT_FILES, { under: root, max: 100_000, onPartial: (why) => partial.push(why) }, clock);
    // The top folder is one of the folders read.
    assert.equal(all.length, MAX_WALKED_DIRECTORIES - 1);
    assert.equal(partial.length, 1);
    assert.match(
      partial[0]!,
      new RegExp(`through its first ${MAX_WALKED_DIRECTORIES} folders only: VS Code cannot search this file system`),
    );
  });

  it('answers nothing at once when cancelled while it waits for the search', async () => {
    const tree = new FolderTree(treeOf(['a.agent.yaml']));
    const root = mount(`${SCHEME}-cancel`, tree);
    const clock = new FakeClock();
    const source = new vscode.CancellationTokenSource();
    const waiting = clock.nextTimer();
    const searching = findWorkspaceFiles(AGENT_FILES, { under: root, max: 10, token: source.token }, clock);
    await waiting;
    source.cancel();
    assert.deepEqual(await searching, []);
    assert.equal(clock.pending, 0, 'the wait is cleared');
    assert.deepEqual(tree.directoriesRead, []);
  });

  it("uses VS Code's search on disk, without waiting", async () => {
    const clock = new FakeClock();
    const found = await findWorkspaceFiles(AGENT_FILES, { under: workspaceUri(), max: 500 }, clock);
    assert.ok(
      found.some((uri) => uri.path.endsWith('/hello.agent.yaml')),
      found.map((uri) => uri.path).join(', '),
    );
    assert.deepEqual(clock.waits, []);
  });
});
