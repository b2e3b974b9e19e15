// The problems shown on open test files and environments files that suggest a name (the core's
// `data.replacement`), kept with the document version they were computed for: VS Code's diagnostics
// do not carry the core's Problem, and those problems are computed elsewhere (the Test Explorer's
// reads in the language worker, the environments file's checks), so the quick fixes
// (codeActionProvider.ts) take them from here, and only for the very text they were computed from.
import type * as vscode from 'vscode';
import type { Problem } from '../core/document/problems';
import { openDocument } from '../workspaceFiles';

/** Documents whose problems are kept at once (each an open document; the oldest goes first). */
const MAX_DOCUMENTS = 256;

export class FixableProblems {
  private readonly kept = new Map<string, { readonly version: number; readonly problems: readonly Problem[] }>();

  /**
   * The problems computed from `text` for a file: kept when its open document has that text now (at
   * its current version); else what was kept of it goes, as it no longer matches the diagnostics.
   */
  keep(uri: vscode.Uri, text: string, problems: readonly Problem[]): void {
    const key = uri.toString();
    this.kept.delete(key);
    const suggesting = problems.filter((problem) => problem.data?.replacement !== undefined);
    if (suggesting.length === 0) return;
    const document = openDocument(uri);
    if (!document || document.getText() !== text) return;
    if (this.kept.size >= MAX_DOCUMENTS) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, { version: document.version, problems: suggesting });
  }

  /** The problems kept for a document's current text; none when it changed since they were computed. */
  of(document: vscode.TextDocument): readonly Problem[] {
    const entry = this.kept.get(document.uri.toString());
    return entry?.version === document.version ? entry.problems : [];
  }

  forget(uri: vscode.Uri): void {
    this.kept.delete(uri.toString());
  }
}
