// The texts of workspace files of one kind, for features that search across files (references and
// rename): the open documents (unsaved text included) and the files the workspace's search finds
// (workspaceSearch), at most `max`, read through vscode.workspace.fs (currentText) a few at a time,
// so that the browser build finds them too.
import * as vscode from 'vscode';
import { currentText } from '../workspaceFiles';
import { findWorkspaceFiles } from '../workspaceSearch';
import type { WorkspaceFileKind } from '../workspaceSearch';

/** Files read at the same time. */
const MAX_READS = 8;

export interface WorkspaceFileSearch {
  /** Open documents of this language are taken. */
  readonly languageId: string;
  /** Files found in the workspace. */
  readonly kind: WorkspaceFileKind;
  /** Only files below this folder, when given; else the workspace's and every open one. */
  readonly under?: vscode.Uri;
  readonly max: number;
  /** Whether a file is wanted, asked before it is read. */
  readonly wanted?: (uri: vscode.Uri) => Promise<boolean>;
  /** Called when the search found `max` files: the others are left out. */
  readonly onCapped: () => void;
  /** Called when the search saw only part of the workspace, with why (see workspaceSearch). */
  readonly onPartial: (why: string) => void;
  readonly onUnreadable: (uri: vscode.Uri, error: unknown) => void;
}

/** The wanted files' texts, in URI order. */
export async function workspaceFileTexts(
  search: WorkspaceFileSearch,
  token?: vscode.CancellationToken,
): Promise<{ readonly uri: vscode.Uri; readonly text: string }[]> {
  const uris = new Map<string, vscode.Uri>();
  const under = search.under && `${search.under.toString()}/`;
  for (const document of vscode.workspace.textDocuments) {
    const key = document.uri.toString();
    if (document.languageId === search.languageId && (under === undefined || key.startsWith(under)) && uris.size < search.max)
      uris.set(key, document.uri);
  }
  const found = await findWorkspaceFiles(search.kind, {
    ...(search.under ? { under: search.under } : {}),
    max: search.max,
    ...(token ? { token } : {}),
    onPartial: search.onPartial,
  });
  if (found.length === search.max) search.onCapped();
  for (const uri of found) if (uris.size < search.max) uris.set(uri.toString(), uri);
  const queue = [...uris.values()];
  const texts: { readonly uri: vscode.Uri; readonly text: string }[] = [];
  const readNext = async (): Promise<void> => {
    for (let uri = queue.shift(); uri && !token?.isCancellationRequested; uri = queue.shift()) {
      try {
        if (search.wanted && !(await search.wanted(uri))) continue;
        const text = await currentText(uri);
        if (text !== undefined) texts.push({ uri, text });
      } catch (error) {
        search.onUnreadable(uri, error);
      }
    }
  };
  await Promise.all(Array.from({ length: MAX_READS }, readNext));
  return texts.sort((a, b) => (a.uri.toString() < b.uri.toString() ? -1 : a.uri.toString() > b.uri.toString() ? 1 : 0));
}
