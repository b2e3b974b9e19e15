// Translates core problems into VS Code diagnostics.
import * as vscode from 'vscode';
import { LineIndex } from '../core/document/lineIndex';
import type { Problem, Severity } from '../core/document/problems';

/** Codes whose subject is unused, shown faded as well as underlined. */
const UNNECESSARY = new Set(['unused-input']);

export function toDiagnostic(
  problem: Problem,
  document: { positionAt(offset: number): vscode.Position },
  docsUri: vscode.Uri,
): vscode.Diagnostic {
  const range = new vscode.Range(document.positionAt(problem.span.start), document.positionAt(problem.span.end));
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
