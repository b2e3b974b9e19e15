// Quick fixes for the problems the validator reports, computed by the core and applied as edits.
// A credential moved out of the file is then offered for the secret storage. In test files and the
// environments file, a problem that suggests a name offers to write it (the core's nameQuickFixes).
import * as vscode from 'vscode';
import type { AgentIndex } from '../core/language/agentIndex';
import type { QuickFix } from '../core/language/quickFixes';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';
import { AGENT_LANGUAGE_ID, ENVIRONMENTS_LANGUAGE_ID, TEST_LANGUAGE_ID } from './languageIds';
import type { AgentDiagnostics } from './agentDiagnostics';
import type { FixableProblems } from './fixableProblems';
import { loadLanguageCore } from './loadLanguageCore';
import { rangeOf } from './problemsToDiagnostics';
import { toRange } from './spans';

export interface CodeActionDeps {
  readonly workflowSecrets: WorkflowSecrets;
  readonly logger: vscode.LogOutputChannel;
  /** The problems of the last check, so asking for fixes does not validate again on this thread. */
  readonly diagnostics: AgentDiagnostics;
  /** The problems shown on open test and environments files that suggest a name, with the text they were computed for. */
  readonly fixableProblems: FixableProblems;
}

/** A quick fix's second step: storing the secret it moved out of the file (internal, not in the palette). */
export const STORE_SECRET_COMMAND = 'agentWorkflows.storeMovedSecret';

/** Notes about the check itself, with nothing to fix in the text. */
const NO_FIXES = new Set(['too-many-problems', 'validation-stopped']);

export function registerCodeActionProvider(context: vscode.ExtensionContext, deps: CodeActionDeps): void {
  const provider: vscode.CodeActionProvider = {
    async provideCodeActions(document, range, actionContext) {
      const ours = actionContext.diagnostics.filter(
        (diagnostic) => diagnostic.source === 'agent-workflows' && !NO_FIXES.has(codeOf(diagnostic)),
      );
      if (ours.length === 0) return [];
      // Until this version's check is done, the diagnostics are of an older text: none are offered
      // then, rather than validating here, on the extension host (a second for a large file), on
      // every request while typing. VS Code asks again when the diagnostics change.
      const problems = deps.diagnostics.problemsOf(document);
      if (problems === undefined) return [];
      const { indexAgentText, quickFixes } = await loadLanguageCore();
      const text = document.getText();
      let index: AgentIndex | undefined;
      const actions: vscode.CodeAction[] = [];
      for (const diagnostic of ours) {
        const code = codeOf(diagnostic);
        const problem = problems.find((p) => p.code === code && toRange(document, p.span).isEqual(diagnostic.range));
        if (!problem || !range.intersection(diagnostic.range)) continue;
        // Indexing parses the file: only once a diagnostic here has a problem to fix.
        index ??= indexAgentText(text);
        for (const fix of quickFixes(text, problem, index)) {
          const action = toCodeAction(document, diagnostic, fix);
          if (fix.storeSecret)
            action.command = {
              title: 'Store the secret',
              command: STORE_SECRET_COMMAND,
              arguments: [fix.storeSecret.name, fix.storeSecret.value],
            };
          actions.push(action);
        }
      }
      return actions;
    },
  };
  context.subscriptions.push(
    vscode.languages.registerCodeActionsProvider({ language: AGENT_LANGUAGE_ID }, provider, {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
    }),
    vscode.commands.registerCommand(STORE_SECRET_COMMAND, (name: string, value: string) => offerToStore(deps, name, value)),
    vscode.languages.registerCodeActionsProvider(
      [{ language: TEST_LANGUAGE_ID }, { language: ENVIRONMENTS_LANGUAGE_ID }],
      nameFixProvider(deps.fixableProblems),
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
    ),
    // A closed document's problems are computed again when it opens (and its versions start over).
    vscode.workspace.onDidCloseTextDocument((document) => deps.fixableProblems.forget(document.uri)),
  );
}

/**
 * Test files' and the environments file's fixes: their problems are computed elsewhere (the Test
 * Explorer's reads in the language worker, the environments file's checks) and kept for the text
 * they were computed from; a document changed since has none until it is checked again.
 */
function nameFixProvider(fixableProblems: FixableProblems): vscode.CodeActionProvider {
  return {
    async provideCodeActions(document, range, actionContext) {
      const ours = actionContext.diagnostics.filter(
        (diagnostic) => diagnostic.source === 'agent-workflows' && range.intersection(diagnostic.range) !== undefined,
      );
      if (ours.length === 0 || fixableProblems.of(document).length === 0) return [];
      const { nameQuickFixes } = await loadLanguageCore();
      // Read after the load, in one go: the text and the problems kept for its version.
      const problems = fixableProblems.of(document);
      const text = document.getText();
      const actions: vscode.CodeAction[] = [];
      for (const diagnostic of ours) {
        const code = codeOf(diagnostic);
        // The Test Explorer places a test file's diagnostics by the problem's line and column, the
        // others by its offsets: either is the problem's place in this same text.
        const problem = problems.find(
          (p) => p.code === code && (toRange(document, p.span).isEqual(diagnostic.range) || rangeOf(p.range).isEqual(diagnostic.range)),
        );
        if (problem) for (const fix of nameQuickFixes(text, problem)) actions.push(toCodeAction(document, diagnostic, fix));
      }
      return actions;
    },
  };
}

/** A core quick fix as VS Code's: its edits in one WorkspaceEdit, for its diagnostic. */
function toCodeAction(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, fix: QuickFix): vscode.CodeAction {
  const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
  action.diagnostics = [diagnostic];
  action.isPreferred = fix.isPreferred ?? false;
  action.edit = new vscode.WorkspaceEdit();
  for (const edit of fix.edits) action.edit.replace(document.uri, toRange(document, edit.span), edit.newText);
  return action;
}

function codeOf(diagnostic: vscode.Diagnostic): string {
  return typeof diagnostic.code === 'object' ? String(diagnostic.code.value) : String(diagnostic.code);
}

/** After the value left the file: keep it in the secret storage, if the user wants. */
async function offerToStore(deps: CodeActionDeps, name: string, value: string): Promise<boolean> {
  const store = 'Store Secret';
  const choice = await vscode.window.showInformationMessage(
    `The value was replaced by {{ secrets.${name} }}. Store it as secret ${name} in VS Code's secret storage, for runs from VS Code?`,
    store,
    "Don't Store",
  );
  if (choice !== store) return false;
  await deps.workflowSecrets.set(name, value);
  deps.logger.info(`Stored workflow secret ${name} (value not logged).`);
  return true;
}
