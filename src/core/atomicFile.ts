// Writing a file whole or not at all: into a new file beside it, then renamed over it. Written in
// place, a failure midway (a full disk, a quota, a second Ctrl-C) would leave a user's file cut
// short; renamed, the file is either as it was or as written.
import { randomBytes } from 'node:crypto';
import { access, constants, open, realpath, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces the file at `path` (or creates it) with what `write` writes into the handle it is given.
 * When `write` or anything before the rename fails, the file is left as it was and the file beside
 * it is removed. A file that exists keeps its mode, must be writable (as writing in place would
 * ask), and a symlink to it stays one: the file it names is replaced.
 */
export async function replaceFile(path: string, write: (file: FileHandle) => Promise<void>): Promise<void> {
  const target = await realpath(path).catch(() => path);
  const existing = await stat(target).catch(() => undefined);
  const kept = existing?.isFile() ? existing.mode & 0o7777 : undefined;
  if (kept !== undefined) await access(target, constants.W_OK);
  // In the same folder, so that the rename stays on one file system; 'wx' never opens a file that is there.
  const partial = join(dirname(target), `${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  const file = await open(partial, 'wx', kept ?? 0o666);
  let renamed = false;
  try {
    // open's mode passes through the umask; the file replaced keeps the mode it had.
    if (kept !== undefined) await file.chmod(kept);
    await write(file);
    // On disk before it takes the file's name: a crash after the rename must not leave it empty.
    await file.sync();
    await file.close();
    await rename(partial, target);
    renamed = true;
  } finally {
    if (!renamed) {
      await file.close().catch(() => undefined);
      await rm(partial, { force: true });
    }
  }
}

/** Writes `data` as the whole of the file at `path`, atomically: see replaceFile. */
export async function writeFileAtomically(path: string, data: string | Uint8Array): Promise<void> {
  await replaceFile(path, (file) => file.writeFile(data));
}
