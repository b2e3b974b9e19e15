// Asking for a workflow secret's value ({{ secrets.NAME }}): Set Secret and Run Locally both do.
import * as vscode from 'vscode';

/** A password box for a secret's value; undefined when cancelled. */
export function promptForSecret(name: string): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: `Secret ${name}`,
    prompt: `The value of {{ secrets.${name} }}, kept in VS Code's secret storage (never in settings or files).`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (value) => (value === '' ? 'Enter a value, or press Escape to cancel.' : undefined),
  });
}
