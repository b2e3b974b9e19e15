// Completion, hovers and Go to Definition in agent test files: the core decides from the test file's text and the
// agent under test (its editor's text when open, else the file on disk); this side finds that
// agent beside the test file and turns the core's answers into VS Code objects.
import * as vscode from 'vscode';
import { errorDetail } from '../core/errors';
import type { AgentIndex } from '../core/language/agentIndex';
import { toItem } from '../language/completionProvider';
import { TEST_LANGUAGE_ID } from '../language/languageIds';
import { loadLanguageCore } from '../language/loadLanguageCore';
import type * as LanguageCore from '../language/languageCore';
import { textPositions } from '../language/problemsToDiagnostics';
import { toRange } from '../language/spans';
import { currentText } from '../workspaceFiles';

export function registerTestFileLanguage(context: vscode.ExtensionContext, deps: { readonly logger: vscode.LogOutputChannel }): void {
  // Completion is asked at every trigger character: the agent is indexed again only when its text changed.
  let last: { readonly text: string; readonly index: AgentIndex } | undefined;
  /** The agent the test file tests, indexed; undefined when it cannot be read (keys are still offered). */
  const agentUnderTestOf = async (
    core: typeof LanguageCore,
    document: vscode.TextDocument,
  ): Promise<{ readonly uri: vscode.Uri; readonly text: string; readonly index: AgentIndex } | undefined> => {
    const folder = vscode.Uri.joinPath(document.uri, '..');
    const uri = vscode.Uri.joinPath(folder, core.agentPathOf(document.getText(), document.uri.path.split('/').pop() ?? ''));
    try {
      const text = await currentText(uri);
      if (text === undefined) return undefined;
      if (last?.text !== text) last = { text, index: core.indexAgentText(text) };
      return { uri, ...last };
    } catch (error) {
      deps.logger.warn(`Reading the agent under test ${uri.fsPath} failed: ${errorDetail(error)}`);
      return undefined;
    }
  };
  const agentUnderTest = async (core: typeof LanguageCore, document: vscode.TextDocument): Promise<AgentIndex | undefined> =>
    (await agentUnderTestOf(core, document))?.index;

  const completion: vscode.CompletionItemProvider = {
    async provideCompletionItems(document, position) {
      const core = await loadLanguageCore();
      const result = core.testFileCompletions(document.getText(), document.offsetAt(position), await agentUnderTest(core, document));
      const range = toRange(document, result.replace);
      return result.items.map((entry) => toItem(entry, range));
    },
  };

  const hover: vscode.HoverProvider = {
    async provideHover(document, position) {
      const core = await loadLanguageCore();
      const result = core.testFileHover(document.getText(), document.offsetAt(position), await agentUnderTest(core, document));
      return result ? new vscode.Hover(new vscode.MarkdownString(result.contents), toRange(document, result.span)) : undefined;
    },
  };

  const definition: vscode.DefinitionProvider = {
    async provideDefinition(document, position) {
      const core = await loadLanguageCore();
      const agent = await agentUnderTestOf(core, document);
      const found = agent ? core.testFileDefinition(document.getText(), document.offsetAt(position), agent.index) : undefined;
      if (!agent || !found) return undefined;
      if (found.in === 'agent-file') return new vscode.Location(agent.uri, new vscode.Position(0, 0));
      return new vscode.Location(agent.uri, toRange(textPositions(agent.text), found.span));
    },
  };

  context.subscriptions.push(
    vscode.languages.registerCompletionItemProvider({ language: TEST_LANGUAGE_ID }, completion, ':', ' ', '$', '{'),
    vscode.languages.registerHoverProvider({ language: TEST_LANGUAGE_ID }, hover),
    vscode.languages.registerDefinitionProvider({ language: TEST_LANGUAGE_ID }, definition),
  );
}
