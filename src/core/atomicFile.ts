// Writing a file whole or not at all: into a new file beside it, then renamed over it. Written in
// place, a failure midway (a full disk, a quota, a second Ctrl-C) would leave a user's file cut
// short; renamed, the file is either as it was or as written.
//
// A rename gives the path a new file, so where that would change what the user has (the file has
// other names, hard links, that would keep the old text; or its owner could not be kept), the
// whole text is still written beside it first and then copied over the file in place, as editors
// do: a copy that fails midway leaves the new text whole in the file beside, and says where.
import { randomBytes } from 'node:crypto';
import { access, constants, copyFile, open, realpath, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces the file at `path` (or creates it) with what `write` writes into the handle it is given.
 * When `write` or anything before the rename fails, the file is left as it was and the file beside
 * it is removed. A file that exists keeps its mode, owner and hard links, must be writable (as
 * writing in place would ask), and a symlink to it stays one: the file it names is replaced.
 */
export async function replaceFile(path: string, write: (file: FileHandle) => Promise<void>): Promise<void> {
  const target = await realpath(path).catch(() => path);
  const existing = await stat(target).catch(() => undefined);
  const kept = existing?.isFile() ? existing : undefined;
  if (kept) await access(target, constants.W_OK);
  // In the same folder, so that the rename stays on one file system; 'wx' never opens a file that is there.
  const partial = join(dirname(target), `${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  const file = await open(partial, 'wx', kept ? kept.mode & 0o7777 : 0o666);
  /** Set once the file beside is no longer this function's to remove. */
  let handedOver = false;
  try {
    // open's mode passes through the umask; the file replaced keeps the mode it had.
    if (kept) await file.chmod(kept.mode & 0o7777);
    const renameKeepsAll = kept ? kept.nlink <= 1 && (await ownerKept(file, kept)) : true;
    await write(file);
    // On disk before it takes the file's name: a crash after the rename must not leave it empty.
    await file.sync();
    await file.close();
    if (renameKeepsAll) {
      await rename(partial, target);
      handedOver = true;
    } else {
      handedOver = true;
      await copyOver(partial, target);
    }
  } finally {
    if (!handedOver) {
      await file.close().catch(() => undefined);
      await rm(partial, { force: true });
    }
  }
}

/** Writes `data` as the whole of the file at `path`, atomically: see replaceFile. */
export async function writeFileAtomically(path: string, data: string | Uint8Array): Promise<void> {
  await replaceFile(path, (file) => file.writeFile(data));
}

/** Gives the new file the replaced one's owner; false when that is not allowed (it is not ours to give). */
async function ownerKept(file: FileHandle, replaced: Stats): Promise<boolean> {
  if (process.platform === 'win32') return true;
  const mine = await file.stat();
  if (mine.uid === replaced.uid && mine.gid === replaced.gid) return true;
  try {
    await file.chown(replaced.uid, replaced.gid);
    return true;
  } catch {
    return false;
  }
}

/** Copies the whole new text over the file in place; past a failure the new text is kept beside it. */
async function copyOver(partial: string, target: string): Promise<void> {
  try {
    await copyFile(partial, target);
  } catch (error) {
    throw Object.assign(
      new Error(
        `${target} could not be written (${error instanceof Error ? error.message : String(error)}); its new text is whole in ${partial}.`,
      ),
      { code: (error as NodeJS.ErrnoException).code, keptAt: partial },
    );
  }
  await rm(partial, { force: true });
}
