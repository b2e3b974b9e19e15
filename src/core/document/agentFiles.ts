// Which files are agent files, and the one directory walk that finds them (or agent test files):
// used by the command line (files named on it) and the local server (the folder it serves). The
// editor finds files through VS Code's own search, with language/agentDiagnostics.ts's glob.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileErrorReason } from './readTextFile';

export { AGENT_FILE, AGENT_FILE_ANY_CASE } from './agentFileName';

/** Directories no walk enters: dependencies, version control, build output, test downloads. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git', '.vscode-test', 'dist', 'out']);

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
  const found: string[] = [];
  await walk(directory, pattern, found, onSkipped, true, maxFiles);
  return found;
}

async function walk(
  directory: string,
  pattern: RegExp,
  found: string[],
  onSkipped: ((directory: string, reason: string) => void) | undefined,
  top: boolean,
  maxFiles: number,
): Promise<void> {
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if (top) throw error;
    onSkipped?.(directory, fileErrorReason(error));
    return;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (found.length >= maxFiles) return;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(path, pattern, found, onSkipped, false, maxFiles);
    } else if (pattern.test(entry.name) && (entry.isFile() || (entry.isSymbolicLink() && (await isRegularFile(path))))) {
      found.push(path);
    }
  }
}

async function isRegularFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
