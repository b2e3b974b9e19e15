// The files the test host writes (its user data: logs, output channels, settings, state) and the
// workspace's, read from disk: to check what reached the output, and that no key or secret did.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';

export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test host opens a workspace folder');
  return folder.uri.fsPath;
}

function userDataRoot(): string {
  const root = process.env.AGENT_WORKFLOWS_TEST_USER_DATA;
  assert.ok(root, 'the test host says where its user data is');
  return root;
}

/** The results channel as the workbench wrote it to disk. */
export function resultsChannelText(): string {
  return filesUnder(join(userDataRoot(), 'logs'))
    .filter((file) => /\d+-Agent Workflows\.log$/.test(file))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
}

/** The files of the host's user data (workspace storage included) whose path ends with `suffix`. */
export function userDataFilesEndingWith(suffix: string): string[] {
  return filesUnder(userDataRoot()).filter((file) => file.endsWith(suffix));
}

export function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}

/** "<what> in <file>" for each value found in a file of the user data or the workspace. */
export function leaksOf(values: readonly (readonly [what: string, value: string])[]): string[] {
  const files = [...filesUnder(userDataRoot()), ...filesUnder(workspaceFolder())].filter((file) => statSync(file).size < 50 * 1024 * 1024);
  assert.ok(
    files.some((file) => file.endsWith('Agent Workflows Log.log')),
    'the log is among the files checked',
  );
  const leaks: string[] = [];
  for (const file of files) {
    const content = readFileSync(file);
    for (const [what, value] of values) if (content.includes(value)) leaks.push(`${what} in ${file}`);
  }
  return leaks;
}
