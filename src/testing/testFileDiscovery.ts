// Which agent test files the workspace has, and what each holds: found once when the Test Explorer
// opens (or refreshes), then kept up to date from disk (watchers of test files, of agent files and
// of deletions, renames in the editor) and from open editors (unsaved text included, an edit read
// after a pause). Each file is read in the language worker (validationWorker.ts), never on the
// extension host, a few at a time (readQueue.ts), and what it gave goes to the tree (testTree.ts);
// a run reads its files the same way, for the suite it runs. The files known, with the agent each
// names, answer which test files test an agent (for the code lens and agent edits).
import * as vscode from 'vscode';
import { errorDetail, errorMessage } from '../core/errors';
import { MAX_TEST_FILES } from '../core/limits';
import type { LoadedSuite } from '../core/testing/loadSuite';
import { TEST_FILE } from '../core/testing/testFileName';
import { AGENT_FILE_GLOB, AGENT_LANGUAGE_ID, TEST_FILE_GLOB, TEST_FILES, TEST_LANGUAGE_ID } from '../language/languageIds';
import { nodeWorkerThread } from '../language/nodeWorkerThread';
import { VALIDATION_TIME_LIMIT_MS, ValidationWorker } from '../language/validationWorkerClient';
import type { TestFileSummary } from '../language/validationWorkerClient';
import { fileExists, openDocument, savedText, unsavedDocuments } from '../workspaceFiles';
import { findWorkspaceFiles } from '../workspaceSearch';
import { KnownTestFiles } from './knownTestFiles';
import { testFileBeside } from './testCaseFromExecution';
import { ReadQueue } from './readQueue';
import { unreadableMessage } from './testTree';
import type { TestTree } from './testTree';
import { workerRead } from './workerReads';

/** Test files read when the explorer opens; a workspace with more lists the first ones and says so. */
const MAX_DISCOVERED = MAX_TEST_FILES;
const EDIT_DELAY_MS = 250;
/** How long test file changes are gathered before the code lens is told (once for all). */
const FILES_CHANGED_DELAY_MS = 100;
/** Test files read for the explorer at the same time (each holds its text until the worker answers). */
const MAX_READS = 4;

/** A test file read for a run: its text, what its item shows, and the suite to run when it can run. */
export interface RunnableRead {
  readonly text: string;
  readonly summary: TestFileSummary;
  readonly loaded?: LoadedSuite;
}

export class TestFileDiscovery implements vscode.Disposable {
  /** The test files listed, each with the agent file it names (for the code lens and agent edits). */
  private readonly files = new KnownTestFiles();
  /** The latest read of each test file (a number unique to it): an older read's result is dropped. */
  private readonly versions = new Map<string, number>();
  private reads = 0;
  private readonly readQueue = new ReadQueue<vscode.Uri>((uri) => this.read(uri), MAX_READS);
  private filesChangedTimer: NodeJS.Timeout | undefined;
  /** Reads test files for the explorer and for runs; started on first use. */
  private worker: ValidationWorker | undefined;
  private readonly pendingEdits = new Map<string, NodeJS.Timeout>();
  private readonly filesChanged = new vscode.EventEmitter<void>();
  /** Fires when test files appear, go, or change the agent they test (for the code lens). */
  readonly onDidChangeTestFiles = this.filesChanged.event;
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  /** Fires when a test file or its agent changed (edited, or on disk), once the test file is read again. */
  readonly onDidChangeTestContent = this.contentChanged.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  private discovery: Promise<void> | undefined;

  constructor(
    private readonly tree: TestTree,
    private readonly deps: {
      readonly logger: vscode.LogOutputChannel;
      /** The language worker script, dist/validationWorker.js. */
      readonly workerPath: string;
      /** How long the worker may take to read a test file and its agent (VALIDATION_TIME_LIMIT_MS unless a test says). */
      readonly readTimeLimitMs?: number;
    },
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher(TEST_FILE_GLOB);
    const agentWatcher = vscode.workspace.createFileSystemWatcher(AGENT_FILE_GLOB, true, false, true);
    // A deleted (or renamed) folder may be reported alone, not each test file in it, and its name
    // does not match the test files' glob: deletions of anything are watched for it.
    const deletionWatcher = vscode.workspace.createFileSystemWatcher('**/*', true, true, false);
    this.subscriptions.push(
      this.filesChanged,
      this.contentChanged,
      watcher,
      agentWatcher,
      deletionWatcher,
      watcher.onDidCreate((uri) => void this.changed([uri])),
      watcher.onDidChange((uri) => {
        // An open document is read from the editor, which has the newest text.
        if (!openDocument(uri)?.isDirty) void this.changed([uri]);
      }),
      // An agent changed on disk (a checkout, another editor) changes what its tests give.
      agentWatcher.onDidChange((uri) => {
        if (!openDocument(uri)?.isDirty) void this.changed(this.testFilesOf(uri));
      }),
      watcher.onDidDelete((uri) => this.forget(uri)),
      deletionWatcher.onDidDelete((uri) => this.forgetUnder(uri)),
      // A folder renamed in the editor brings its test files under a new name, which the watcher
      // may not report one by one.
      vscode.workspace.onDidRenameFiles((event) => {
        for (const { oldUri, newUri } of event.files) {
          this.forgetUnder(oldUri);
          void this.discoverUnder(newUri);
        }
      }),
      vscode.workspace.onDidOpenTextDocument((document) => {
        if (isTestDocument(document)) void this.update(document.uri);
      }),
      vscode.workspace.onDidChangeTextDocument((event) => this.onEdit(event.document)),
      vscode.workspace.onDidCloseTextDocument((document) => {
        // Unsaved edits are gone with the editor: back to the file on disk.
        if (isTestDocument(document)) void this.update(document.uri);
      }),
    );
    for (const document of vscode.workspace.textDocuments) if (isTestDocument(document)) void this.update(document.uri);
  }

  /** Finds the workspace's test files (once; `again` finds them again, and so does a call after a failed search). */
  discover({ again = false }: { readonly again?: boolean } = {}): Promise<void> {
    if (again) this.discovery = undefined;
    this.discovery ??= (async () => {
      // One more than listed: to know that some were left out, and say so.
      const found = await findWorkspaceFiles(TEST_FILES, { max: MAX_DISCOVERED + 1, onPartial: (why) => this.deps.logger.warn(why) });
      if (found.length > MAX_DISCOVERED) {
        const message = `The workspace has more than ${MAX_DISCOVERED} agent test files: the Test Explorer lists ${MAX_DISCOVERED} of them and leaves the others out (an opened test file is listed too). Open the folder of the tests you work on as the workspace to list them all.`;
        this.deps.logger.warn(message);
        void vscode.window.showWarningMessage(message);
      }
      await Promise.all(found.slice(0, MAX_DISCOVERED).map((uri) => this.update(uri)));
    })().catch((error: unknown) => {
      this.deps.logger.error(`Finding the workspace's agent test files failed: ${errorDetail(error)}`);
      this.discovery = undefined;
      throw error;
    });
    return this.discovery;
  }

  /** Lists the test files at or under `uri` (a file or a folder renamed). */
  private async discoverUnder(uri: vscode.Uri): Promise<void> {
    try {
      const found = TEST_FILE.test(uri.path)
        ? [uri]
        : await findWorkspaceFiles(TEST_FILES, { under: uri, max: MAX_DISCOVERED, onPartial: (why) => this.deps.logger.warn(why) });
      await Promise.all(found.map((file) => this.update(file)));
    } catch (error) {
      this.deps.logger.error(`Finding the agent test files under ${uri.fsPath} failed: ${errorDetail(error)}`);
    }
  }

  /** The test files known to test `agentFile` (read so far; see discover). */
  testFilesOf(agentFile: vscode.Uri): vscode.Uri[] {
    return this.files.namingAgent(agentFile.fsPath).map((key) => vscode.Uri.parse(key));
  }

  /** The test files of an agent file (the one beside it, and any that name it), or the test file itself. */
  async testFilesFor(uri: vscode.Uri): Promise<vscode.Uri[]> {
    if (TEST_FILE.test(uri.path)) return [uri];
    // Those naming it from elsewhere are known once the workspace's test files were read (once).
    await this.discover().catch(() => undefined); // logged by discover, tried again next time
    const found = new Map(this.testFilesOf(uri).map((file) => [file.toString(), file]));
    for (const beside of besideCandidates(uri)) if (await fileExists(beside)) found.set(beside.toString(), beside);
    return [...found.values()];
  }

  /**
   * Reads a test file again (from its editor when open) in the language worker, and updates its
   * items and diagnostics; whether it could be read. What an edit, the watcher and discovery do.
   * A few files are read at a time; a file already waiting to be read is read once (then, at its
   * newest text) for all who asked.
   */
  update(uri: vscode.Uri): Promise<boolean> {
    return this.readQueue.read(uri);
  }

  private async read(uri: vscode.Uri): Promise<boolean> {
    const key = uri.toString();
    const version = this.newRead(key);
    try {
      const text = await testFileText(uri);
      if (text === undefined) {
        this.forget(uri);
        return false;
      }
      const outcome = await this.readWorker().run('testFile', key, text, { file: uri.fsPath, agentTexts: unsavedAgentTexts() });
      const read = workerRead(outcome, text.length, this.readTimeLimitMs);
      // A newer read started meanwhile: it decides.
      if (this.versions.get(key) !== version || read.kind === 'superseded') return this.files.has(key);
      if (read.kind === 'read') {
        this.show(uri, read.result, text);
        return true;
      }
      this.showUnreadable(uri, read.why);
      return false;
    } catch (error) {
      this.deps.logger.error(`Reading the test file ${uri.fsPath} failed: ${errorDetail(error)}`);
      if (this.versions.get(key) === version) this.showUnreadable(uri, errorMessage(error));
      return false;
    }
  }

  /**
   * Reads a test file and its agent for a run, in the language worker as update does (the suite
   * comes back as plain data), and updates its items and diagnostics likewise: the suite to run,
   * why the file cannot be read (`unreadable`, what its item says), or `gone` when it was deleted
   * (its items with it); undefined when a newer read took its place.
   */
  async readForRun(uri: vscode.Uri): Promise<RunnableRead | { readonly unreadable: string } | { readonly gone: true } | undefined> {
    const key = uri.toString();
    const version = this.newRead(key);
    try {
      const text = await testFileText(uri);
      if (text === undefined) {
        this.forget(uri);
        return { gone: true };
      }
      const outcome = await this.readWorker().run('testRun', key, text, { file: uri.fsPath, agentTexts: unsavedAgentTexts() });
      const read = workerRead(outcome, text.length, this.readTimeLimitMs);
      // A newer read started meanwhile: it decides what the explorer shows; this run runs what it read.
      const latest = this.versions.get(key) === version;
      if (read.kind === 'superseded') return undefined;
      if (read.kind === 'unreadable') return { unreadable: latest ? this.showUnreadable(uri, read.why) : unreadableMessage(uri, read.why) };
      if (latest) this.show(uri, read.result.summary, text);
      return { text, ...read.result };
    } catch (error) {
      this.deps.logger.error(`Reading the test file ${uri.fsPath} failed: ${errorDetail(error)}`);
      const why = errorMessage(error);
      return { unreadable: this.versions.get(key) === version ? this.showUnreadable(uri, why) : unreadableMessage(uri, why) };
    }
  }

  /** The language worker that reads test files, started on first use. */
  private readWorker(): ValidationWorker {
    this.worker ??= new ValidationWorker({ startThread: nodeWorkerThread(this.deps.workerPath), timeLimitMs: this.readTimeLimitMs });
    return this.worker;
  }

  private get readTimeLimitMs(): number {
    return this.deps.readTimeLimitMs ?? VALIDATION_TIME_LIMIT_MS;
  }

  private newRead(key: string): number {
    const version = ++this.reads;
    this.versions.set(key, version);
    return version;
  }

  /** A test file as read from `text`: known with the agent it names, and shown. */
  private show(uri: vscode.Uri, summary: TestFileSummary, text: string): void {
    const key = uri.toString();
    const known = this.files.has(key);
    const before = this.files.agentOf(key);
    this.files.set(key, summary.agentFile);
    this.tree.show(uri, summary, text);
    if (!known || before !== summary.agentFile) this.announceFilesChanged();
  }

  /** A test file that cannot be read: known (naming no agent), and why shown; what was said. */
  private showUnreadable(uri: vscode.Uri, why: string): string {
    const key = uri.toString();
    if (!this.files.has(key)) {
      this.files.set(key, undefined);
      this.announceFilesChanged();
    }
    return this.tree.showUnreadable(uri, why);
  }

  /** Fires onDidChangeTestFiles once for changes close together (discovery reads many files; each fire rescans code lenses). */
  private announceFilesChanged(): void {
    this.filesChangedTimer ??= setTimeout(() => {
      this.filesChangedTimer = undefined;
      this.filesChanged.fire();
    }, FILES_CHANGED_DELAY_MS);
  }

  /** Forgets a deleted test file, or every test file under a deleted folder. */
  private forgetUnder(uri: vscode.Uri): void {
    for (const key of this.files.deletedWith(uri.toString())) this.forget(vscode.Uri.parse(key));
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    // A read still under way finds no version of its own: its result is dropped.
    this.versions.delete(key);
    const had = this.files.delete(key);
    this.tree.remove(uri);
    if (had) this.announceFilesChanged();
  }

  private onEdit(document: vscode.TextDocument): void {
    const key = document.uri.toString();
    // An agent being edited changes what its test files may say: they are read again too.
    const dependents = isTestDocument(document) ? [document.uri] : this.testFilesOf(document.uri);
    if (dependents.length === 0) return;
    clearTimeout(this.pendingEdits.get(key));
    this.pendingEdits.set(
      key,
      setTimeout(() => {
        this.pendingEdits.delete(key);
        void this.changed(dependents);
      }, EDIT_DELAY_MS),
    );
  }

  /** Test files whose text or agent changed: read again, their last results marked outdated, and said. */
  private async changed(uris: readonly vscode.Uri[]): Promise<void> {
    await Promise.all(
      uris.map(async (uri) => {
        if (!(await this.update(uri))) return;
        this.tree.invalidate(uri);
        this.contentChanged.fire(uri);
      }),
    );
  }

  dispose(): void {
    for (const timer of this.pendingEdits.values()) clearTimeout(timer);
    clearTimeout(this.filesChangedTimer);
    for (const subscription of this.subscriptions) subscription.dispose();
    this.worker?.dispose();
  }
}

function isTestDocument(document: vscode.TextDocument): boolean {
  return document.languageId === TEST_LANGUAGE_ID && (document.uri.scheme === 'file' || document.uri.scheme === 'vscode-remote');
}

/** The two names the test file beside an agent file may have (.yaml and .yml). */
function besideCandidates(agentFile: vscode.Uri): vscode.Uri[] {
  const beside = testFileBeside(agentFile);
  const other = beside.path.endsWith('.yaml')
    ? beside.with({ path: beside.path.replace(/\.yaml$/, '.yml') })
    : beside.with({ path: beside.path.replace(/\.yml$/, '.yaml') });
  return [beside, other];
}

/** A test file's text: its editor's when it has unsaved edits, else the file's (undefined when it is gone). */
async function testFileText(uri: vscode.Uri): Promise<string | undefined> {
  // A saved document is its file, which may have been deleted while open (a closed editor's
  // document lingers a while).
  const open = openDocument(uri);
  if (!open?.isDirty) return savedText(uri);
  // The unsaved edits of a deleted file are no test file (the watcher may never say it was
  // deleted): saving them brings the file, and its items, back.
  return (await fileExists(uri)) ? open.getText() : undefined;
}

/** Agent files whose editors have unsaved edits, by path: a test file is checked against those texts. */
function unsavedAgentTexts(): Array<[string, string]> {
  return unsavedDocuments()
    .filter((document) => document.languageId === AGENT_LANGUAGE_ID)
    .map((document) => [document.uri.fsPath, document.getText()]);
}
