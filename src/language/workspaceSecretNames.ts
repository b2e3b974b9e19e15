// Secret names used across the workspace's agent files, for completion after "secrets.": at most
// MAX_FILES files, each within the agent file size limit, and MAX_NAMES names.
import * as vscode from 'vscode';
import { savedText } from '../workspaceFiles';
import { findWorkspaceFiles } from '../workspaceSearch';
import { AGENT_FILE_GLOB, AGENT_FILES } from './languageIds';

const SECRET_REFERENCE = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const MAX_FILES = 2000;
/** Names kept at most: a completion list, not an index. */
const MAX_NAMES = 1000;

export class WorkspaceSecretNames implements vscode.Disposable {
  private cache: Promise<Set<string>> | undefined;
  private readonly watcher = vscode.workspace.createFileSystemWatcher(AGENT_FILE_GLOB);

  constructor(private readonly logger: vscode.LogOutputChannel) {
    const invalidate = (): void => {
      this.cache = undefined;
    };
    this.watcher.onDidChange(invalidate);
    this.watcher.onDidCreate(invalidate);
    this.watcher.onDidDelete(invalidate);
  }

  /**
   * The names, read once and again only after an agent file changes on disk. The read is not
   * cancelled with the completion that asked first: a later one waits for the same read, and a
   * read cut short would be kept as if it had found every name.
   */
  names(): Promise<Set<string>> {
    this.cache ??= this.collect().catch((error: unknown) => {
      this.cache = undefined;
      throw error;
    });
    return this.cache;
  }

  dispose(): void {
    this.watcher.dispose();
  }

  private async collect(): Promise<Set<string>> {
    const names = new Set<string>();
    const files = await findWorkspaceFiles(AGENT_FILES, {
      max: MAX_FILES,
      onPartial: (why) => this.logger.warn(`Completion of secret names may leave out some: ${why}`),
    });
    for (const file of files) {
      if (names.size >= MAX_NAMES) break;
      // A file savedText refuses (over the size limit, not a regular file) is not an agent the
      // extension reads: its names are left out, and so are a file's that is gone.
      const text = await savedText(file).catch(() => undefined);
      if (text === undefined) continue;
      for (const match of text.matchAll(SECRET_REFERENCE)) {
        names.add(match[1]!);
        if (names.size >= MAX_NAMES) break;
      }
    }
    return names;
  }
}
