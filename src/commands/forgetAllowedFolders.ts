// "Agent Workflows: Forget Folders Allowed for Named Files…": takes back an "Allow files from
// <folder>?" given to a run. Those answers live in workspace state, not in any settings file, so
// this is where the user sees and revokes them.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import type { FileAllowances } from '../runs/fileAllowances';

export function registerForgetAllowedFoldersCommand(
  context: vscode.ExtensionContext,
  deps: { readonly fileAllowances: FileAllowances; readonly logger: vscode.LogOutputChannel },
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.forgetAllowedFolders,
      // Given folders (as from another command) are forgotten without asking.
      guardedCommand('Forget Allowed Folders', deps.logger, async (given?: unknown) => {
        const allowed = deps.fileAllowances.folders();
        if (allowed.length === 0) {
          void vscode.window.showInformationMessage(
            'No folders are allowed for named files in this workspace: there is nothing to forget.',
          );
          return [];
        }
        const chosen = Array.isArray(given)
          ? allowed.filter((folder) => given.includes(folder))
          : (
              await vscode.window.showQuickPick(
                allowed.map((folder) => ({ label: folder, picked: true })),
                {
                  title: 'Forget Folders Allowed for Named Files',
                  placeHolder: 'Runs ask again before reading files from these',
                  canPickMany: true,
                },
              )
            )?.map((item) => item.label);
        if (!chosen?.length) return [];
        await deps.fileAllowances.remove(chosen);
        void vscode.window.showInformationMessage(
          `${chosen.length === 1 ? chosen[0] : `${chosen.length} folders`} no longer allowed: a run asks again before reading files from ${chosen.length === 1 ? 'it' : 'them'}.`,
        );
        return chosen;
      }),
    ),
  );
}
