// Definition, references and rename in agent files, from the core's navigation; the outline of
// agent, test and environments files.
import * as vscode from 'vscode';
import type { OutlineSymbol } from '../core/document/outlineSymbol';
import { AGENT_LANGUAGE_ID, FILE_KIND_OF_LANGUAGE } from './languageIds';
import type { AgentDiagnostics } from './agentDiagnostics';
import { loadLanguageCore } from './loadLanguageCore';
import { toRange } from './spans';

const SYMBOL_KINDS: Record<OutlineSymbol['kind'], vscode.SymbolKind> = {
  section: vscode.SymbolKind.Namespace,
  input: vscode.SymbolKind.Variable,
  node: vscode.SymbolKind.Function,
  output: vscode.SymbolKind.Property,
  case: vscode.SymbolKind.Method,
  environment: vscode.SymbolKind.Object,
  field: vscode.SymbolKind.Field,
};

export interface NavigationDeps {
  /** Computes the outline in its worker: VS Code asks for it on every change (breadcrumbs, outline). */
  readonly diagnostics: AgentDiagnostics;
}

export function registerNavigationProviders(context: vscode.ExtensionContext, deps: NavigationDeps): void {
  const selector = { language: AGENT_LANGUAGE_ID };
  context.subscriptions.push(
    vscode.languages.registerDefinitionProvider(selector, {
      async provideDefinition(document, position) {
        const span = (await loadLanguageCore()).definition(document.getText(), document.offsetAt(position));
        return span ? new vscode.Location(document.uri, toRange(document, span)) : undefined;
      },
    }),
    vscode.languages.registerReferenceProvider(selector, {
      async provideReferences(document, position, context) {
        return (await loadLanguageCore())
          .references(document.getText(), document.offsetAt(position), context.includeDeclaration)
          .map((span) => new vscode.Location(document.uri, toRange(document, span)));
      },
    }),
    vscode.languages.registerRenameProvider(selector, {
      async prepareRename(document, position) {
        const { prepareRename, RenameError } = await loadLanguageCore();
        try {
          const { span, name } = prepareRename(document.getText(), document.offsetAt(position));
          return { range: toRange(document, span), placeholder: name };
        } catch (error) {
          // VS Code shows a thrown error's message where the rename box would be.
          throw error instanceof RenameError ? new Error(error.message) : error;
        }
      },
      async provideRenameEdits(document, position, newName) {
        const { rename, RenameError } = await loadLanguageCore();
        const edit = new vscode.WorkspaceEdit();
        try {
          for (const change of rename(document.getText(), document.offsetAt(position), newName))
            edit.replace(document.uri, toRange(document, change.span), change.newText);
        } catch (error) {
          throw error instanceof RenameError ? new Error(error.message) : error;
        }
        return edit;
      },
    }),
    vscode.languages.registerDocumentSymbolProvider(
      Object.keys(FILE_KIND_OF_LANGUAGE).map((language) => ({ language })),
      {
        async provideDocumentSymbols(document) {
          const convert = (symbol: OutlineSymbol): vscode.DocumentSymbol => {
            const result = new vscode.DocumentSymbol(
              symbol.name,
              symbol.detail,
              SYMBOL_KINDS[symbol.kind],
              toRange(document, symbol.span),
              toRange(document, symbol.selectionSpan),
            );
            result.children = symbol.children.map(convert);
            return result;
          };
          return (await deps.diagnostics.symbolsOf(document, FILE_KIND_OF_LANGUAGE[document.languageId] ?? 'agent')).map(convert);
        },
      },
    ),
  );
}
