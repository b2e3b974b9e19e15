// Keeps the Problems panel in step with agent files: open documents are checked as they change
// (debounced) and cleared when closed; files checked from disk are re-checked when they change.
import * as vscode from 'vscode';
import { decodeAgentFile } from '../core/parse';
import type { Problem } from '../core/problems';
import { validateAgentText } from '../core/validate';
import { affects, validationSettings } from '../config';
import { textPositions, toDiagnostic } from './problemsToDiagnostics';

export const AGENT_LANGUAGE_ID = 'agent-yaml';
export const AGENT_FILE_GLOB = '**/*.{agent.yaml,agent.yml}';

export interface AgentDiagnosticsDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly docsUri: vscode.Uri;
}

export class AgentDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('agent-yaml');
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  /** Files checked from disk (not open), re-checked when they change on disk. */
  private readonly checkedOnDisk = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  private settings = validationSettings();

  constructor(private readonly deps: AgentDiagnosticsDeps) {
    const watcher = vscode.workspace.createFileSystemWatcher(AGENT_FILE_GLOB);
    this.disposables.push(
      this.collection,
      watcher,
      vscode.workspace.onDidOpenTextDocument((document) => this.checkDocumentNow(document)),
      vscode.workspace.onDidChangeTextDocument((event) => this.schedule(event.document)),
      vscode.workspace.onDidCloseTextDocument((document) => void this.onClosed(document.uri, document.languageId)),
      // Closing the last tab of a file does not dispose its document at once; the user sees the
      // file closed, so its problems go then.
      vscode.window.tabGroups.onDidChangeTabs((event) => {
        this.onTabsClosed(event.closed);
        this.onTabsOpened(event.opened);
      }),
      watcher.onDidChange((uri) => void this.onDiskChange(uri)),
      watcher.onDidDelete((uri) => this.forget(uri)),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (!affects(event, 'validation')) return;
        this.settings = validationSettings();
        if (this.settings.enabled) this.checkOpenDocuments();
        else this.clearAll();
      }),
    );
    this.checkOpenDocuments();
  }

  /** Checks a document now and publishes its problems; returns them. */
  checkDocument(document: vscode.TextDocument): readonly Problem[] {
    this.cancelPending(document.uri);
    const problems = validateAgentText(document.getText()).problems;
    this.collection.set(document.uri, problems.map((problem) => toDiagnostic(problem, document, this.deps.docsUri)));
    return problems;
  }

  /** Checks a file: the open document's text if it is open (unless told to read the disk). */
  async checkFile(uri: vscode.Uri, options: { fromDisk?: boolean } = {}): Promise<readonly Problem[]> {
    const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
    if (open && !options.fromDisk) return this.checkDocument(open);
    this.checkedOnDisk.add(uri.toString());
    let text: string;
    try {
      const decoded = decodeAgentFile(await vscode.workspace.fs.readFile(uri));
      if ('error' in decoded) {
        const problem = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), decoded.error, vscode.DiagnosticSeverity.Error);
        problem.source = 'agent-workflows';
        problem.code = decoded.code;
        this.collection.set(uri, [problem]);
        return [];
      }
      text = decoded.text;
    } catch (error) {
      this.deps.logger.warn(`Cannot read ${uri.toString(true)}: ${error instanceof Error ? error.message : String(error)}`);
      this.forget(uri);
      return [];
    }
    const problems = validateAgentText(text).problems;
    const positions = textPositions(text);
    this.collection.set(uri, problems.map((problem) => toDiagnostic(problem, positions, this.deps.docsUri)));
    return problems;
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    for (const disposable of this.disposables) disposable.dispose();
  }

  private checkDocumentNow(document: vscode.TextDocument): void {
    if (!this.isAgentDocument(document)) return;
    try {
      this.checkDocument(document);
    } catch (error) {
      // The core never throws for bad input; a throw here is a bug, logged rather than lost.
      this.deps.logger.error(`Validation of ${document.uri.toString(true)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }

  private schedule(document: vscode.TextDocument): void {
    if (!this.isAgentDocument(document)) return;
    this.cancelPending(document.uri);
    const key = document.uri.toString();
    this.pending.set(
      key,
      setTimeout(() => {
        this.pending.delete(key);
        if (!document.isClosed) this.checkDocumentNow(document);
      }, this.settings.delay),
    );
  }

  private async onClosed(uri: vscode.Uri, languageId: string): Promise<void> {
    if (languageId !== AGENT_LANGUAGE_ID) return;
    this.cancelPending(uri);
    // A file the workspace check covers keeps its problems, as they are on disk now.
    if (this.checkedOnDisk.has(uri.toString()) && uri.scheme !== 'untitled') await this.checkFile(uri, { fromDisk: true });
    else this.collection.delete(uri);
  }

  /** A document kept in memory after its tab closed gets no open event when shown again. */
  private onTabsOpened(opened: readonly vscode.Tab[]): void {
    for (const tab of opened) {
      if (!(tab.input instanceof vscode.TabInputText)) continue;
      const uri = tab.input.uri.toString();
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      if (document) this.checkDocumentNow(document);
    }
  }

  private onTabsClosed(closed: readonly vscode.Tab[]): void {
    const stillShown = new Set(
      vscode.window.tabGroups.all.flatMap((group) => group.tabs).flatMap((tab) => (tab.input instanceof vscode.TabInputText ? [tab.input.uri.toString()] : [])),
    );
    for (const tab of closed) {
      if (!(tab.input instanceof vscode.TabInputText) || stillShown.has(tab.input.uri.toString())) continue;
      const uri = tab.input.uri;
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (document) void this.onClosed(uri, document.languageId);
    }
  }

  private async onDiskChange(uri: vscode.Uri): Promise<void> {
    const open = vscode.workspace.textDocuments.some((document) => document.uri.toString() === uri.toString());
    // Open documents are re-checked through their change events; files checked from disk here.
    if (!open && this.checkedOnDisk.has(uri.toString()) && this.settings.enabled) await this.checkFile(uri);
  }

  private forget(uri: vscode.Uri): void {
    this.cancelPending(uri);
    this.checkedOnDisk.delete(uri.toString());
    this.collection.delete(uri);
  }

  private checkOpenDocuments(): void {
    for (const document of vscode.workspace.textDocuments) this.checkDocumentNow(document);
  }

  private clearAll(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    this.checkedOnDisk.clear();
    this.collection.clear();
  }

  private cancelPending(uri: vscode.Uri): void {
    const key = uri.toString();
    const timer = this.pending.get(key);
    if (timer) clearTimeout(timer);
    this.pending.delete(key);
  }

  private isAgentDocument(document: vscode.TextDocument): boolean {
    return this.settings.enabled && document.languageId === AGENT_LANGUAGE_ID;
  }
}

export function registerDiagnostics(context: vscode.ExtensionContext, deps: AgentDiagnosticsDeps): AgentDiagnostics {
  const diagnostics = new AgentDiagnostics(deps);
  context.subscriptions.push(diagnostics);
  return diagnostics;
}
