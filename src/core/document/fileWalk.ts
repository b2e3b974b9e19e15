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
  /**
   * Directories read at the same time (default 1): past 1, the folders the walk comes to next are
   * read ahead of it, for a file system where each read waits on a round trip. What is found, and
   * in which order, is the same; past `maxDirectories`, which folders were read may differ.
   */
  readonly concurrency?: number;
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

/** A directory's entries (undefined when it is gone), or why they could not be read. */
type Listing = { readonly entries: DirectoryEntry[] | undefined } | { readonly error: unknown };

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
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const files: Location[] = [];
  let stopped: FileWalk<Location>['stopped'];
  /** Reads started ahead of the walk, by directory (with concurrency past 1 only); taken once. */
  const reads = new Map<Location, Promise<Listing> | 'taken'>();
  let readCount = 0;
  let active = 0;
  /** Directories to read ahead, the next on top: the walk's own order, depth first. */
  const ahead: Location[] = [];

  const read = (directory: Location): Promise<Listing> => {
    readCount++;
    active++;
    const listing = reader.list(directory).then(
      (entries): Listing => ({ entries }),
      (error: unknown): Listing => ({ error }),
    );
    if (concurrency > 1) reads.set(directory, listing);
    void listing.then(() => {
      active--;
      readAhead();
    });
    return listing;
  };
  const readAhead = (): void => {
    while (active < concurrency && ahead.length > 0 && !stopped && readCount < maxDirectories && !options.cancelled?.()) {
      const next = ahead.pop()!;
      if (!reads.has(next)) void read(next);
    }
  };

  const walk = async (directory: Location, top: boolean): Promise<void> => {
    if (options.cancelled?.()) {
      stopped = 'cancelled';
      return;
    }
    const prefetched = reads.get(directory);
    if (prefetched === undefined && readCount >= maxDirectories) {
      stopped = 'max-directories';
      return;
    }
    const listing = await (prefetched instanceof Promise ? prefetched : read(directory));
    // Its entries are let go once walked; the key stays, so that it is not read ahead again.
    if (concurrency > 1) reads.set(directory, 'taken');
    if ('error' in listing) {
      if (top) throw listing.error;
      options.onSkipped?.(directory, listing.error);
      return;
    }
    if (!listing.entries) return;
    const entries = listing.entries
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((entry) => ({ entry, location: reader.child(directory, entry.name) }));
    if (concurrency > 1) {
      for (let i = entries.length - 1; i >= 0; i--) {
        const { entry, location } = entries[i]!;
        if (entry.kind === 'directory' && !SKIPPED_DIRECTORIES.has(entry.name)) ahead.push(location);
      }
      readAhead();
    }
    for (const { entry, location } of entries) {
      if (stopped) return;
      if (files.length >= maxFiles) {
        stopped = 'max-files';
        return;
      }
      if (entry.kind === 'directory') {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(location, false);
      } else if (pattern.test(entry.name) && (entry.kind === 'file' || (entry.kind === 'link' && (await reader.linkIsFile(location))))) {
        files.push(location);
      }
    }
  };
  try {
    await walk(root, true);
  } finally {
    // Reads under way are let finish; none is started after the walk.
    ahead.length = 0;
  }
  return stopped ? { files, stopped } : { files };
}
