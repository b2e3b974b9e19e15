// Shows the core's completions: keys, values, header strings and expressions.
import * as vscode from 'vscode';
import type { CompletionEntry, CompletionKind } from '../core/language/completion';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';
import { AGENT_LANGUAGE_ID } from './languageIds';
import { loadLanguageCore } from './loadLanguageCore';
import { toRange } from './spans';
import type { WorkspaceSecretNames } from './workspaceSecretNames';

const KINDS: Record<CompletionKind, vscode.CompletionItemKind> = {
  property: vscode.CompletionItemKind.Property,
  value: vscode.CompletionItemKind.Value,
  header: vscode.CompletionItemKind.Field,
  keyword: vscode.CompletionItemKind.Keyword,
  reference: vscode.CompletionItemKind.Reference,
  field: vscode.CompletionItemKind.Field,
  secret: vscode.CompletionItemKind.Constant,
};

export interface CompletionDeps {
  readonly workspaceSecretNames: WorkspaceSecretNames;
  readonly workflowSecrets: WorkflowSecrets;
}

export function registerCompletionProvider(context: vscode.ExtensionContext, deps: CompletionDeps): void {
  const provider: vscode.CompletionItemProvider = {
    async provideCompletionItems(document, position, token) {
      const text = document.getText();
      const offset = document.offsetAt(position);
      // Workspace secret names are only read when the cursor is after "secrets.".
      const needsSecrets = /secrets\.\w*$/.test(document.lineAt(position.line).text.slice(0, position.character));
      const workspaceSecrets = needsSecrets ? [...(await deps.workspaceSecretNames.names()), ...deps.workflowSecrets.names()] : [];
      if (token.isCancellationRequested) return [];
      const result = (await loadLanguageCore()).complete(text, offset, { workspaceSecrets });
      const range = toRange(document, result.replace);
      return result.items.map((entry) => toItem(entry, range));
    },
  };
  context.subscriptions.push(
    vscode.languages.registerCompletionItemProvider({ language: AGENT_LANGUAGE_ID }, provider, '.', '{', '"', ':', ' '),
  );
}

export function toItem(entry: CompletionEntry, range: vscode.Range): vscode.CompletionItem {
  const item = new vscode.CompletionItem(entry.label, KINDS[entry.kind]);
  item.range = range;
  if (entry.detail) item.detail = entry.detail;
  if (entry.documentation) item.documentation = new vscode.MarkdownString(entry.documentation);
  if (entry.sortText) item.sortText = entry.sortText;
  const insert = entry.insertText ?? entry.label;
  item.insertText = entry.snippet ? new vscode.SnippetString(insert) : insert;
  if (entry.retrigger) item.command = { title: 'Suggest', command: 'editor.action.triggerSuggest' };
  return item;
}
