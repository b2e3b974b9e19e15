// "Agent Workflows: Validate Workspace Agents": checks every agent file in the workspace.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { countProblems } from '../core/validation/validate';
import type { AgentDiagnostics } from '../language/agentDiagnostics';
import { AGENT_FILES } from '../language/languageIds';
import { findWorkspaceFiles } from '../workspaceSearch';

const MAX_FILES = 10_000;

export interface WorkspaceValidationSummary {
  readonly files: number;
  readonly errors: number;
  readonly warnings: number;
  readonly filesWithErrors: number;
  readonly cancelled: boolean;
}

export interface ValidateWorkspaceDeps {
  readonly diagnostics: AgentDiagnostics;
  readonly logger: vscode.LogOutputChannel;
}

export function registerValidateWorkspaceCommand(context: vscode.ExtensionContext, deps: ValidateWorkspaceDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.validateWorkspace,
      guardedCommand('Validate Workspace Agents', deps.logger, () => validateWorkspace(deps)),
    ),
  );
}

async function validateWorkspace(deps: ValidateWorkspaceDeps): Promise<WorkspaceValidationSummary> {
  const summary = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Validating agent files', cancellable: true },
    async (progress, token) => {
      const files = await findWorkspaceFiles(AGENT_FILES, { max: MAX_FILES, token, onPartial: (why) => deps.logger.warn(why) });
      files.sort((a, b) => a.toString().localeCompare(b.toString()));
      let errors = 0;
      let warnings = 0;
      let filesWithErrors = 0;
      let checked = 0;
      for (const uri of files) {
        if (token.isCancellationRequested) break;
        progress.report({ message: vscode.workspace.asRelativePath(uri), increment: 100 / files.length });
        const counts = countProblems(await deps.diagnostics.checkFile(uri));
        errors += counts.errors;
        warnings += counts.warnings;
        if (counts.errors > 0) filesWithErrors++;
        checked++;
      }
      return { files: checked, errors, warnings, filesWithErrors, cancelled: token.isCancellationRequested };
    },
  );
  deps.logger.info(
    `Validated ${summary.files} agent files: ${summary.errors} errors, ${summary.warnings} warnings${summary.cancelled ? ' (cancelled)' : ''}.`,
  );
  void showSummary(summary);
  return summary;
}

async function showSummary(summary: WorkspaceValidationSummary): Promise<void> {
  if (summary.files === 0 && !summary.cancelled) {
    void vscode.window.showInformationMessage('No agent files (*.agent.yaml, *.agent.yml) in this workspace.');
    return;
  }
  const checked = `${summary.cancelled ? 'Stopped after' : 'Checked'} ${summary.files} agent ${summary.files === 1 ? 'file' : 'files'}`;
  if (summary.errors === 0 && summary.warnings === 0) {
    void vscode.window.showInformationMessage(`${checked}: no problems.`);
    return;
  }
  const text = `${checked}: ${summary.errors} ${summary.errors === 1 ? 'error' : 'errors'} in ${summary.filesWithErrors} ${summary.filesWithErrors === 1 ? 'file' : 'files'}, ${summary.warnings} ${summary.warnings === 1 ? 'warning' : 'warnings'}.`;
  const show = 'Show Problems';
  const choice =
    summary.errors > 0 ? await vscode.window.showWarningMessage(text, show) : await vscode.window.showInformationMessage(text, show);
  if (choice === show) await vscode.commands.executeCommand('workbench.actions.view.problems');
}
