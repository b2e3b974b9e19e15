// A virtual file system for the browser build's UI test, as github.dev and vscode.dev give an
// extension: a test-only web extension (a `browser` entry, no Node) that serves the `memfs:` scheme
// from memory, seeded with the files it is packaged with. The workspace is then `memfs:/workspace`,
// so every file the extension under test reads goes through VS Code's file system API to it. It
// counts what it serves; its command "Memfs: Report" shows the active editor's URI and the files read.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const MEMFS_SCHEME = 'memfs';
export const MEMFS_ROOT = `${MEMFS_SCHEME}:/workspace`;
export const MEMFS_EXTENSION_ID = 'agent-workflows-tests.memfs-fixture';

/** The extension's one file: a FileSystemProvider over a Map, the files given as JSON. */
function extensionSource(files: Readonly<Record<string, string>>): string {
  return `'use strict';
const vscode = require('vscode');
const FILES = ${JSON.stringify(files)};

class MemoryFileSystem {
  constructor() {
    this.entries = new Map([['/', { type: vscode.FileType.Directory, mtime: Date.now() }]]);
    this.reads = new Set();
    this.emitter = new vscode.EventEmitter();
    this.onDidChangeFile = this.emitter.event;
    const now = Date.now();
    for (const [path, text] of Object.entries(FILES)) {
      const parts = path.split('/').filter(Boolean);
      for (let i = 1; i < parts.length; i++) {
        const dir = '/' + parts.slice(0, i).join('/');
        if (!this.entries.has(dir)) this.entries.set(dir, { type: vscode.FileType.Directory, mtime: now });
      }
      this.entries.set('/' + parts.join('/'), { type: vscode.FileType.File, mtime: now, data: new TextEncoder().encode(text) });
    }
  }
  entry(uri) {
    const found = this.entries.get(uri.path.replace(/\\/+$/, '') || '/');
    if (!found) throw vscode.FileSystemError.FileNotFound(uri);
    return found;
  }
  watch() { return new vscode.Disposable(() => undefined); }
  stat(uri) {
    const entry = this.entry(uri);
    return { type: entry.type, ctime: entry.mtime, mtime: entry.mtime, size: entry.data ? entry.data.byteLength : 0 };
  }
  readDirectory(uri) {
    const dir = this.entry(uri);
    if (dir.type !== vscode.FileType.Directory) throw vscode.FileSystemError.FileNotADirectory(uri);
    const prefix = uri.path === '/' ? '/' : uri.path.replace(/\\/+$/, '') + '/';
    const children = [];
    for (const [path, entry] of this.entries) {
      if (path.startsWith(prefix) && path.length > prefix.length && !path.slice(prefix.length).includes('/')) {
        children.push([path.slice(prefix.length), entry.type]);
      }
    }
    return children;
  }
  readFile(uri) {
    const entry = this.entry(uri);
    if (entry.type !== vscode.FileType.File) throw vscode.FileSystemError.FileIsADirectory(uri);
    this.reads.add(uri.path);
    return entry.data;
  }
  writeFile(uri, content, options) {
    const existing = this.entries.get(uri.path);
    if (!existing && !options.create) throw vscode.FileSystemError.FileNotFound(uri);
    if (existing && !options.overwrite) throw vscode.FileSystemError.FileExists(uri);
    this.entries.set(uri.path, { type: vscode.FileType.File, mtime: Date.now(), data: content });
    this.emitter.fire([{ type: existing ? vscode.FileChangeType.Changed : vscode.FileChangeType.Created, uri }]);
  }
  createDirectory(uri) {
    this.entries.set(uri.path, { type: vscode.FileType.Directory, mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Created, uri }]);
  }
  delete(uri) {
    for (const path of [...this.entries.keys()]) if (path === uri.path || path.startsWith(uri.path + '/')) this.entries.delete(path);
    this.emitter.fire([{ type: vscode.FileChangeType.Deleted, uri }]);
  }
  rename(from, to) {
    const entry = this.entry(from);
    this.entries.delete(from.path);
    this.entries.set(to.path, entry);
    this.emitter.fire([{ type: vscode.FileChangeType.Deleted, uri: from }, { type: vscode.FileChangeType.Created, uri: to }]);
  }
}

exports.activate = function (context) {
  const memfs = new MemoryFileSystem();
  context.subscriptions.push(
    vscode.workspace.registerFileSystemProvider('${MEMFS_SCHEME}', memfs, { isCaseSensitive: true }),
    vscode.commands.registerCommand('memfsFixture.report', () => {
      const active = vscode.window.activeTextEditor;
      const node = typeof process !== 'undefined' && !!(process.versions && process.versions.node);
      void vscode.window.showInformationMessage(
        'memfs report: active ' + (active ? active.document.uri.toString() : 'none') +
          ' | read ' + [...memfs.reads].sort().join(', ') + ' | node ' + node,
      );
    }),
  );
};
`;
}

/** Every file under dir, by its path relative to it with forward slashes. */
export function filesUnder(dir: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[`${prefix}${relative(dir, path).split(sep).join('/')}`] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/**
 * Writes the extension's folder (its manifest and its one file) into dir, the files served under
 * /workspace/. It is packaged with vsce like the extension under test.
 */
export function writeMemfsExtension(dir: string, files: Readonly<Record<string, string>>): void {
  mkdirSync(dir, { recursive: true });
  const served = Object.fromEntries(Object.entries(files).map(([path, text]) => [`/workspace/${path}`, text]));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'memfs-fixture',
        displayName: 'Memory file system (test fixture)',
        publisher: 'agent-workflows-tests',
        version: '0.0.1',
        license: 'MIT',
        engines: { vscode: '^1.90.0' },
        browser: './extension.js',
        activationEvents: [`onFileSystem:${MEMFS_SCHEME}`],
        contributes: { commands: [{ command: 'memfsFixture.report', title: 'Memfs: Report' }] },
      },
      null,
      2,
    ),
  );
  writeFileSync(join(dir, 'extension.js'), extensionSource(served));
  writeFileSync(join(dir, 'LICENSE'), 'MIT (test fixture)\n');
  writeFileSync(join(dir, 'README.md'), '# memfs fixture\nA virtual file system for the UI tests.\n');
}
