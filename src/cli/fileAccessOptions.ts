// --allow-files-from DIR (batch, test): folders whose files a data file or a test file may name
// besides its own folder (core/inputs/fileAccess.ts decides), and how a refusal says to use it.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FileRefusal } from '../core/inputs/fileAccess';
import { shellQuote } from '../core/service/curl';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';

/** The folders of --allow-files-from, absolute; a usage error for one that is not a folder. */
export async function allowedFolders(values: readonly string[] | undefined, io: Pick<CliIo, 'cwd'>): Promise<string[]> {
  const folders: string[] = [];
  for (const value of values ?? []) {
    const folder = resolve(io.cwd, value);
    const info = await stat(folder).catch(() => undefined);
    if (!info?.isDirectory())
      throw new CliError(`--allow-files-from ${value}: ${info ? 'not a folder' : 'no such folder'} (${folder}).`, ExitCode.usage);
    folders.push(folder);
  }
  return folders;
}

/** The way to allow the folder of a refused file, on the command line. */
export function allowFilesHint(refusal: FileRefusal): string {
  return refusal.allowFolder !== undefined
    ? `to read files from ${refusal.allowFolder}, give --allow-files-from ${shellQuote(refusal.allowFolder)}`
    : '';
}
