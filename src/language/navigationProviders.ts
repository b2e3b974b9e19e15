// Definition in agent files, from the core's navigation; references and rename across an agent file
// and the workspace's test files of it, started from either; definition, references and rename of
// environment names in the environments file, reaching the overrides of the agent files it applies
// to; the outline of agent, test and environments files.
import * as vscode from 'vscode';
import type { OutlineSymbol } from '../core/document/outlineSymbol';
import { errorDetail } from '../core/errors';
import type { AgentIndex } from '../core/language/agentIndex';
import type { FileText } from '../core/language/quickFixes';
import type { AgentName } from '../core/testing/testFileReferences';
import { currentText } from '../workspaceFiles';
import { agentsOfEnvironmentsFile } from './agentsOfEnvironmentsFile';
import type { EnvironmentsFileLookup } from './agentsOfEnvironmentsFile';
import { AGENT_LANGUAGE_ID, ENVIRONMENTS_LANGUAGE_ID, FILE_KIND_OF_LANGUAGE, TEST_LANGUAGE_ID } from './languageIds';
import type * as LanguageCore from './languageCore';
import { textPositions } from './problemsToDiagnostics';
import { agentUriOf, workspaceTestFiles } from './testFilesOfAgent';
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
  readonly logger: vscode.LogOutputChannel;
  /** Computes the outline in its worker: VS Code asks for it on every change (breadcrumbs, outline). */
  readonly diagnostics: AgentDiagnostics;
  /** Which environments file applies to an agent file: an environment's rename reaches those agents' overrides. */
  readonly environments: EnvironmentsFileLookup;
}

export function registerNavigationProviders(context: vscode.ExtensionContext, deps: NavigationDeps): void {
  const selector = { language: AGENT_LANGUAGE_ID };
  // References and rename reach from an agent into its test files, and start from either.
  const crossFileSelector = [selector, { language: TEST_LANGUAGE_ID }];
  context.subscriptions.push(
    vscode.languages.registerDefinitionProvider(selector, {
      async provideDefinition(document, position) {
        const span = (await loadLanguageCore()).definition(document.getText(), document.offsetAt(position));
        return span ? new vscode.Location(document.uri, toRange(document, span)) : undefined;
      },
    }),
    vscode.languages.registerReferenceProvider(crossFileSelector, {
      async provideReferences(document, position, context, token) {
        const core = await loadLanguageCore();
        const start = await startOf(core, document, position).catch((error: unknown) => {
          deps.logger.warn(`References: the agent under test of ${document.uri.toString(true)} cannot be read: ${errorDetail(error)}`);
          return undefined;
        });
        if (!start?.name) return [];
        const testFiles = await workspaceTestFiles(core, deps.logger, token);
        const texts = textsByPath([start.agent, ...testFiles]);
        return core
          .crossFileReferences(start.agent, start.name, testFiles, context.includeDeclaration)
          .map(({ path, span }) => new vscode.Location(vscode.Uri.parse(path), toRange(texts.positionsOf(path), span)));
      },
    }),
    vscode.languages.registerRenameProvider(crossFileSelector, {
      async prepareRename(document, position) {
        const core = await loadLanguageCore();
        try {
          if (document.languageId !== TEST_LANGUAGE_ID) {
            const { span, name } = core.prepareRename(document.getText(), document.offsetAt(position));
            return { range: toRange(document, span), placeholder: name };
          }
          const start = await startOf(core, document, position);
          if (!start) throw new Error(agentUnreadable(core, document));
          const { span, name } = core.prepareTestFileRename(document.getText(), document.offsetAt(position), start.agent.index);
          return { range: toRange(document, span), placeholder: name };
        } catch (error) {
          throw refusedRename(core, error);
        }
      },
      async provideRenameEdits(document, position, newName, token) {
        const core = await loadLanguageCore();
        const start = await startOf(core, document, position);
        if (!start) throw new Error(agentUnreadable(core, document));
        const testFiles = await workspaceTestFiles(core, deps.logger, token);
        const texts = textsByPath([start.agent, ...testFiles]);
        const edit = new vscode.WorkspaceEdit();
        try {
          for (const { path, edits } of core.crossFileRename(start.agent, start.name, testFiles, newName)) {
            const uri = vscode.Uri.parse(path);
            for (const change of edits) edit.replace(uri, toRange(texts.positionsOf(path), change.span), change.newText);
          }
        } catch (error) {
          throw refusedRename(core, error);
        }
        return edit;
      },
    }),
    ...registerEnvironmentNavigation(deps),
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

/**
 * An environment's name in agent-workflows.yaml: its declaration, where `default:` names it, and the
 * overrides of the agent files the file applies to.
 */
function registerEnvironmentNavigation(deps: NavigationDeps): vscode.Disposable[] {
  const selector = { language: ENVIRONMENTS_LANGUAGE_ID };
  return [
    vscode.languages.registerDefinitionProvider(selector, {
      async provideDefinition(document, position) {
        const span = (await loadLanguageCore()).environmentsDefinition(document.getText(), document.offsetAt(position));
        return span ? new vscode.Location(document.uri, toRange(document, span)) : undefined;
      },
    }),
    vscode.languages.registerReferenceProvider(selector, {
      async provideReferences(document, position, context, token) {
        const core = await loadLanguageCore();
        const offset = document.offsetAt(position);
        const environments = { path: document.uri.toString(), text: document.getText() };
        // No environment name here: no agent file to read.
        if (core.environmentsReferences(environments.text, offset, true).length === 0) return [];
        const agents = await agentsOfEnvironmentsFile(document.uri, deps.environments, deps.logger, token);
        const texts = textsByPath([environments, ...agents]);
        return core
          .environmentReferencesAcross(environments, offset, context.includeDeclaration, agents)
          .map(({ path, span }) => new vscode.Location(vscode.Uri.parse(path), toRange(texts.positionsOf(path), span)));
      },
    }),
    vscode.languages.registerRenameProvider(selector, {
      async prepareRename(document, position) {
        const core = await loadLanguageCore();
        try {
          const { span, name } = core.prepareEnvironmentRename(document.getText(), document.offsetAt(position));
          return { range: toRange(document, span), placeholder: name };
        } catch (error) {
          throw refusedRename(core, error);
        }
      },
      async provideRenameEdits(document, position, newName, token) {
        const core = await loadLanguageCore();
        const environments = { path: document.uri.toString(), text: document.getText() };
        const offset = document.offsetAt(position);
        const edit = new vscode.WorkspaceEdit();
        try {
          // Refused before any agent file is read when the name or the position is wrong.
          core.prepareEnvironmentRename(environments.text, offset);
          const agents = await agentsOfEnvironmentsFile(document.uri, deps.environments, deps.logger, token);
          const texts = textsByPath([environments, ...agents]);
          for (const { path, edits } of core.renameEnvironmentAcross(environments, offset, newName, agents)) {
            const uri = vscode.Uri.parse(path);
            for (const change of edits) edit.replace(uri, toRange(texts.positionsOf(path), change.span), change.newText);
          }
        } catch (error) {
          throw refusedRename(core, error);
        }
        return edit;
      },
    }),
  ];
}

/** Where references or a rename start: the agent file (the document's, or the one a test file tests) and the name at the position. */
async function startOf(
  core: typeof LanguageCore,
  document: vscode.TextDocument,
  position: vscode.Position,
): Promise<
  | { readonly agent: { readonly path: string; readonly text: string; readonly index: AgentIndex }; readonly name: AgentName | undefined }
  | undefined
> {
  const offset = document.offsetAt(position);
  if (document.languageId !== TEST_LANGUAGE_ID) {
    const text = document.getText();
    const index = core.indexAgentText(text);
    return { agent: { path: document.uri.toString(), text, index }, name: core.symbolAt(index, offset) };
  }
  const agentUri = agentUriOf(core, document.uri, document.getText());
  const text = await currentText(agentUri);
  if (text === undefined) return undefined;
  return {
    agent: { path: agentUri.toString(), text, index: core.indexAgentText(text) },
    name: core.testFileNameAt(document.getText(), offset),
  };
}

/** A rename the core refused, as VS Code shows it: a thrown error's message where the rename box would be. */
function refusedRename(core: typeof LanguageCore, error: unknown): unknown {
  return error instanceof core.RenameError ? new Error(error.message) : error;
}

function agentUnreadable(core: typeof LanguageCore, document: vscode.TextDocument): string {
  return `The agent under test, ${core.agentPathOf(document.getText(), document.uri.path.split('/').pop() ?? '')}, cannot be read: nothing to rename.`;
}

/** Positions in the texts of a rename or a search (an agent's and its test files', or an environments file's and its agents'), by the path the core was given. */
function textsByPath(files: readonly FileText[]): {
  positionsOf(path: string): ReturnType<typeof textPositions>;
} {
  const texts = new Map(files.map((file) => [file.path, file.text]));
  const positions = new Map<string, ReturnType<typeof textPositions>>();
  return {
    positionsOf(path) {
      let found = positions.get(path);
      if (!found) positions.set(path, (found = textPositions(texts.get(path) ?? '')));
      return found;
    },
  };
}
