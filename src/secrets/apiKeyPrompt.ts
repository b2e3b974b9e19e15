// Asking for an API key: a password box, trimmed, checked for what a key cannot contain. Shared by
// "Set API Key" and a run that finds no key for its service.
import * as vscode from 'vscode';

export function checkApiKeyText(value: string): string | undefined {
  const key = value.trim();
  if (key === '') return "Paste the API key (the service editor's Settings, App Token).";
  if (/\s/.test(key)) return 'An API key has no spaces or line breaks inside; copy it again.';
  if (/^bearer$/i.test(key.split(/\s/)[0] ?? '') || /^Bearer\s/i.test(value.trim())) return 'Paste the key alone, without "Bearer".';
  return undefined;
}

/** Resolves to the trimmed key, or undefined when the user cancels. */
export async function promptForApiKey(origin: string, reason?: string): Promise<string | undefined> {
  const key = await vscode.window.showInputBox({
    title: `API key for ${origin}`,
    prompt: `${reason ? `${reason} ` : ''}It is kept in VS Code's secret storage for ${origin} only, never in settings or files.`,
    password: true,
    ignoreFocusOut: true,
    placeHolder: "The App Token from the service editor's Settings",
    validateInput: checkApiKeyText,
  });
  return key === undefined ? undefined : key.trim();
}
