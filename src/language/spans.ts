// Core spans (UTF-16 offsets) to VS Code ranges and back.
import * as vscode from 'vscode';
import type { Span } from '../core/document/problems';

export function toRange(document: Pick<vscode.TextDocument, 'positionAt'>, span: Span): vscode.Range {
  return new vscode.Range(document.positionAt(span.start), document.positionAt(span.end));
}
