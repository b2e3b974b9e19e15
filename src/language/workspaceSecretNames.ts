// Secret names used across the workspace's agent files, for completion after "secrets.": at most
// MAX_FILES files, each within the agent file size limit, and MAX_NAMES names; cancellable.
import * as vscode from 'vscode';
import { MAX_FILE_BYTES } from '../core/limits';
import { AGENT_FILE_GLOB } from './languageIds';

const SECRET_REFERENCE = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const MAX_FILES = 2000;
/** Names kept at most: a completion list, not an index. */
const MAX_NAMES = 1000;

export class WorkspaceSecretNames implements vscode.Disposable {
  private cache: Promise<Set<string>> | undefined;
  private readonly watcher = vscode.workspace.createFileSystemWatcher(AGENT_FILE_GLOB);

  constructor() {
    const invalidate = (): void => {
      this.cache = undefined;
    };
    this.watcher.onDidChange(invalidate);
    this.watcher.onDidCreate(invalidate);
    this.watcher.onDidDelete(invalidate);
  }

  /** The names, read once and again only after an agent file changes on disk. */
  names(token?: vscode.CancellationToken): Promise<Set<string>> {
    this.cache ??= this.collect(token).catch((error: unknown) => {
      this.cache = undefined;
      throw error;
    });
    return this.cache;
  }

  dispose(): void {
    this.watcher.dispose();
  }

  private async collect(token?: vscode.CancellationToken): Promise<Set<string>> {
    const names = new Set<string>();
    const files = await vscode.workspace.findFiles(AGENT_FILE_GLOB, '**/node_modules/**', MAX_FILES, token);
    for (const file of files) {
      // A cancelled read would be kept half done: it throws instead (names() forgets a failed read).
      if (token?.isCancellationRequested) throw new vscode.CancellationError();
      if (names.size >= MAX_NAMES) break;
      // A file over the limit is not an agent the extension reads: it is not read here either.
      if ((await vscode.workspace.fs.stat(file)).size > MAX_FILE_BYTES) continue;
      const text = Buffer.from(await vscode.workspace.fs.readFile(file)).toString('utf8');
      for (const match of text.matchAll(SECRET_REFERENCE)) {
        names.add(match[1]!);
        if (names.size >= MAX_NAMES) break;
      }
    }
    return names;
  }
}
