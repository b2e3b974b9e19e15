// Completion and hovers in agent test files: the core decides from the test file's text and the
// agent under test (its editor's text when open, else the file on disk); this side finds that
// agent beside the test file and turns the core's answers into VS Code objects.
import * as vscode from 'vscode';
import { errorDetail } from '../core/errors';
import type { AgentIndex } from '../core/language/agentIndex';
import { toItem } from '../language/completionProvider';
import { TEST_LANGUAGE_ID } from '../language/languageIds';
import { loadLanguageCore } from '../language/loadLanguageCore';
import { toRange } from '../language/spans';
import { currentText } from '../workspaceFiles';

export function registerTestFileLanguage(context: vscode.ExtensionContext, deps: { readonly logger: vscode.LogOutputChannel }): void {
  /** The agent the test file tests, indexed; undefined when it cannot be read (keys are still offered). */
  const agentUnderTest = async (document: vscode.TextDocument): Promise<AgentIndex | undefined> => {
    const core = await loadLanguageCore();
    const folder = vscode.Uri.joinPath(document.uri, '..');
    const agentUri = vscode.Uri.joinPath(folder, core.agentPathOf(document.getText(), document.uri.path.split('/').pop() ?? ''));
    try {
      const text = await currentText(agentUri);
      return text === undefined ? undefined : core.indexAgentText(text);
    } catch (error) {
      deps.logger.warn(`Reading the agent under test ${agentUri.fsPath} failed: ${errorDetail(error)}`);
      return undefined;
    }
  };

  const completion: vscode.CompletionItemProvider = {
    async provideCompletionItems(document, position) {
      const core = await loadLanguageCore();
      const result = core.testFileCompletions(document.getText(), document.offsetAt(position), await agentUnderTest(document));
      const range = toRange(document, result.replace);
      return result.items.map((entry) => toItem(entry, range));
    },
  };

  const hover: vscode.HoverProvider = {
    async provideHover(document, position) {
      const core = await loadLanguageCore();
      const result = core.testFileHover(document.getText(), document.offsetAt(position), await agentUnderTest(document));
      return result ? new vscode.Hover(new vscode.MarkdownString(result.contents), toRange(document, result.span)) : undefined;
    },
  };

  context.subscriptions.push(
    vscode.languages.registerCompletionItemProvider({ language: TEST_LANGUAGE_ID }, completion, ':', ' ', '$', '{'),
    vscode.languages.registerHoverProvider({ language: TEST_LANGUAGE_ID }, hover),
  );
}
