// Which files are agent files, and finding them (or agent test files) on Node's file system: used
// by the command line (files named on it), the local server (the folder it serves) and the
// language server. The walk itself is fileWalk.ts's; the editor finds files through VS Code's own
// search (workspaceSearch.ts), and walks VS Code's file system where that search cannot answer.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { walkFiles } from './fileWalk';
import type { DirectoryReader } from './fileWalk';
import { fileErrorReason } from './readTextFile';

export { AGENT_FILE, AGENT_FILE_ANY_CASE } from './agentFileName';
export { SKIPPED_DIRECTORIES } from './fileWalk';

/**
 * Every file below `directory` whose name matches `pattern`, depth first in name order, skipping
 * SKIPPED_DIRECTORIES. A matching symbolic link is found when it leads to a regular file; linked
 * directories are not entered (a link may lead back up). A directory removed while walking has no
 * files (a server rescans while files change); a subdirectory that cannot be read (permission
 * denied) is left out and given to `onSkipped` with why; an error reading `directory` itself is thrown.
 * The walk stops once it found `maxFiles`.
 */
export async function findFilesUnder(
  directory: string,
  pattern: RegExp,
  onSkipped?: (directory: string, reason: string) => void,
  maxFiles = Number.POSITIVE_INFINITY,
): Promise<string[]> {
  const walk = await walkFiles(directory, pattern, NODE_DIRECTORIES, {
    maxFiles,
    // Node reads directories on its thread pool: a few at once (18,000 folders: 0.86 s → 0.61 s).
    concurrency: READ_CONCURRENCY,
    ...(onSkipped ? { onSkipped: (skipped: string, error: unknown) => onSkipped(skipped, fileErrorReason(error)) } : {}),
  });
  return walk.files;
}

/** Directories read at the same time: as many as Node's thread pool has threads, and a few more. */
const READ_CONCURRENCY = 8;

const NODE_DIRECTORIES: DirectoryReader<string> = {
  async list(directory) {
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return entries.map((entry) => ({
      name: entry.name,
      kind: entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'link' : 'other',
    }));
  },
  child: (directory, name) => join(directory, name),
  async linkIsFile(path) {
    try {
      return (await stat(path)).isFile();
    } catch {
      return false;
    }
  },
};
