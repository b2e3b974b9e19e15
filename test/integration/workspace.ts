// Paths in the workspace folder the integration test host opens.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';

/** A path inside the test host's (first) workspace folder. */
export function workspaceUri(...path: string[]): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test host opens a workspace folder');
  return vscode.Uri.joinPath(folder.uri, ...path);
}
