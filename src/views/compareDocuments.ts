// Read-only documents for VS Code's diff editor, on a scheme of their own (as the exchange view's
// `agent-exchange:`): the text of each side is made when the comparison is asked for and kept,
// bounded, until the editor reads it; reopened later, a side no longer kept says so. One provider
// for the scheme, shared by Compare of two executions and the rows of a batch comparison.
import * as vscode from 'vscode';
import { KeptTexts } from '../core/compare/keptTexts';

export const COMPARE_SCHEME = 'agent-compare';

/** Documents kept (two a comparison); the oldest go first. */
const DOCUMENTS_KEPT = 40;
/**
 * Characters of the documents kept in all (UTF-16: twice as many bytes); the oldest go first, but
 * never the newest two. A document's values are cut at 1,000,000 characters each.
 */
const CHARS_KEPT = 16 * 1024 * 1024;

export class CompareDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new KeptTexts(DOCUMENTS_KEPT, CHARS_KEPT);
  private readonly registration: vscode.Disposable;
  private count = 0;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, this);
  }

  dispose(): void {
    this.registration.dispose();
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '// This comparison is no longer kept: compare again.\n';
  }

  /** A document holding `text`, named `title` (its extension gives the language). */
  add(title: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/${++this.count}/${title.replace(/[/\\]/g, '-')}` });
    this.texts.set(uri.toString(), text);
    return uri;
  }
}
