// Files of the workspace as the user sees them: an open editor's text (unsaved changes included),
// else the file on disk.
import * as vscode from 'vscode';

/** The open document of a file, if an editor has it. */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((document) => document.uri.toString() === key);
}

/** An open document's text, else the file's; undefined when the file does not exist. */
export async function currentText(uri: vscode.Uri): Promise<string | undefined> {
  const open = openDocument(uri);
  return open ? open.getText() : savedText(uri);
}

/** A file's text on disk (an editor's unsaved changes left out); undefined when it does not exist. */
export async function savedText(uri: vscode.Uri): Promise<string | undefined> {
  try {
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
