// Shows the core's hovers.
import * as vscode from 'vscode';
import { AGENT_LANGUAGE_ID } from './languageIds';
import { loadLanguageCore } from './loadLanguageCore';
import { toRange } from './spans';

export function registerHoverProvider(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.languages.registerHoverProvider(
      { language: AGENT_LANGUAGE_ID },
      {
        async provideHover(document, position) {
          const result = (await loadLanguageCore()).hover(document.getText(), document.offsetAt(position));
          return result ? new vscode.Hover(new vscode.MarkdownString(result.contents), toRange(document, result.span)) : undefined;
        },
      },
    ),
  );
}
