// Keeps the Problems panel in step with agent files: open documents are checked as they change
// (debounced) and cleared when closed; files checked from disk are re-checked when they change.
// The checks run in a worker thread (ValidationWorker), so the extension host stays responsive.
import * as vscode from 'vscode';
import type { OutlineSymbol } from '../core/document/outlineSymbol';
import type { ParsedFileKind } from '../core/document/parse';
import type { Problem } from '../core/document/problems';
import type { EnvironmentChecks } from '../core/validation/validate';
import { affects, validationSettings } from '../config';
import { AGENT_FILE_GLOB, AGENT_LANGUAGE_ID } from './languageIds';
import { loadLanguageCore } from './loadLanguageCore';
import { openDocument } from '../workspaceFiles';
import { textPositions, toDiagnostic } from './problemsToDiagnostics';
import { VALIDATION_TIME_LIMIT_MS, ValidationWorker } from './validationWorkerClient';
import type { StartThread } from './validationWorkerClient';
import { errorDetail, errorMessage } from '../core/errors';
import { MAX_FILE_BYTES } from '../core/limits';
import { KeyedDelay } from '../core/keyedDelay';
import { NewestPerKey } from '../core/newestPerKey';
import type { Turn } from '../core/newestPerKey';

export interface AgentDiagnosticsDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly docsUri: vscode.Uri;
  /** Starts the language worker's thread: the host's kind (Node's or a Web Worker), with the host's script. */
  readonly startWorkerThread: StartThread;
  /** What the agent-workflows.yaml that applies to a file says, when one does (and has no errors). */
  readonly environments?: (uri: vscode.Uri) => Promise<EnvironmentChecks | undefined>;
}

export class AgentDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('agent-yaml');
  private readonly pending = new KeyedDelay();
  /** The newest check of each file, so that checks reach the worker in the order they started. */
  private readonly newestCheck = new NewestPerKey();
  /** Files checked from disk (not open), re-checked when they change on disk. */
  private readonly checkedOnDisk = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  private settings = validationSettings();
  /** Started on the first check. */
  private worker: ValidationWorker | undefined;
  /**
   * How often each file's problems were withdrawn (closed, deleted), and all of them (validation
   * turned off): a check still running then publishes nothing when it ends.
   */
  private readonly withdrawals = new Map<string, number>();
  private allWithdrawals = 0;
  /** The problems of each open document's last published check, with its version, for quick fixes. */
  private readonly checked = new Map<string, { readonly version: number; readonly problems: readonly Problem[] }>();

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
    // After activation has returned: the first check starts the worker thread.
    const firstCheck = setTimeout(() => this.checkOpenDocuments(), 0);
    this.disposables.push(new vscode.Disposable(() => clearTimeout(firstCheck)));
  }

  /** Checks a document now and publishes its problems; returns them. */
  async checkDocument(document: vscode.TextDocument): Promise<readonly Problem[]> {
    this.cancelPending(document.uri);
    const version = document.version;
    const withdrawals = this.withdrawalsOf(document.uri);
    const problems = await this.validate(document.uri, document.getText());
    // Undefined: a newer check of the document replaced this one and publishes instead. A document
    // edited meanwhile has a check of its own scheduled; these offsets would no longer fit it.
    if (problems === undefined) return this.published(document.uri);
    if (!document.isClosed && document.version === version && this.withdrawalsOf(document.uri) === withdrawals) {
      this.collection.set(
        document.uri,
        problems.map((problem) => toDiagnostic(problem, document, this.deps.docsUri)),
      );
      this.checked.set(document.uri.toString(), { version, problems });
    }
    return problems;
  }

  /** The problems shown for this version of the document, when its check is done (for quick fixes). */
  problemsOf(document: vscode.TextDocument): readonly Problem[] | undefined {
    const checked = this.checked.get(document.uri.toString());
    return checked?.version === document.version ? checked.problems : undefined;
  }

  /** The outline of a document (an agent, test or environments file), computed in the worker as parsing a large file takes a while. */
  async symbolsOf(document: vscode.TextDocument, fileKind: ParsedFileKind = 'agent'): Promise<OutlineSymbol[]> {
    this.worker ??= this.startWorker();
    const outcome = await this.worker.run('symbols', document.uri.toString(), document.getText(), { fileKind });
    if (outcome.kind === 'failed') this.deps.logger.error(`The outline of ${document.uri.toString(true)} failed: ${outcome.error}`);
    return outcome.kind === 'done' ? outcome.result : [];
  }

  /** Checks a file: the open document's text if it is open (unless told to read the disk). */
  async checkFile(uri: vscode.Uri, options: { fromDisk?: boolean } = {}): Promise<readonly Problem[]> {
    const open = openDocument(uri);
    if (open && !options.fromDisk) return this.checkDocument(open);
    this.checkedOnDisk.add(uri.toString());
    let text: string;
    try {
      const { decodeAgentFile, tooLargeMessage, undecodedFileProblems } = await loadLanguageCore();
      // Checked before reading: a cloned repository's agent file may link to /dev/zero, or be a FIFO.
      const info = await vscode.workspace.fs.stat(uri);
      const decoded = !(info.type & vscode.FileType.File)
        ? {
            error: 'The file is not a regular file (a link to a device, a FIFO); only regular files are read. Name the agent file itself.',
            code: 'not-text' as const,
          }
        : info.size > MAX_FILE_BYTES
          ? { error: tooLargeMessage(info.size), code: 'file-too-large' as const }
          : decodeAgentFile(await vscode.workspace.fs.readFile(uri));
      if ('error' in decoded) {
        // Returned as well as shown, so Validate Workspace counts the file as an error, not as clean.
        const problems = undecodedFileProblems(decoded);
        this.collection.set(
          uri,
          problems.map((problem) => toDiagnostic(problem, textPositions(''), this.deps.docsUri)),
        );
        return problems;
      }
      text = decoded.text;
    } catch (error) {
      this.deps.logger.warn(`Cannot read ${uri.toString(true)}: ${errorMessage(error)}`);
      this.forget(uri);
      return [];
    }
    const withdrawals = this.withdrawalsOf(uri);
    const problems = await this.validate(uri, text);
    if (problems === undefined) return this.published(uri);
    if (this.withdrawalsOf(uri) !== withdrawals) return problems;
    const positions = textPositions(text);
    this.collection.set(
      uri,
      problems.map((problem) => toDiagnostic(problem, positions, this.deps.docsUri)),
    );
    return problems;
  }

  dispose(): void {
    this.pending.cancelAll();
    this.worker?.dispose();
    for (const disposable of this.disposables) disposable.dispose();
  }

  /** The problems of a text, from the worker; undefined when a newer check of the same file replaced it. */
  private async validate(uri: vscode.Uri, text: string): Promise<Problem[] | undefined> {
    this.worker ??= this.startWorker();
    const turn = this.newestCheck.start(uri.toString());
    try {
      return await this.checkInWorker(this.worker, uri, text, turn);
    } finally {
      turn.end();
    }
  }

  private async checkInWorker(worker: ValidationWorker, uri: vscode.Uri, text: string, turn: Turn): Promise<Problem[] | undefined> {
    const environments = await this.deps.environments?.(uri).catch(() => undefined);
    // A newer check started while this one read the environments file: it publishes instead. Sent
    // on, this one would replace it in the worker, and its own result is stale.
    if (!turn.isNewest()) return undefined;
    const outcome = await worker.validate(uri.toString(), text, environments);
    switch (outcome.kind) {
      case 'checked':
        return outcome.problems;
      case 'stopped':
        this.deps.logger.warn(`Validation of ${uri.toString(true)} took more than ${VALIDATION_TIME_LIMIT_MS} ms and was stopped.`);
        return outcome.problems;
      case 'failed':
        // The core never throws for bad input; a failure here is a bug, logged rather than lost.
        this.deps.logger.error(`Validation of ${uri.toString(true)} failed: ${outcome.error}`);
        return [];
      default:
        return undefined;
    }
  }

  private withdraw(uri: vscode.Uri): void {
    const key = uri.toString();
    this.withdrawals.set(key, (this.withdrawals.get(key) ?? 0) + 1);
    this.checked.delete(key);
    this.collection.delete(uri);
  }

  private withdrawalsOf(uri: vscode.Uri): string {
    return `${this.allWithdrawals}:${this.withdrawals.get(uri.toString()) ?? 0}`;
  }

  private startWorker(): ValidationWorker {
    return new ValidationWorker({ startThread: this.deps.startWorkerThread, timeLimitMs: VALIDATION_TIME_LIMIT_MS });
  }

  /** The problems shown for a file now, as core problems are no longer at hand: counted by severity only. */
  private published(uri: vscode.Uri): readonly Problem[] {
    return (this.collection.get(uri) ?? []).map((diagnostic) => ({
      code: (typeof diagnostic.code === 'object' ? String(diagnostic.code.value) : String(diagnostic.code)) as Problem['code'],
      severity:
        diagnostic.severity === vscode.DiagnosticSeverity.Error
          ? 'error'
          : diagnostic.severity === vscode.DiagnosticSeverity.Warning
            ? 'warning'
            : 'info',
      message: diagnostic.message,
      span: { start: 0, end: 0 },
      range: {
        line: diagnostic.range.start.line + 1,
        column: diagnostic.range.start.character + 1,
        endLine: diagnostic.range.end.line + 1,
        endColumn: diagnostic.range.end.character + 1,
      },
    }));
  }

  private checkDocumentNow(document: vscode.TextDocument): void {
    if (!this.isAgentDocument(document)) return;
    this.checkDocument(document).catch((error: unknown) => {
      this.deps.logger.error(`Validation of ${document.uri.toString(true)} failed: ${errorDetail(error)}`);
    });
  }

  private schedule(document: vscode.TextDocument): void {
    if (!this.isAgentDocument(document)) return;
    this.pending.schedule(document.uri.toString(), this.settings.delay, () => {
      if (!document.isClosed) this.checkDocumentNow(document);
    });
  }

  private async onClosed(uri: vscode.Uri, languageId: string): Promise<void> {
    if (languageId !== AGENT_LANGUAGE_ID) return;
    this.cancelPending(uri);
    // A file the workspace check covers keeps its problems, as they are on disk now.
    if (this.checkedOnDisk.has(uri.toString()) && uri.scheme !== 'untitled') await this.checkFile(uri, { fromDisk: true });
    else this.withdraw(uri);
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
      vscode.window.tabGroups.all
        .flatMap((group) => group.tabs)
        .flatMap((tab) => (tab.input instanceof vscode.TabInputText ? [tab.input.uri.toString()] : [])),
    );
    for (const tab of closed) {
      if (!(tab.input instanceof vscode.TabInputText) || stillShown.has(tab.input.uri.toString())) continue;
      const uri = tab.input.uri;
      const document = openDocument(uri);
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
    this.withdraw(uri);
  }

  /** Checks every open agent file again (after a change of what their checks depend on). */
  checkOpenDocuments(): void {
    for (const document of vscode.workspace.textDocuments) this.checkDocumentNow(document);
  }

  /** Checks every open agent file again after the validation delay, as an edit does (one check per burst of changes). */
  scheduleOpenDocuments(): void {
    for (const document of vscode.workspace.textDocuments) this.schedule(document);
  }

  private clearAll(): void {
    this.pending.cancelAll();
    this.checkedOnDisk.clear();
    this.checked.clear();
    this.allWithdrawals++;
    this.collection.clear();
  }

  private cancelPending(uri: vscode.Uri): void {
    this.pending.cancel(uri.toString());
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
