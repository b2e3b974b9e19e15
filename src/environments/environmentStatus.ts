// The active environment in the status bar while an agent file (or its test file) is open, and the
// picker it opens: each environment with its origin and account, the protected ones marked. Shown
// only when an environments file applies to the file, and not in Restricted Mode (nothing runs there).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { displayOrigin } from '../core/environments/environmentsFileName';
import { errorMessage } from '../core/errors';
import { AGENT_LANGUAGE_ID, TEST_LANGUAGE_ID } from '../language/languageIds';
import type { WorkspaceEnvironments } from './workspaceEnvironments';

/** What the status bar shows, for the integration tests. */
export interface EnvironmentStatus {
  readonly text: string;
  readonly tooltip: string;
  readonly visible: boolean;
}

export function registerEnvironmentStatus(
  context: vscode.ExtensionContext,
  deps: { readonly environments: WorkspaceEnvironments; readonly logger: vscode.LogOutputChannel },
): { readonly current: () => EnvironmentStatus; readonly updated: () => Promise<void> } {
  const { environments } = deps;
  const item = vscode.window.createStatusBarItem('agentWorkflows.environment', vscode.StatusBarAlignment.Left, 48);
  item.name = 'Agent Workflows: environment';
  let shown: EnvironmentStatus = { text: '', tooltip: '', visible: false };
  let version = 0;
  let pending: Promise<void> = Promise.resolve();

  const hide = (): void => {
    item.hide();
    shown = { text: '', tooltip: '', visible: false };
  };
  const render = async (): Promise<void> => {
    const mine = ++version;
    const document = vscode.window.activeTextEditor?.document;
    if (!document || !vscode.workspace.isTrusted || ![AGENT_LANGUAGE_ID, TEST_LANGUAGE_ID].includes(document.languageId)) {
      hide();
      return;
    }
    const { fileUri } = await environments.lookup(document.uri);
    if (mine !== version) return;
    if (!fileUri) {
      hide();
      return;
    }
    let text: string;
    let tooltip: string;
    try {
      const active = await environments.active(document.uri);
      if (!active) {
        text = '$(cloud) No environment';
        tooltip = `No environment is chosen and ${vscode.workspace.asRelativePath(fileUri)} names no default: runs use the agent file's deployment. Click to choose one.`;
      } else {
        const { declaration } = active;
        text = `${declaration.protected ? '$(lock)' : '$(cloud)'} ${active.name}`;
        tooltip = `Agent Workflows environment "${active.name}": ${declaration.baseUrl}, account ${declaration.account}${declaration.protected ? ' (protected: runs ask first)' : ''}. Click to switch.`;
      }
    } catch (error) {
      text = '$(warning) Environment';
      tooltip = `${errorMessage(error)} Click to choose an environment.`;
    }
    if (mine !== version) return;
    item.text = text;
    item.tooltip = tooltip;
    item.command = { title: 'Select Environment', command: COMMANDS.selectEnvironment, arguments: [document.uri] };
    item.show();
    shown = { text, tooltip, visible: true };
  };
  const update = (): void => {
    pending = render().catch((error: unknown) => deps.logger.error(`Updating the environment status failed: ${errorMessage(error)}`));
  };

  context.subscriptions.push(
    item,
    environments.onDidChange(update),
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.workspace.onDidGrantWorkspaceTrust(update),
    vscode.commands.registerCommand(
      COMMANDS.selectEnvironment,
      guardedCommand('Select Environment', deps.logger, async (argument) => {
        const uri = argument instanceof vscode.Uri ? argument : vscode.window.activeTextEditor?.document.uri;
        const picked = await pickEnvironment(environments, uri);
        update();
        return picked;
      }),
    ),
  );
  update();
  return { current: () => shown, updated: () => pending };
}

interface EnvironmentPick extends vscode.QuickPickItem {
  readonly environment: string | undefined;
}

/** The picker: resolves to the chosen name ('' for "none"), or undefined when dismissed. */
async function pickEnvironment(environments: WorkspaceEnvironments, uri: vscode.Uri | undefined): Promise<string | undefined> {
  if (!uri) throw new Error('Open an agent file first: the environments are those of its agent-workflows.yaml.');
  const { fileUri, result } = await environments.lookup(uri);
  if (!fileUri) {
    void vscode.window.showInformationMessage(
      `No agent-workflows.yaml applies to ${vscode.workspace.asRelativePath(uri)}: create one in its workspace folder to list environments (see docs/environments.md).`,
    );
    return undefined;
  }
  if (!result?.file) {
    const errors = result?.problems.filter((problem) => problem.severity === 'error').length ?? 0;
    const OPEN = 'Open Environments File';
    const choice = await vscode.window.showErrorMessage(
      `${vscode.workspace.asRelativePath(fileUri)} has ${errors} ${errors === 1 ? 'error' : 'errors'} (see the Problems panel): fix ${errors === 1 ? 'it' : 'them'} to choose an environment.`,
      OPEN,
    );
    if (choice === OPEN) await vscode.window.showTextDocument(fileUri);
    return undefined;
  }
  const chosen = environments.chosen(fileUri);
  const file = result.file;
  const items: EnvironmentPick[] = [...file.environments.values()].map((declaration) => ({
    label: `${declaration.protected ? '$(lock)' : '$(cloud)'} ${declaration.name}`,
    description: `${displayOrigin(declaration.baseUrl)} · ${declaration.account}`,
    detail: [
      declaration.name === file.defaultName ? 'default' : '',
      declaration.protected ? 'protected: every run asks first' : '',
      declaration.name === chosen ? 'current' : '',
    ]
      .filter(Boolean)
      .join(' · '),
    environment: declaration.name,
  }));
  items.push({
    label: '$(circle-slash) Default',
    description: file.defaultName ? `the file's default, ${file.defaultName}` : "the agent file's deployment",
    environment: undefined,
  });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Agent Workflows: Select Environment',
    placeHolder: `Where runs go: the environments of ${vscode.workspace.asRelativePath(fileUri)}`,
    matchOnDescription: true,
  });
  if (!picked) return undefined;
  await environments.choose(fileUri, picked.environment);
  return picked.environment ?? '';
}
