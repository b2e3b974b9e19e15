// What the tools' calls share: files named in the arguments kept inside a workspace folder, and one
// redactor per call holding the secrets and key it used, through which every answer passes.
import * as vscode from 'vscode';
import { RunBlocked } from '../commandErrors';
import { errorMessage } from '../core/errors';
import type { NamedFile } from '../core/inputs/fileAccess';
import { Redactor } from '../core/redaction';
import { fileInFolder, ToolCallError } from '../core/tools/toolArguments';
import type { ToolAnswer } from './toolNames';

const WORKSPACE_FOLDER = 'the workspace folder';

/** A file named in the arguments, inside one of the workspace's folders (the first that holds it), with that folder. */
export async function workspaceFile(given: string, what: string): Promise<NamedFile & { readonly root: string }> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
  if (folders.length === 0) throw new ToolCallError('No folder is open: the tools read files of the workspace folder only.');
  let refusal: unknown;
  for (const folder of folders) {
    try {
      return { ...(await fileInFolder(given, folder.uri.fsPath, what, WORKSPACE_FOLDER)), root: folder.uri.fsPath };
    } catch (error) {
      refusal ??= error;
    }
  }
  throw refusal;
}

/** The "/"-separated path of a file relative to its folder, as answers name it. */
export function shownPath(path: string, root: string): string {
  return vscode.workspace.asRelativePath(vscode.Uri.file(path), false).split('\\').join('/') || path.slice(root.length + 1);
}

/** A redactor for one call: its secrets are added as they are read. */
export function callRedactor(): Redactor {
  return new Redactor({ bearerTokens: true });
}

/** A call's answer with every text and value through the redactor. */
export function redactedAnswer(answer: ToolAnswer, redactor: Redactor): ToolAnswer {
  return {
    text: redactor.text(answer.text),
    ...(answer.value !== undefined ? { value: redactor.value(answer.value) } : {}),
    ...(answer.isError ? { isError: true } : {}),
  };
}

/** A refused or failed call as its answer: the argument errors and blocked runs by their message. */
export function failureAnswer(error: unknown, redactor: Redactor): ToolAnswer {
  if (error instanceof ToolCallError)
    return redactedAnswer(
      { text: error.message, isError: true, ...(error.details ? { value: { error: error.message, ...error.details } } : {}) },
      redactor,
    );
  if (error instanceof RunBlocked) return redactedAnswer({ text: error.message, isError: true }, redactor);
  return redactedAnswer({ text: errorMessage(error), isError: true }, redactor);
}
