// Files of the workspace as the user sees them: an open editor's text (unsaved changes included),
// else the file on disk.
import * as vscode from 'vscode';
import { MAX_FILE_BYTES } from './core/limits';

/** The open document of a file, if an editor has it. */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((document) => document.uri.toString() === key);
}

/**
 * The open documents of files on disk with unsaved changes: what a run (and a debug session) reads
 * instead of the saved files.
 */
export function unsavedDocuments(): vscode.TextDocument[] {
  return vscode.workspace.textDocuments.filter(
    (document) => document.isDirty && (document.uri.scheme === 'file' || document.uri.scheme === 'vscode-remote'),
  );
}

/** The unsaved text of a file's editor, by the file's path; undefined when no editor has unsaved changes of it. */
export function unsavedText(path: string): string | undefined {
  return unsavedDocuments()
    .find((document) => document.uri.fsPath === path)
    ?.getText();
}

/** An open document's text, else the file's; undefined when the file does not exist. */
export async function currentText(uri: vscode.Uri): Promise<string | undefined> {
  const open = openDocument(uri);
  return open ? open.getText() : savedText(uri);
}

/**
 * A file's text on disk (an editor's unsaved changes left out); undefined when it does not exist.
 * Only a regular file of at most MAX_FILE_BYTES is read (a cloned repository's test file may be a
 * symlink to /dev/zero, or a FIFO): anything else throws, saying why.
 */
export async function savedText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    const info = await vscode.workspace.fs.stat(uri);
    if (!(info.type & vscode.FileType.File))
      throw new Error(`${uri.fsPath} is not a regular file (a FIFO or a device, say); only regular files are read.`);
    if (info.size > MAX_FILE_BYTES)
      throw new Error(`${uri.fsPath} is ${info.size} bytes; files are read up to ${MAX_FILE_BYTES / 1024} KB.`);
    return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
  } catch (error) {
    if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return undefined;
    throw error;
  }
}

export async function fileExists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
