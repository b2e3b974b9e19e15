// Translates core problems into VS Code diagnostics.
import * as vscode from 'vscode';
import { LineIndex } from '../core/document/lineIndex';
import type { LineRange, Problem, Severity } from '../core/document/problems';

/** Codes whose subject is unused, shown faded as well as underlined. */
const UNNECESSARY = new Set(['unused-input']);

/** A problem as a diagnostic; without `document` (its text not at hand), at the problem's own line and column range. */
export function toDiagnostic(
  problem: Problem,
  document: { positionAt(offset: number): vscode.Position } | undefined,
  docsUri: vscode.Uri,
): vscode.Diagnostic {
  const range = document
    ? new vscode.Range(document.positionAt(problem.span.start), document.positionAt(problem.span.end))
    : rangeOf(problem.range);
  const diagnostic = new vscode.Diagnostic(range, problem.message, toSeverity(problem.severity));
  diagnostic.source = 'agent-workflows';
  diagnostic.code = { value: problem.code, target: docsUri.with({ fragment: problem.code }) };
  if (UNNECESSARY.has(problem.code)) diagnostic.tags = [vscode.DiagnosticTag.Unnecessary];
  return diagnostic;
}

function toSeverity(severity: Severity): vscode.DiagnosticSeverity {
  switch (severity) {
    case 'error':
      return vscode.DiagnosticSeverity.Error;
    case 'warning':
      return vscode.DiagnosticSeverity.Warning;
    default:
      return vscode.DiagnosticSeverity.Information;
  }
}

/** A core 1-based line/column range as a VS Code range. */
export function rangeOf(range: LineRange): vscode.Range {
  return new vscode.Range(range.line - 1, range.column - 1, range.endLine - 1, range.endColumn - 1);
}

/** A document-like view of text read from disk, for files that are not open. */
export function textPositions(text: string): { positionAt(offset: number): vscode.Position } {
  const lines = new LineIndex(text);
  return {
    positionAt(offset: number): vscode.Position {
      const { line, column } = lines.position(offset);
      return new vscode.Position(line - 1, column - 1);
    },
  };
}
