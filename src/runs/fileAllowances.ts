// The folders the user allowed when a run asked ("Allow files from <folder>?"): kept for this
// workspace on this machine, in workspace state, never in the workspace's own files, which may be
// someone else's (a repository's .vscode/settings.json cannot widen where its files come from).
import type * as vscode from 'vscode';

const KEY = 'agentWorkflows.files.allowed';
/** Folders kept at most; the oldest allowed go first. */
const MAX_FOLDERS = 64;

export class FileAllowances {
  constructor(private readonly state: vscode.Memento) {}

  folders(): string[] {
    const stored = this.state.get<unknown>(KEY);
    return Array.isArray(stored) ? stored.filter((entry): entry is string => typeof entry === 'string') : [];
  }

  async add(folders: readonly string[]): Promise<void> {
    const kept = this.folders().filter((folder) => !folders.includes(folder));
    await this.state.update(KEY, [...kept, ...folders].slice(-MAX_FOLDERS));
  }

  async remove(folders: readonly string[]): Promise<void> {
    await this.state.update(
      KEY,
      this.folders().filter((folder) => !folders.includes(folder)),
    );
  }
}
