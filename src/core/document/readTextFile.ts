// Reading a text file a user or a repository names (agent, test and environments files, batch
// --expect files): bounded before a byte is read. The file is opened without waiting (a FIFO would
// block the open forever) and its descriptor is checked, so a file swapped after a check cannot
// slip through: only a regular file is read (not /dev/zero, a FIFO or a socket, even through a
// symlink), never more than the limit plus one byte (a sparse or growing file stops there).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { ReadStream, Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { errorMessage } from '../errors';
import { MAX_FILE_BYTES } from '../limits';
import { decodeAgentFile, tooLargeMessage } from './parse';
import type { ParsedFileKind } from './parse';

/** Why a file's text was not read; `error` is the reason without the file's name (callers name it). */
export interface FileTextFailure {
  readonly error: string;
  /** Read but not text (too large, binary, not UTF-8), as validation reports it; else not read at all. */
  readonly code: 'file-too-large' | 'not-text' | 'not-a-file' | 'unreadable';
  /** For a file too large: its size (or more than the limit, when it grew while read). */
  readonly size?: number;
  /** For a file that could not be opened: the system's code (`ENOENT`: there is none). */
  readonly errno?: string;
}

/** The text; `byteOrderMark` when the file starts with one (not part of the text). */
export type FileText = { text: string; byteOrderMark?: true } | FileTextFailure;

export interface ReadTextOptions {
  /** The most bytes read; MAX_FILE_BYTES by default. */
  readonly maxBytes?: number;
  /**
   * What the file is, for the words of a refusal (an agent file by default); 'text' for any other
   * text a command reads (a JSON value, a command), refused in words that name no kind.
   */
  readonly kind?: TextFileKind;
}

export type TextFileKind = ParsedFileKind | 'text';

/**
 * Flags to open a file to read without waiting: without O_NONBLOCK, opening a FIFO waits for a
 * writer; regular files read the same with it. Windows has no such flag (and no FIFOs that open
 * blocks on). Check the descriptor's stat (notARegularFile) before reading.
 */
export const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const CHUNK_BYTES = 64 * 1024;

/** A file's text, read synchronously (test discovery, the test runner): see the file header. */
export function readTextFileSync(path: string, { maxBytes = MAX_FILE_BYTES, kind = 'agent' }: ReadTextOptions = {}): FileText {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return { error: fileErrorReason(error), code: 'unreadable' };
  }
  try {
    const refused = refuseUnread(fstatSync(fd), maxBytes, kind);
    if (refused) return refused;
    const chunks: Buffer[] = [];
    let total = 0;
    // Up to one byte past the limit: enough to know the file is too large, whatever its stat said.
    while (total <= maxBytes) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
      total += read;
    }
    return decoded(Buffer.concat(chunks, total), maxBytes, kind);
  } catch (error) {
    return { error: fileErrorReason(error), code: 'unreadable' };
  } finally {
    closeSync(fd);
  }
}

/**
 * A file opened to read, only when it is a regular file (see the file header): the one check of
 * every file a command reads whole or streams. The caller closes the handle.
 */
export async function openRegularFile(path: string): Promise<{ readonly handle: FileHandle; readonly size: number } | FileTextFailure> {
  let handle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException | undefined)?.code;
    return { error: fileErrorReason(error), code: 'unreadable', ...(errno !== undefined ? { errno } : {}) };
  }
  try {
    const info = await handle.stat();
    const notAFile = notARegularFile(info);
    if (!notAFile) return { handle, size: info.size };
    await handle.close();
    return { error: notAFile, code: 'not-a-file' };
  } catch (error) {
    await handle.close();
    return { error: fileErrorReason(error), code: 'unreadable' };
  }
}

/**
 * A regular file's bytes as a stream (openRegularFile, then read from the descriptor checked: a file
 * swapped for a FIFO after the check is not the one read); throws the refusal's reason otherwise.
 */
export async function regularFileStream(path: string, options: { highWaterMark?: number; signal?: AbortSignal } = {}): Promise<ReadStream> {
  const opened = await openRegularFile(path);
  // The system's code goes with the reason: a reader tells a file not there yet (ENOENT) by it.
  if ('error' in opened)
    throw Object.assign(new Error(opened.error.replace(/\.$/, '')), opened.errno !== undefined ? { code: opened.errno } : {});
  return opened.handle.createReadStream(options) as unknown as ReadStream;
}

/** A file's text, read without blocking the event loop (the CLI, the local server): see the file header. */
export async function readTextFile(path: string, { maxBytes = MAX_FILE_BYTES, kind = 'agent' }: ReadTextOptions = {}): Promise<FileText> {
  const opened = await openRegularFile(path);
  if ('error' in opened) return opened;
  const { handle } = opened;
  try {
    const refused = refuseUnread(await handle.stat(), maxBytes, kind);
    if (refused) return refused;
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return decoded(Buffer.concat(chunks, total), maxBytes, kind);
  } catch (error) {
    return { error: fileErrorReason(error), code: 'unreadable' };
  } finally {
    await handle.close();
  }
}

/** Why a file system call on a file failed, in words, without the file's name. */
export function fileErrorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory.';
    case 'EACCES':
    case 'EPERM':
      return "permission denied; check the file's permissions.";
    case 'EISDIR':
      return 'is a directory.';
    default:
      return `cannot be read (${errorMessage(error)}).`;
  }
}

/** What the descriptor's stat already refuses: anything but a regular file, or a file over the limit. */
function refuseUnread(info: Stats, maxBytes: number, kind: TextFileKind): FileTextFailure | undefined {
  const notAFile = notARegularFile(info);
  if (notAFile) return { error: notAFile, code: 'not-a-file' };
  if (info.size > maxBytes) return { error: tooLarge(info.size, kind, maxBytes), code: 'file-too-large', size: info.size };
  return undefined;
}

function decoded(bytes: Buffer, maxBytes: number, kind: TextFileKind): FileText {
  if (bytes.length > maxBytes) return { error: tooLarge(bytes.length, kind, maxBytes), code: 'file-too-large', size: bytes.length };
  if (kind !== 'text') return decodeAgentFile(bytes, kind, maxBytes);
  if (bytes.includes(0)) return { error: 'contains binary data (NUL bytes), not text.', code: 'not-text' };
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? { text, byteOrderMark: true } : { text };
  } catch {
    return { error: 'is not valid UTF-8 text; save it as UTF-8.', code: 'not-text' };
  }
}

function tooLarge(size: number, kind: TextFileKind, maxBytes: number): string {
  return kind === 'text' ? `is too large: ${size} bytes, more than the ${maxBytes} read here.` : tooLargeMessage(size, kind, maxBytes);
}

/** Why a file is not read, when it is not a regular file (a directory, a FIFO, a device); else undefined. */
export function notARegularFile(info: Stats): string | undefined {
  if (info.isDirectory()) return 'is a directory.';
  if (!info.isFile()) return `is not a regular file (it is ${kindOf(info)}); only regular files are read. Name the file itself.`;
  return undefined;
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'an unknown kind of file';
}
