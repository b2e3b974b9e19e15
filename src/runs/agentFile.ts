// The agent file a run starts from: its text as the editor has it (unsaved changes included),
// validated first, so a file with errors never runs.
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import { RunBlocked } from '../commandErrors';
import { AGENT_FILE_ANY_CASE as AGENT_FILE } from '../core/document/agentFiles';
import type { AgentModel } from '../core/document/model';
import { validateAgentText } from '../core/validation/validate';
import { AGENT_FILES, AGENT_LANGUAGE_ID } from '../language/languageIds';
import { findWorkspaceFiles } from '../workspaceSearch';

export interface AgentFile {
  readonly uri: vscode.Uri;
  readonly text: string;
  readonly model: AgentModel;
  /** The agent's `name:`, else the file name without .agent.yaml. */
  readonly displayName: string;
  /** The file name without .agent.yaml: the agent path the local server gives it. */
  readonly agentPath: string;
}

/** What tells an agent file's text from another (a local execution keeps it, to say when its file changed since). */
export function agentTextDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function agentPathOf(uri: vscode.Uri): string {
  const base = uri.path.split('/').pop() ?? uri.path;
  return base.replace(AGENT_FILE, '');
}

export async function loadAgentFile(uri: vscode.Uri): Promise<AgentFile> {
  const document = await vscode.workspace.openTextDocument(uri);
  const text = document.getText();
  const { problems, model } = validateAgentText(text);
  const errors = problems.filter((problem) => problem.severity === 'error');
  const name = uri.path.split('/').pop() ?? uri.toString();
  if (errors.length || !model) {
    const first = errors[0];
    throw new RunBlocked(
      `${name} has ${errors.length || 'a'} ${errors.length === 1 ? 'error' : 'errors'} and cannot run until ${errors.length === 1 ? 'it is' : 'they are'} fixed${first ? `: line ${first.range.line}: ${first.message}` : '.'}`,
      [
        { title: 'Show Problems', run: () => vscode.commands.executeCommand('workbench.actions.view.problems') },
        {
          title: 'Open File',
          run: () =>
            vscode.window.showTextDocument(
              document,
              first
                ? {
                    selection: new vscode.Range(
                      first.range.line - 1,
                      first.range.column - 1,
                      first.range.endLine - 1,
                      first.range.endColumn - 1,
                    ),
                  }
                : {},
            ),
        },
      ],
    );
  }
  const agentPath = agentPathOf(uri);
  return { uri, text, model, displayName: model.name ?? agentPath, agentPath };
}

/**
 * The agent file a command is about: the resource a menu or code lens passed, else the active
 * editor's, else one the user picks from the workspace. Undefined when the user cancels.
 */
export async function chooseAgentFile(resource: unknown, purpose: string): Promise<vscode.Uri | undefined> {
  if (resource instanceof vscode.Uri) return resource;
  const active = vscode.window.activeTextEditor?.document;
  if (active && (active.languageId === AGENT_LANGUAGE_ID || AGENT_FILE.test(active.uri.path))) return active.uri;
  const found = await findWorkspaceFiles(AGENT_FILES, { max: 500 });
  if (found.length === 0) {
    throw new RunBlocked(
      'There is no agent file (*.agent.yaml) in this workspace. Create one with the "agent" snippet, or open a folder that has one.',
    );
  }
  const picked = await vscode.window.showQuickPick(
    found
      .sort((a, b) => a.path.localeCompare(b.path))
      .map((uri) => ({ label: uri.path.split('/').pop() ?? uri.path, description: vscode.workspace.asRelativePath(uri, true), uri })),
    { title: purpose, placeHolder: 'Choose an agent file', matchOnDescription: true },
  );
  return picked?.uri;
}
