// The workspace's files of one kind, for every feature that looks across files. VS Code's search
// (vscode.workspace.findFiles) answers for files on disk and in remote folders, but it never
// answers for a file system that has no search provider, such as a virtual one in VS Code for the
// Web (microsoft/vscode#228990): there the folder is walked through vscode.workspace.fs instead,
// bounded, with the one walk of the core. Which schemes the search answers for is learnt on first
// use, and again when a search answers after it stopped being waited for.
import * as vscode from 'vscode';
import { SYSTEM_CLOCK } from './core/clock';
import type { Clock } from './core/clock';
import { SKIPPED_DIRECTORIES, walkFiles } from './core/document/fileWalk';
import type { DirectoryEntry, DirectoryReader } from './core/document/fileWalk';
import { MAX_WALKED_DIRECTORIES } from './core/limits';

/** A kind of file, as VS Code's search finds it and as the walk does. */
export interface WorkspaceFileKind {
  /** A glob below each folder searched, for vscode.workspace.findFiles. */
  readonly glob: string;
  /** The same files by name, for the walk. */
  readonly name: RegExp;
}

export interface WorkspaceFileQuery {
  /** Only below this folder; every workspace folder when not given. */
  readonly under?: vscode.Uri;
  /** Files found at most, as findFiles' maxResults. */
  readonly max: number;
  readonly token?: vscode.CancellationToken;
  /** Why a walk saw only part of a folder (too many directories), to log. */
  readonly onPartial?: (why: string) => void;
}

/** Schemes whose search is known to answer: VS Code searches files on disk and in remote folders. */
const SEARCHED_SCHEMES = new Set(['file', 'vscode-remote']);
/** How long a search of another scheme is waited for, the first time, before its folder is walked. */
export const SEARCH_WAIT_MS = 3000;
/** Per scheme: whether its search answered (true) or not in time (false); learnt on first use. */
const searchAnswers = new Map<string, boolean>();

/** Folders read at the same time when a folder is walked. */
const WALK_CONCURRENCY = 8;
/** Directories no search enters: the walk's, as a glob. */
const EXCLUDE = `{${[...SKIPPED_DIRECTORIES].map((name) => `**/${name}/**`).join(',')}}`;

/** The files of `kind` below the folders searched, at most `query.max`, in no particular order. */
export async function findWorkspaceFiles(
  kind: WorkspaceFileKind,
  query: WorkspaceFileQuery,
  clock: Clock = SYSTEM_CLOCK,
): Promise<vscode.Uri[]> {
  const roots = query.under ? [query.under] : (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri);
  const found: vscode.Uri[] = [];
  for (const root of roots) {
    if (found.length >= query.max || query.token?.isCancellationRequested) break;
    const max = query.max - found.length;
    const searched = await search(root, kind, max, query.token, clock);
    found.push(...(searched ?? (await walk(root, kind, max, query))));
  }
  return found;
}

/** VS Code's search of one folder; undefined when it does not answer for the folder's scheme. */
async function search(
  root: vscode.Uri,
  kind: WorkspaceFileKind,
  max: number,
  token: vscode.CancellationToken | undefined,
  clock: Clock,
): Promise<vscode.Uri[] | undefined> {
  const pattern = new vscode.RelativePattern(root, kind.glob);
  const answers = SEARCHED_SCHEMES.has(root.scheme) || searchAnswers.get(root.scheme);
  if (answers === true) return vscode.workspace.findFiles(pattern, EXCLUDE, max, token);
  if (answers === false) return undefined;
  // The first search of a scheme is made without the caller's token, and let run when it is not
  // waited for: should it answer later (a large repository being indexed), the next searches use
  // it. A cancelled search would answer too, with nothing, and prove nothing.
  const probe = Promise.resolve(vscode.workspace.findFiles(pattern, EXCLUDE, max));
  probe.then(
    () => searchAnswers.set(root.scheme, true),
    () => undefined,
  );
  let timer: unknown;
  let cancelled: vscode.Disposable | undefined;
  try {
    const answered = await Promise.race([
      probe,
      new Promise<undefined>((resolve) => {
        timer = clock.setTimeout(() => resolve(undefined), SEARCH_WAIT_MS);
      }),
      new Promise<undefined>((resolve) => {
        cancelled = token?.onCancellationRequested(() => resolve(undefined));
      }),
    ]);
    if (token?.isCancellationRequested) return [];
    if (answered === undefined && !searchAnswers.has(root.scheme)) searchAnswers.set(root.scheme, false);
    return answered;
  } finally {
    clock.clearTimeout(timer);
    cancelled?.dispose();
  }
}

async function walk(root: vscode.Uri, kind: WorkspaceFileKind, max: number, query: WorkspaceFileQuery): Promise<vscode.Uri[]> {
  const walked = await walkFiles(root, kind.name, WORKSPACE_DIRECTORIES, {
    maxFiles: max,
    maxDirectories: MAX_WALKED_DIRECTORIES,
    // Each read is a round trip through the workbench to the file system's extension: several at once.
    concurrency: WALK_CONCURRENCY,
    cancelled: () => query.token?.isCancellationRequested ?? false,
  });
  if (walked.stopped === 'max-directories')
    query.onPartial?.(
      `${root.toString(true)} was searched through its first ${MAX_WALKED_DIRECTORIES} folders only: VS Code cannot search this file system, so its folders are read one by one.`,
    );
  return walked.files;
}

/** VS Code's file system, as the walk reads it: a link's entry already says what it leads to. */
const WORKSPACE_DIRECTORIES: DirectoryReader<vscode.Uri> = {
  async list(directory) {
    let entries: [string, vscode.FileType][];
    try {
      entries = await vscode.workspace.fs.readDirectory(directory);
    } catch (error) {
      if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return undefined;
      throw error;
    }
    return entries.map(([name, type]): DirectoryEntry => ({ name, kind: entryKind(type) }));
  },
  child: (directory, name) => vscode.Uri.joinPath(directory, name),
  linkIsFile: () => Promise.resolve(false),
};

function entryKind(type: vscode.FileType): DirectoryEntry['kind'] {
  // A link to a directory is not entered: it may lead back up.
  if (type & vscode.FileType.SymbolicLink) return type & vscode.FileType.File ? 'file' : 'other';
  if (type & vscode.FileType.Directory) return 'directory';
  return type & vscode.FileType.File ? 'file' : 'other';
}
