// Secret names used across the workspace's agent files, for completion after "secrets.".
import * as vscode from 'vscode';
import { AGENT_FILE_GLOB } from './languageIds';

const SECRET_REFERENCE = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const MAX_FILES = 2000;

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
      const text = Buffer.from(await vscode.workspace.fs.readFile(file)).toString('utf8');
      for (const match of text.matchAll(SECRET_REFERENCE)) names.add(match[1]!);
    }
    return names;
  }
}
