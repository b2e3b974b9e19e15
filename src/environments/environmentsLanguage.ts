// The environments file (agent-workflows.yaml) in the editor: its own language, its problems as
// diagnostics as you type (also in Restricted Mode: reading it for validation is safe),
// completion of its keys and of environment names after "default:", and hovers on its keys and
// environment names.
import * as vscode from 'vscode';
import { errorDetail } from '../core/errors';
import type { FixableProblems } from '../language/fixableProblems';
import { ENVIRONMENTS_LANGUAGE_ID } from '../language/languageIds';
import { toItem } from '../language/completionProvider';
import { loadLanguageCore } from '../language/loadLanguageCore';
import { toRange } from '../language/spans';
import { textPositions, toDiagnostic } from '../language/problemsToDiagnostics';
import { currentText } from '../workspaceFiles';
import type { WorkspaceEnvironments } from './workspaceEnvironments';
import { KeyedDelay } from '../core/keyedDelay';

const EDIT_DELAY_MS = 200;

export function registerEnvironmentsLanguage(
  context: vscode.ExtensionContext,
  deps: {
    readonly environments: WorkspaceEnvironments;
    readonly logger: vscode.LogOutputChannel;
    readonly docsUri: vscode.Uri;
    /** Where its problems that suggest a name are kept, for their quick fixes. */
    readonly fixableProblems: FixableProblems;
  },
): vscode.DiagnosticCollection {
  const diagnostics = vscode.languages.createDiagnosticCollection('agent-environments');
  const pending = new KeyedDelay();
  // Checked from the editor's text when open, else from disk; kept when its editor closes.
  const check = async (uri: vscode.Uri): Promise<void> => {
    try {
      const text = await currentText(uri);
      const result = text === undefined ? undefined : await deps.environments.read(uri, text);
      if (text === undefined || !result) {
        deps.fixableProblems.forget(uri);
        diagnostics.delete(uri);
      } else {
        deps.fixableProblems.keep(uri, text, result.problems);
        diagnostics.set(
          uri,
          result.problems.map((problem) => toDiagnostic(problem, textPositions(text), deps.docsUri)),
        );
      }
    } catch (error) {
      deps.logger.error(`Checking ${uri.fsPath} failed: ${errorDetail(error)}`);
    }
  };
  const later = (document: vscode.TextDocument): void => {
    if (document.languageId !== ENVIRONMENTS_LANGUAGE_ID) return;
    pending.schedule(document.uri.toString(), EDIT_DELAY_MS, () => void check(document.uri));
  };

  const completion: vscode.CompletionItemProvider = {
    async provideCompletionItems(document, position) {
      const result = (await loadLanguageCore()).environmentsCompletions(document.getText(), document.offsetAt(position));
      const range = toRange(document, result.replace);
      return result.items.map((entry) => toItem(entry, range));
    },
  };

  const hover: vscode.HoverProvider = {
    async provideHover(document, position) {
      const result = (await loadLanguageCore()).environmentsHover(document.getText(), document.offsetAt(position));
      return result ? new vscode.Hover(new vscode.MarkdownString(result.contents), toRange(document, result.span)) : undefined;
    },
  };

  context.subscriptions.push(
    diagnostics,
    { dispose: () => pending.cancelAll() },
    vscode.workspace.onDidOpenTextDocument((document) => {
      if (document.languageId === ENVIRONMENTS_LANGUAGE_ID) void check(document.uri);
    }),
    vscode.workspace.onDidChangeTextDocument((event) => later(event.document)),
    // Created, changed or deleted on disk.
    deps.environments.onDidChangeFile((uri) => void check(uri)),
    vscode.languages.registerCompletionItemProvider({ language: ENVIRONMENTS_LANGUAGE_ID }, completion, ':', ' '),
    vscode.languages.registerHoverProvider({ language: ENVIRONMENTS_LANGUAGE_ID }, hover),
  );
  for (const document of vscode.workspace.textDocuments) if (document.languageId === ENVIRONMENTS_LANGUAGE_ID) void check(document.uri);
  return diagnostics;
}
