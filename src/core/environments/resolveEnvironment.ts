// Where the command line finds the environments file: walking up from an agent file on disk, no
// higher than the repository root or the current folder. Node's file system; the editor finds the
// file through VS Code instead. Which environment a run uses is selectEnvironment.ts, re-exported
// here for the command line.
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ENVIRONMENTS_FILE_NAME } from './environmentsFile';

export * from './selectEnvironment';

/** Where the command line looks for the environments file of a folder: from it up to stopDir. */
export interface EnvironmentsSearch {
  readonly startDir: string;
  readonly stopDir: string;
  /**
   * Why the search stops there: `repository`, the nearest folder holding .git; `current-folder`,
   * the current folder, outside any repository; `own-folder`, startDir itself, in neither.
   */
  readonly bound: 'repository' | 'current-folder' | 'own-folder';
}

/**
 * How far above startDir the command line looks for the environments file: up to the repository
 * root (the nearest folder with .git, a folder or a worktree's file), else up to the current folder
 * when startDir is in it, else startDir only. A file dropped in a shared parent folder (/tmp, a
 * home folder) is never picked up for an agent file it was not written for.
 */
export async function environmentsSearch(startDir: string, cwd: string): Promise<EnvironmentsSearch> {
  const start = resolve(startDir);
  const current = resolve(cwd);
  let currentSeen = false;
  for (let dir = start; ;) {
    if (await exists(join(dir, '.git'))) return { startDir: start, stopDir: dir, bound: 'repository' };
    currentSeen ||= dir === current;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return { startDir: start, stopDir: currentSeen ? current : start, bound: currentSeen ? 'current-folder' : 'own-folder' };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The nearest environments file walking up from startDir: startDir itself, then each parent, up
 * to stopDir (included) or the file system's root. Undefined when there is none.
 */
export async function findEnvironmentsFile(startDir: string, stopDir?: string): Promise<string | undefined> {
  let dir = resolve(startDir);
  const stop = stopDir === undefined ? undefined : resolve(stopDir);
  for (;;) {
    const candidate = join(dir, ENVIRONMENTS_FILE_NAME);
    try {
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not here (or not readable as a file): look further up.
    }
    const parent = dirname(dir);
    if (dir === stop || parent === dir) return undefined;
    dir = parent;
  }
}
