// The core's answers (problems, completions, hovers, symbols, edits) as Language Server Protocol
// values, the way src/language/ turns them into VS Code's: the same ranges, codes and kinds.
import {
  CompletionItemKind,
  DiagnosticSeverity,
  DiagnosticTag,
  InsertTextFormat,
  InsertTextMode,
  SymbolKind,
} from 'vscode-languageserver/node';
import type { CompletionItem, Diagnostic, DocumentSymbol, Range } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Problem, Severity, Span } from '../core/document/problems';
import type { CompletionEntry, CompletionKind } from '../core/language/completion';
import type { OutlineSymbol } from '../core/document/outlineSymbol';

/** Where each problem code is explained (the section of docs/agent-yaml.md named by the code). */
export const PROBLEM_DOCS_URL = 'https://github.com/agent-workflows/vscode-agent-workflows/blob/main/docs/agent-yaml.md';

/** Codes whose subject is unused, shown faded as well as underlined (as in VS Code). */
const UNNECESSARY = new Set(['unused-input']);

const SEVERITIES: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

const COMPLETION_KINDS: Record<CompletionKind, CompletionItemKind> = {
  property: CompletionItemKind.Property,
  value: CompletionItemKind.Value,
  header: CompletionItemKind.Field,
  keyword: CompletionItemKind.Keyword,
  reference: CompletionItemKind.Reference,
  field: CompletionItemKind.Field,
  secret: CompletionItemKind.Constant,
};

const SYMBOL_KINDS: Record<OutlineSymbol['kind'], SymbolKind> = {
  section: SymbolKind.Namespace,
  input: SymbolKind.Variable,
  node: SymbolKind.Function,
  output: SymbolKind.Property,
  case: SymbolKind.Method,
  environment: SymbolKind.Object,
  field: SymbolKind.Field,
};

export function rangeOfSpan(document: TextDocument, span: Span): Range {
  return { start: document.positionAt(span.start), end: document.positionAt(span.end) };
}

/**
 * A problem as a diagnostic. At its span in the text, as the extension shows agent and
 * environments files; `byLine`: at the problem's own line and column range, as it shows test files.
 */
export function toDiagnostic(problem: Problem, document: TextDocument | undefined, byLine = false): Diagnostic {
  const range: Range =
    document && !byLine
      ? rangeOfSpan(document, problem.span)
      : {
          start: { line: problem.range.line - 1, character: problem.range.column - 1 },
          end: { line: problem.range.endLine - 1, character: problem.range.endColumn - 1 },
        };
  return {
    range,
    severity: SEVERITIES[problem.severity],
    code: problem.code,
    codeDescription: { href: `${PROBLEM_DOCS_URL}#${problem.code}` },
    source: 'agent-workflows',
    message: problem.message,
    ...(UNNECESSARY.has(problem.code) ? { tags: [DiagnosticTag.Unnecessary] } : {}),
  };
}

/**
 * A completion entry as an item replacing `replace`. The core writes snippets with tabs for one
 * indentation step, which VS Code turns into the editor's indentation; here the text is indented
 * as the line it goes on, with two spaces a step (YAML allows no tabs), and inserted as it is.
 */
export function toCompletionItem(entry: CompletionEntry, replace: Range, lineIndent: string, snippets: boolean): CompletionItem {
  const written = (entry.insertText ?? entry.label).replace(/\t/g, '  ').replace(/\n/g, `\n${lineIndent}`);
  const newText = entry.snippet && !snippets ? plainSnippet(written) : written;
  return {
    label: entry.label,
    kind: COMPLETION_KINDS[entry.kind],
    ...(entry.detail ? { detail: entry.detail } : {}),
    ...(entry.documentation ? { documentation: { kind: 'markdown', value: entry.documentation } } : {}),
    ...(entry.sortText ? { sortText: entry.sortText } : {}),
    textEdit: { range: replace, newText },
    insertTextFormat: entry.snippet && snippets ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
    insertTextMode: InsertTextMode.asIs,
  };
}

/** A snippet's text without its tab stops and placeholders, for a client that has no snippets. */
export function plainSnippet(snippet: string): string {
  return snippet
    .replace(/\$\{\d+:([^}]*)\}/g, '$1')
    .replace(/\$\{\d+\|([^,|]*)[^}]*\}/g, '$1')
    .replace(/\$\{?\d+\}?/g, '')
    .replace(/\\([$}\\])/g, '$1');
}

export function toDocumentSymbol(document: TextDocument, symbol: OutlineSymbol): DocumentSymbol {
  return {
    name: symbol.name,
    ...(symbol.detail ? { detail: symbol.detail } : {}),
    kind: SYMBOL_KINDS[symbol.kind],
    range: rangeOfSpan(document, symbol.span),
    selectionRange: rangeOfSpan(document, symbol.selectionSpan),
    children: symbol.children.map((child) => toDocumentSymbol(document, child)),
  };
}
