// What the Test Explorer shows of the agent test files: an item per test file (its path relative to
// the workspace) with a child per case at the case's line, in the file's order; the file's problems
// as diagnostics ("agent-tests"), those that suggest a name kept for their quick fixes with the text
// they were read from; and why a file cannot be read, at its item and in Problems. It only shows
// what discovery (testFileDiscovery.ts) read; it reads nothing itself.
import * as vscode from 'vscode';
import type { Problem } from '../core/document/problems';
import type { FixableProblems } from '../language/fixableProblems';
import { rangeOf, toDiagnostic } from '../language/problemsToDiagnostics';
import type { TestFileSummary } from '../language/validationWorkerClient';

export class TestTree implements vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection('agent-tests');

  constructor(
    private readonly controller: vscode.TestController,
    /** Where the problem codes of test files are documented (each diagnostic links there). */
    private readonly docsUri: vscode.Uri,
    private readonly fixableProblems: FixableProblems,
  ) {}

  fileItem(uri: vscode.Uri): vscode.TestItem | undefined {
    return this.controller.items.get(uri.toString());
  }

  /** A test file as read from `text`: its items (a child per case, at its line) and its problems. */
  show(uri: vscode.Uri, summary: TestFileSummary, text: string): void {
    const key = uri.toString();
    const file = this.fileItemFor(uri);
    file.error = summary.failure === undefined ? undefined : errorText(summary.failure, summary.problems);
    const children = summary.cases.map((testCase, index) => {
      const item =
        file.children.get(`${key}::${testCase.name}`) ?? this.controller.createTestItem(`${key}::${testCase.name}`, testCase.name, uri);
      item.range = rangeOf(testCase.range);
      item.sortText = String(index).padStart(6, '0');
      return item;
    });
    file.children.replace(children);
    this.fixableProblems.keep(uri, text, summary.problems);
    this.diagnostics.set(
      uri,
      summary.problems.map((problem) => toDiagnostic(problem, undefined, this.docsUri)),
    );
  }

  /** A test file that cannot be read (too large, not a regular file, too slow to parse): said at its item and in Problems; what was said. */
  showUnreadable(uri: vscode.Uri, why: string): string {
    const message = unreadableMessage(uri, why);
    const file = this.fileItemFor(uri);
    file.error = message;
    file.children.replace([]);
    const diagnostic = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), message, vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'agent-workflows';
    this.fixableProblems.forget(uri);
    this.diagnostics.set(uri, [diagnostic]);
    return message;
  }

  /** A test file gone: its items and diagnostics with it. */
  remove(uri: vscode.Uri): void {
    this.controller.items.delete(uri.toString());
    this.fixableProblems.forget(uri);
    this.diagnostics.delete(uri);
  }

  /** A test file whose text or agent changed: its last results are marked outdated. */
  invalidate(uri: vscode.Uri): void {
    const file = this.fileItem(uri);
    if (file) this.controller.invalidateTestResults(file);
  }

  private fileItemFor(uri: vscode.Uri): vscode.TestItem {
    const key = uri.toString();
    let file = this.controller.items.get(key);
    if (!file) {
      file = this.controller.createTestItem(key, vscode.workspace.asRelativePath(uri), uri);
      this.controller.items.add(file);
    }
    file.range = new vscode.Range(0, 0, 0, 0);
    return file;
  }

  dispose(): void {
    this.diagnostics.dispose();
  }
}

/** The items of a collection (a TestItemCollection is iterable only as [id, item] pairs). */
export function* itemsOf(collection: vscode.TestItemCollection): Iterable<vscode.TestItem> {
  for (const [, item] of collection) yield item;
}

/** The case a case item stands for: its label is the case's name. */
export function caseNameOf(item: vscode.TestItem): string {
  return item.label;
}

/** What the item of a test file that cannot be read says (and a run of it). */
export function unreadableMessage(uri: vscode.Uri, why: string): string {
  return `${vscode.workspace.asRelativePath(uri)} cannot be read, so its cases are not listed: ${why}`;
}

/** A file item's error: why the file cannot run, and its first error problems with their lines. */
function errorText(failure: string, problems: readonly Problem[]): vscode.MarkdownString {
  const errors = problems.filter((problem) => problem.severity === 'error');
  const text = new vscode.MarkdownString();
  text.appendText(failure);
  for (const problem of errors.slice(0, 10)) text.appendMarkdown('\n\n').appendText(`Line ${problem.range.line}: ${problem.message}`);
  return text;
}
