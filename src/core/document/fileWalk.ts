// The one directory walk that finds files by name, over any file system: Node's (the command line,
// the local server, the language server: agentFiles.ts) and VS Code's (workspaces whose file
// system has no search provider, such as a virtual one in VS Code for the Web, where
// vscode.workspace.findFiles never answers). No Node here, so that the browser build has it too.

/** Directories no walk enters: dependencies, version control, build output, test downloads. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git', '.vscode-test', 'dist', 'out']);

/** What a directory holds, as the walk needs it: a link to a file is asked about when its name matches. */
export interface DirectoryEntry {
  readonly name: string;
  readonly kind: 'file' | 'directory' | 'link' | 'other';
}

/** A file system as the walk reads it, with its own kind of location (a path, a URI). */
export interface DirectoryReader<Location> {
  /** The entries of a directory; undefined when it no longer exists. Throws when it cannot be read. */
  list(directory: Location): Promise<DirectoryEntry[] | undefined>;
  child(directory: Location, name: string): Location;
  /** Whether a link leads to a regular file (links to directories are not entered: one may lead back up). */
  linkIsFile(location: Location): Promise<boolean>;
}

export interface FileWalkOptions<Location> {
  readonly maxFiles?: number;
  /** Directories read at most (on a remote file system each is a request). */
  readonly maxDirectories?: number;
  /** Asked before each directory is read: true ends the walk with what it found. */
  readonly cancelled?: () => boolean;
  /** A subdirectory that could not be read, and why (the walk goes on without it). */
  readonly onSkipped?: (directory: Location, error: unknown) => void;
}

export interface FileWalk<Location> {
  readonly files: Location[];
  /** Why the walk ended before it saw everything, if it did. */
  readonly stopped?: 'max-files' | 'max-directories' | 'cancelled';
}

/**
 * Every file below `root` whose name matches `pattern`, depth first in name order, skipping
 * SKIPPED_DIRECTORIES. A directory removed while walking has no files; an error reading `root`
 * itself is thrown. Linear in the entries read.
 */
export async function walkFiles<Location>(
  root: Location,
  pattern: RegExp,
  reader: DirectoryReader<Location>,
  options: FileWalkOptions<Location> = {},
): Promise<FileWalk<Location>> {
  const maxFiles = options.maxFiles ?? Number.POSITIVE_INFINITY;
  const maxDirectories = options.maxDirectories ?? Number.POSITIVE_INFINITY;
  const files: Location[] = [];
  let directories = 0;
  let stopped: FileWalk<Location>['stopped'];
  const walk = async (directory: Location, top: boolean): Promise<void> => {
    if (options.cancelled?.()) {
      stopped = 'cancelled';
      return;
    }
    if (directories >= maxDirectories) {
      stopped = 'max-directories';
      return;
    }
    directories++;
    let entries: DirectoryEntry[] | undefined;
    try {
      entries = await reader.list(directory);
    } catch (error) {
      if (top) throw error;
      options.onSkipped?.(directory, error);
      return;
    }
    if (!entries) return;
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (stopped) return;
      if (files.length >= maxFiles) {
        stopped = 'max-files';
        return;
      }
      const location = reader.child(directory, entry.name);
      if (entry.kind === 'directory') {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(location, false);
      } else if (pattern.test(entry.name) && (entry.kind === 'file' || (entry.kind === 'link' && (await reader.linkIsFile(location))))) {
        files.push(location);
      }
    }
  };
  await walk(root, true);
  return stopped ? { files, stopped } : { files };
}
