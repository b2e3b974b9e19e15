// The editor's side of files named by a data file or a test file (core/inputs/fileAccess.ts): read
// only from that file's folder unless allowed, in the user's setting agentWorkflows.files.allowFrom
// or when a run asked. A run that would meet other folders asks once, before anything is read,
// whether to allow them, and keeps the answer for this workspace on this machine (FileAllowances).
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { allowedFileFolders } from '../config';
import type { FileRefusal } from '../core/inputs/fileAccess';
import type { FileAllowances } from './fileAllowances';

/** The folders named files may come from besides their naming file's: the user's setting's and those allowed here. */
export function allowedFolders(allowances: FileAllowances, scope?: vscode.Uri): string[] {
  return [...new Set([...allowedFileFolders(scope), ...allowances.folders()])];
}

export const ALLOW_FILES = 'Allow';

/**
 * The folders a run may read named files from: the setting's, and those of `refused` if the user
 * allows them (one question for all). `namingFile` is the data or test file, for the question.
 */
export async function allowFoldersOnce(
  refused: readonly string[],
  namingFile: string,
  kind: 'data file' | 'test file',
  scope: vscode.Uri,
  allowances: FileAllowances,
): Promise<string[]> {
  const allowed = allowedFolders(allowances, scope);
  if (refused.length === 0) return allowed;
  const listed = refused.length === 1 ? refused[0]! : `${refused.length} folders (${refused.join(', ')})`;
  const choice = await vscode.window.showWarningMessage(
    `Allow files from ${listed}?`,
    {
      modal: true,
      detail: `The ${kind} ${basename(namingFile)} names files outside its folder, which are then read${kind === 'data file' ? ' and sent with the rows' : ''}. Allowed, it is kept for this workspace on this machine, not in the workspace's files. Otherwise those ${kind === 'data file' ? 'rows are skipped' : 'cases fail'}, and nothing outside the folder is read.`,
    },
    ALLOW_FILES,
  );
  if (choice !== ALLOW_FILES) return allowed;
  await allowances.add(refused);
  return [...allowed, ...refused];
}

/** The way to allow a refused file's folder, in the editor. */
export function allowFilesHint(refusal: FileRefusal): string {
  return refusal.allowFolder !== undefined
    ? `to read files from ${refusal.allowFolder}, allow it when a run asks, or add it to your user setting agentWorkflows.files.allowFrom`
    : '';
}
