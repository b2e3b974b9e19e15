// Whether a file named by another file (a data file's cell, a test case's `files:`) may be read and
// sent: the one place that decides it. A path stays inside the naming file's folder (its real path,
// symbolic links followed): no absolute path, no `..` out, no link out, unless the real path is
// inside a folder the user allowed (the command line's --allow-files-from, the editor's setting).
// A data file or test file from someone else must not be able to upload ~/.ssh/id_rsa. The answer is
// a code and facts; each adapter words the way to allow a folder. A file allowed is also typed by
// its content (contentType.ts), so that `accept:` is checked against what it is.
import { realpathSync } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { contentTypeOf, SNIFF_BYTES } from './contentType';

export type FileRefusalCode = 'absolute-path' | 'outside-folder' | 'link-outside' | 'not-found' | 'not-a-file';

/** Why a named file is not read, with what a message needs. */
export interface FileRefusal {
  readonly code: FileRefusalCode;
  /** The path as the naming file gives it. */
  readonly given: string;
  /** The naming file's folder, which relative paths are read from. */
  readonly folder: string;
  /** The path resolved against the folder. */
  readonly resolved: string;
  /** Where it really is (links followed), when it exists. */
  readonly realPath?: string;
  /**
   * The folder that, allowed, would let it be read (the real path's folder), for the refusals an
   * allowance lifts (absolute-path, outside-folder, link-outside).
   */
  readonly allowFolder?: string;
}

/** A file that may be read: by its real path, with its type as its content tells it. */
export interface AllowedFile {
  /** The real path (links followed): what is read and sent. */
  readonly path: string;
  /** The media type it is sent and checked as. */
  readonly type: string;
  /** False when the content contradicts the name's extension. */
  readonly extensionTrusted: boolean;
}

export interface FileAccessRules {
  /** The naming file's folder. */
  readonly folder: string;
  /** Folders whose files may be read whatever names them (their real paths are compared). */
  readonly allowedFolders?: readonly string[];
  /** Files the user chose themselves (in a file picker), read wherever they are (real paths compared). */
  readonly chosenFiles?: readonly string[];
}

export type FileAccess = { readonly ok: true; readonly file: AllowedFile } | { readonly ok: false; readonly refusal: FileRefusal };

/** Decides whether the file `given` names (relative to `rules.folder`) may be read. */
export async function checkFileAccess(given: string, rules: FileAccessRules): Promise<FileAccess> {
  const folder = resolve(rules.folder);
  const resolved = resolve(folder, given);
  const real = await realpath(resolved).catch(() => undefined);
  const place: Place<Promise<string>> = {
    given,
    folder,
    resolved,
    real,
    allowed: await realPaths(rules.allowedFolders ?? []),
    chosen: await realPaths(rules.chosenFiles ?? []),
    realFolder: async () => (await realpath(folder).catch(() => undefined)) ?? folder,
  };
  const refused = await placeRefusal(place);
  if (refused) return refused;
  const info = await stat(real!).catch(() => undefined);
  if (!info?.isFile()) return refusal(info ? 'not-a-file' : 'not-found', place);
  const head = await readHead(real!).catch(() => new Uint8Array());
  // The name given decides the claimed type (a link named cute.png claims image/png).
  return { ok: true, file: { path: real!, ...contentTypeOf(given, head) } };
}

/**
 * The same rule as checkFileAccess, synchronously, for a reader that must answer at once (the
 * language server's checks): whether the file `given` names is in a place it may be read from.
 * Only the place is decided: what is there (a file or not) is the reader's to find out.
 */
export function checkFilePlaceSync(
  given: string,
  rules: FileAccessRules,
): { readonly ok: true; readonly realPath: string | undefined } | { readonly ok: false; readonly refusal: FileRefusal } {
  const folder = resolve(rules.folder);
  const resolved = resolve(folder, given);
  const real = realPathSync(resolved);
  const place: Place<string> = {
    given,
    folder,
    resolved,
    real,
    allowed: realPathsSync(rules.allowedFolders ?? []),
    chosen: realPathsSync(rules.chosenFiles ?? []),
    realFolder: () => realPathSync(folder) ?? folder,
  };
  const refused = placeRefusalSync(place);
  return refused && refused.refusal.code !== 'not-found' ? refused : { ok: true, realPath: real };
}

/** What the rule needs to know of a named file: where it is, lexically and really (links followed). */
interface Place<RealFolder> {
  readonly given: string;
  readonly folder: string;
  readonly resolved: string;
  readonly real: string | undefined;
  /** The real paths of the allowed folders and of the chosen files. */
  readonly allowed: readonly string[];
  readonly chosen: readonly string[];
  /** The naming file's folder, links followed (asked only for a path lexically inside it). */
  readonly realFolder: () => RealFolder;
}

function refusal(code: FileRefusalCode, place: Place<unknown>): { readonly ok: false; readonly refusal: FileRefusal } {
  const { given, folder, resolved, real } = place;
  return {
    ok: false,
    refusal: {
      code,
      given,
      folder,
      resolved,
      ...(real !== undefined ? { realPath: real } : {}),
      ...(code !== 'not-found' && code !== 'not-a-file' ? { allowFolder: dirname(real ?? resolved) } : {}),
    },
  };
}

/**
 * The rule, up to what is at the path: lexically first (a path that leaves the folder is refused
 * whether or not it exists, unless allowed), then a link out of the folder.
 */
function placeRefusalUpToLink(place: Place<unknown>): { readonly ok: false; readonly refusal: FileRefusal } | 'check-link' | undefined {
  // Devices, FIFOs and descriptors (/dev/fd/0, /proc/self/…) are never read, allowed or not: no
  // folder to allow is offered for them.
  if (isSystemPath(place.resolved) || (place.real !== undefined && isSystemPath(place.real))) return refusal('not-a-file', place);
  const inAllowed = (path: string): boolean => place.chosen.includes(path) || place.allowed.some((dir) => isInside(path, dir));
  const absolute = isAbsolute(place.given);
  const lexicallyOut = !isInside(place.resolved, place.folder);
  if ((absolute || lexicallyOut) && !inAllowed(place.real ?? place.resolved))
    return refusal(absolute ? 'absolute-path' : 'outside-folder', place);
  if (place.real === undefined) return refusal('not-found', place);
  return !absolute && !lexicallyOut && !inAllowed(place.real) ? 'check-link' : undefined;
}

async function placeRefusal(place: Place<Promise<string>>): Promise<{ readonly ok: false; readonly refusal: FileRefusal } | undefined> {
  const decided = placeRefusalUpToLink(place);
  if (decided !== 'check-link') return decided;
  return isInside(place.real!, await place.realFolder()) ? undefined : refusal('link-outside', place);
}

function placeRefusalSync(place: Place<string>): { readonly ok: false; readonly refusal: FileRefusal } | undefined {
  const decided = placeRefusalUpToLink(place);
  if (decided !== 'check-link') return decided;
  return isInside(place.real!, place.realFolder()) ? undefined : refusal('link-outside', place);
}

/** The naming file, in a message: a data file, a test file, a debug launch configuration. */
export type NamingFile = 'data file' | 'test file' | 'launch configuration';

/** A refusal in words, without the way to allow it (each adapter adds its own). */
export function describeFileRefusal(refusal: FileRefusal, naming: NamingFile): string {
  const shown = JSON.stringify(refusal.given);
  switch (refusal.code) {
    case 'absolute-path':
      return `the file ${shown} is an absolute path: files named by a ${naming} are read only from its folder (${refusal.folder}), by a relative path`;
    case 'outside-folder':
      return `the file ${shown} is outside the ${naming}'s folder (${refusal.folder}): files named by a ${naming} are read only from its folder`;
    case 'link-outside':
      return `the file ${shown} is a link to ${refusal.realPath ?? refusal.resolved}, outside the ${naming}'s folder (${refusal.folder}): files named by a ${naming} are read only from its folder`;
    case 'not-found':
      return `the file ${shown} does not exist (looked for ${refusal.resolved}; paths are relative to the ${naming}'s folder)`;
    case 'not-a-file':
      return `${shown} is not a regular file (looked for ${refusal.resolved}): devices, FIFOs and descriptors (/dev, /proc) are never read; name a regular file`;
  }
}

/** Folders of devices and descriptors (POSIX), whose entries are never files to read. */
const SYSTEM_FOLDERS = ['/dev', '/proc'];

function isSystemPath(path: string): boolean {
  return sep === '/' && SYSTEM_FOLDERS.some((folder) => isInside(path, folder));
}

/** Whether `path` is `folder` or inside it (both absolute and normalized). */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real paths of those that exist (links followed). */
function realPathsSync(paths: readonly string[]): string[] {
  return paths.map((given) => realPathSync(resolve(given))).filter((path): path is string => path !== undefined);
}

function realPathSync(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The real paths of those that exist (links followed). */
async function realPaths(paths: readonly string[]): Promise<string[]> {
  const real: string[] = [];
  for (const given of paths) {
    const path = await realpath(resolve(given)).catch(() => undefined);
    if (path !== undefined) real.push(path);
  }
  return real;
}

async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** A file allowed, with the path as the naming file gives it (for messages and the accept check). */
export type NamedFile = AllowedFile & { readonly shown: string };

/** Each file of a set named by one file (a test case's `files:`, by input), checked: all allowed, or the refusals. */
export async function checkNamedFiles(
  named: Readonly<Record<string, string>>,
  rules: FileAccessRules,
): Promise<
  | { readonly ok: true; readonly files: Record<string, NamedFile> }
  | { readonly ok: false; readonly refused: readonly { readonly input: string; readonly refusal: FileRefusal }[] }
> {
  const files: Record<string, NamedFile> = Object.create(null) as Record<string, NamedFile>;
  const refused: { input: string; refusal: FileRefusal }[] = [];
  for (const [input, given] of Object.entries(named)) {
    const access = await checkFileAccess(given, rules);
    if (access.ok) files[input] = { ...access.file, shown: given };
    else refused.push({ input, refusal: access.refusal });
  }
  return refused.length ? { ok: false, refused } : { ok: true, files: { ...files } };
}
