// The language server (`agent-workflows lsp --stdio`): the editor features of agent files, agent
// test files and the environments file for any editor with an LSP client, from the same core
// functions the VS Code extension calls (src/language/ is its VS Code twin). Diagnostics are checked
// when a document opens and, debounced, after it changes; a change to an agent file re-checks its
// open test files, and one to an environments file the open agent files below it (open documents
// through their notifications, the rest through watched files). References and rename of an agent's
// inputs, nodes and outputs reach the test files of that agent (open, or found in the workspace
// folders) and start from either kind of file. See docs/editors.md.
import { dirname } from 'node:path';
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  ErrorCodes,
  MessageType,
  ResponseError,
  ShowMessageNotification,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import type {
  CodeAction,
  CompletionList,
  Connection,
  Diagnostic,
  Hover,
  InitializeParams,
  InitializeResult,
  Location,
  Range,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver/node';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Clock } from '../core/clock';
import { SYSTEM_CLOCK } from '../core/clock';
import { KeyedDelay } from '../core/keyedDelay';
import type { Problem } from '../core/document/problems';
import { errorDetail } from '../core/errors';
import { environmentsCompletions } from '../core/environments/environmentsCompletion';
import { environmentsHover } from '../core/environments/environmentsHover';
import { indexAgentText, symbolAt } from '../core/language/agentIndex';
import type { AgentIndex } from '../core/language/agentIndex';
import { complete } from '../core/language/completion';
import type { CompletionResult } from '../core/language/completion';
import { hover } from '../core/language/hover';
import type { HoverResult } from '../core/language/hover';
import {
  environmentReferencesAcross,
  environmentsDefinition,
  environmentsReferences,
  prepareEnvironmentRename,
  renameEnvironmentAcross,
} from '../core/environments/environmentsNavigation';
import type { FileText } from '../core/language/quickFixes';
import { definition, prepareRename, RenameError } from '../core/language/navigation';
import { outlineOf } from '../core/language/outline';
import { nameQuickFixes, quickFixes } from '../core/language/quickFixes';
import { testFileCompletions, testFileDefinition, testFileHover } from '../core/testing/testFileLanguage';
import { agentPathOf } from '../core/testing/testFileName';
import { crossFileReferences, crossFileRename, prepareTestFileRename, testFileNameAt } from '../core/testing/testFileReferences';
import type { AgentFile, AgentName, TestFileOfAgent } from '../core/testing/testFileReferences';
import type { DocumentKind } from './documentKinds';
import { fileNameOf, kindOf, localPathOf, sizeLimitOf } from './documentKinds';
import { DocumentStore } from './documentStore';
import type { OpenDocument } from './documentStore';
import { FileChecks, isInside } from './fileChecks';
import { rangeOfSpan, toCompletionItem, toDiagnostic, toDocumentSymbol } from './protocolValues';

declare const AGENT_WORKFLOWS_VERSION: string | undefined;

/** The delay between the last change of a document and its check, as VS Code's default. */
export const DEFAULT_VALIDATION_DELAY_MS = 300;
const MAX_VALIDATION_DELAY_MS = 5000;

/**
 * The command a quick fix that moved a credential out of the file runs after its edit: the server's
 * own (workspace/executeCommand), not one of the VS Code extension's `agentWorkflows.` commands.
 */
export const SECRET_TO_SET_COMMAND = 'agent-workflows.secretToSet';
/** What the server holds (documents kept, memory), for the benchmarks and for bug reports. */
export const SERVER_STATUS_REQUEST = 'agentWorkflows/serverStatus';

export interface ServerStatus {
  readonly openDocuments: number;
  readonly keptDocuments: number;
  readonly keptCharacters: number;
  readonly evictions: number;
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
}

/** Notes about the check itself, with nothing to fix in the text. */
const NO_FIXES = new Set(['too-many-problems', 'validation-stopped']);

const WATCHED_FILES = ['**/*.agent.yaml', '**/*.agent.yml', '**/*.agent.test.yaml', '**/*.agent.test.yml', '**/agent-workflows.yaml'];

export interface LanguageServerOptions {
  /** Time for the debounce of checks; a fake one in tests. */
  readonly clock?: Clock;
  /** The bounded store of open documents (its bounds are the tests' to choose). */
  readonly store?: DocumentStore;
}

/** Answers the protocol on `connection` (not yet listening): call connection.listen() after. */
export function serveLanguage(
  connection: Connection,
  options: LanguageServerOptions = {},
): { readonly shutDown: () => boolean; readonly dispose: () => void } {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const store = options.store ?? new DocumentStore();
  let roots: string[] = [];
  let delayMs = DEFAULT_VALIDATION_DELAY_MS;
  let snippets = false;
  let watchFiles = false;
  const pathToUri = new Map<string, string>();
  const checks = new FileChecks({
    openText: (path) => {
      const uri = pathToUri.get(path);
      return uri === undefined ? undefined : store.peek(uri)?.document?.getText();
    },
    get roots() {
      return roots;
    },
  });
  /** The problems of each open document's last check, with its version (for quick fixes). */
  const checked = new Map<string, { readonly version: number; readonly problems: readonly Problem[] }>();
  const pending = new KeyedDelay(clock);
  let agentUnderTest: { readonly text: string; readonly index: AgentIndex } | undefined;
  // What is kept beside a text goes with it: a check of a text let go has nothing to read.
  store.onDropped = (uri, entryGone) => {
    cancel(uri);
    checked.delete(uri);
    const path = entryGone ? localPathOf(uri) : undefined;
    if (path !== undefined && pathToUri.get(path) === uri) pathToUri.delete(path);
  };

  /** A notification sent; one the connection can no longer send (the client went away) is dropped. */
  const notify = (sent: Promise<void>): void => {
    sent.catch(() => undefined);
  };
  const log = (message: string): void => {
    try {
      connection.console.error(message);
    } catch {
      // The connection is closed: there is no one to tell.
    }
  };

  /**
   * Runs a handler, now or later (one that reads files answers with a promise); a throw or a
   * rejection (a bug: the core does not throw for bad input) is logged and answered with `fallback`.
   */
  const guarded =
    <P, R>(name: string, fallback: R, handler: (params: P) => R | Promise<R>) =>
    (params: P): R | Promise<R> => {
      const failed = (error: unknown): R => {
        if (error instanceof ResponseError) throw error;
        log(`${name} failed: ${errorDetail(error)}`);
        return fallback;
      };
      try {
        const answer = handler(params);
        return answer instanceof Promise ? answer.catch(failed) : answer;
      } catch (error) {
        return failed(error);
      }
    };

  /** A rename the core refused, as the client shows it: an error answer with the core's reason. */
  const refusedRename = (error: unknown): unknown =>
    error instanceof RenameError ? new ResponseError(ErrorCodes.InvalidRequest, error.message) : error;

  const publish = (uri: string, diagnostics: Diagnostic[], version?: number): void => {
    try {
      notify(connection.sendDiagnostics({ uri, diagnostics, ...(version !== undefined ? { version } : {}) }));
    } catch {
      // The connection is closed.
    }
  };

  const check = (uri: string): void => {
    cancel(uri);
    const entry = store.peek(uri);
    // Let go of (over the bounds of the store): its diagnostics stay as published until it changes.
    if (!entry?.document) return;
    const text = entry.document.getText();
    const problems = checks.problemsOf(entry.kind, uri, localPathOf(uri), text);
    checked.set(uri, { version: entry.version, problems });
    publish(
      uri,
      problems.map((problem) => toDiagnostic(problem, entry.document, entry.kind === 'test')),
      entry.version,
    );
  };

  const schedule = (uri: string): void => {
    pending.schedule(uri, delayMs, () => {
      try {
        check(uri);
      } catch (error) {
        log(`Checking ${uri} failed: ${errorDetail(error)}`);
      }
    });
  };

  const cancel = (uri: string): void => pending.cancel(uri);

  /** After a file changed (in the client or on disk): the open documents whose checks read it. */
  const scheduleDependents = (path: string | undefined): void => {
    if (path === undefined) return;
    const kind = kindOf(path);
    if (kind === 'environments') {
      // Every agent below its folder: the file may have been created or deleted, so which one applies changed too.
      const folder = dirname(path);
      for (const entry of store.all()) {
        const agentPath = entry.kind === 'agent' && entry.document ? localPathOf(entry.uri) : undefined;
        if (agentPath !== undefined && isInside(dirname(agentPath), folder)) schedule(entry.uri);
      }
    } else if (kind === 'agent') {
      for (const entry of store.all()) {
        const testPath = entry.kind === 'test' && entry.document ? localPathOf(entry.uri) : undefined;
        if (testPath !== undefined && checks.agentOf(testPath, entry.document!.getText()) === path) schedule(entry.uri);
      }
    }
  };

  /** Keeps a document's new text; one over its size limit is not kept (its entry has no text) and says so once. */
  const keep = (uri: string, kind: DocumentKind, version: number, text: string): OpenDocument => {
    const limit = sizeLimitOf(kind);
    // In bytes, as on disk: a character takes up to 4 of them.
    const bytes = text.length > limit / 4 ? Buffer.byteLength(text, 'utf8') : text.length;
    const path = localPathOf(uri);
    if (path !== undefined) {
      pathToUri.delete(path);
      pathToUri.set(path, uri);
    }
    if (bytes <= limit) return store.set(uri, kind, version, text);
    const entry = store.set(uri, kind, version, '', bytes);
    cancel(uri);
    checked.delete(uri);
    // The core says so in the words of the file's kind (file-too-large), at the first line.
    const problems = checks.problemsOf(kind, uri, undefined, text);
    publish(
      uri,
      problems.map((problem) => toDiagnostic(problem, undefined)),
      version,
    );
    return entry;
  };

  /** The open document of a request, with its text; undefined for a file the server does not handle or no longer keeps. */
  const documentOf = (uri: string, kinds: readonly DocumentKind[]): (OpenDocument & { document: TextDocument }) | undefined => {
    const entry = store.get(uri);
    if (!entry || !kinds.includes(entry.kind)) return undefined;
    if (!entry.document) {
      if (entry.tooLarge === undefined)
        log(`${uri} is open, but the server let go of its text (it keeps ${store.size.kept} documents): edit it to bring it back.`);
      return undefined;
    }
    return entry as OpenDocument & { document: TextDocument };
  };

  /** The agent a test document tests, indexed; undefined when it cannot be read (keys are still offered). */
  /** The agent a test file tests, read (its open text, else the disk) and indexed; undefined when it cannot be read. */
  const agentUnderTestOf = (
    entry: OpenDocument & { document: TextDocument },
  ): { readonly path: string; readonly text: string; readonly index: AgentIndex } | undefined => {
    const testPath = localPathOf(entry.uri);
    if (testPath === undefined) return undefined;
    const path = checks.agentOf(testPath, entry.document.getText());
    const read = checks.read(path, 'agent', testPath);
    if (!('text' in read)) return undefined;
    if (agentUnderTest?.text !== read.text) agentUnderTest = { text: read.text, index: indexAgentText(read.text) };
    return { path, ...agentUnderTest };
  };
  const agentIndexFor = (entry: OpenDocument & { document: TextDocument }): AgentIndex | undefined => agentUnderTestOf(entry)?.index;

  /** The URI the client knows a local path by (the open document's), else the path's file: URI. */
  const uriOfPath = (path: string): string => pathToUri.get(path) ?? pathToFileURL(path).href;

  /**
   * Where references or a rename start: the agent file (the document itself, or the agent a test
   * document tests; undefined when that cannot be read) and the name at the offset.
   */
  const crossFileStart = (
    entry: OpenDocument & { document: TextDocument },
    offset: number,
  ): { readonly agent: AgentFile & { readonly uri: string; readonly text: string }; readonly name: AgentName | undefined } | undefined => {
    const text = entry.document.getText();
    if (entry.kind === 'agent') {
      const index = indexAgentText(text);
      return { agent: { path: localPathOf(entry.uri) ?? entry.uri, uri: entry.uri, text, index }, name: symbolAt(index, offset) };
    }
    const agent = agentUnderTestOf(entry);
    if (!agent) return undefined;
    return { agent: { ...agent, uri: uriOfPath(agent.path) }, name: testFileNameAt(text, offset) };
  };

  const agentUnreadable = (entry: OpenDocument & { document: TextDocument }): string => {
    const text = entry.document.getText();
    const testPath = localPathOf(entry.uri);
    const read = testPath === undefined ? undefined : checks.read(checks.agentOf(testPath, text), 'agent', testPath);
    const why = read && 'error' in read ? ` (${read.error})` : '';
    return `The agent under test, ${agentPathOf(text, fileNameOf(entry.uri))}, cannot be read${why}: nothing to rename.`;
  };

  /** The test files of the workspace folders and the open ones, for references and rename from the agent at `agentPath`. */
  const workspaceTestFiles = (agentPath: string): Promise<TestFileOfAgent[]> => {
    const open: string[] = [];
    for (const each of store.all()) {
      const path = each.kind === 'test' && each.document ? localPathOf(each.uri) : undefined;
      if (path !== undefined) open.push(path);
    }
    return checks.testFiles(open, (what) => log(`References and rename leave out ${what}`), agentPath);
  };

  /**
   * An environments document as the core takes it (by its local path, else its URI), and the agent
   * files it applies to, for references and rename of its environment names.
   */
  const environmentsAndAgents = async (
    entry: OpenDocument & { document: TextDocument },
  ): Promise<{ environments: FileText; agents: FileText[] }> => {
    const path = localPathOf(entry.uri);
    const environments = { path: path ?? entry.uri, text: entry.document.getText() };
    if (path === undefined) return { environments, agents: [] };
    const open: string[] = [];
    for (const each of store.all()) {
      const agentPath = each.kind === 'agent' && each.document ? localPathOf(each.uri) : undefined;
      if (agentPath !== undefined) open.push(agentPath);
    }
    const agents = await checks.agentFilesOf(path, open, (what) => log(`References and rename of environments leave out ${what}`));
    return { environments, agents };
  };

  /** The URIs and documents (for ranges) of the files of a search or rename, by the core's paths. */
  const filesOf = (
    start: { readonly path: string; readonly uri: string; readonly text: string },
    others: readonly FileText[],
  ): { uriOf(path: string): string; documentOf(path: string): TextDocument } => {
    const texts = new Map(others.map((file) => [file.path, file.text]));
    texts.set(start.path, start.text);
    const documents = new Map<string, TextDocument>();
    const uriOf = (path: string): string => (path === start.path ? start.uri : uriOfPath(path));
    return {
      uriOf,
      documentOf(path) {
        let document = documents.get(path);
        if (!document) documents.set(path, (document = TextDocument.create(uriOf(path), 'yaml', 0, texts.get(path) ?? '')));
        return document;
      },
    };
  };

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    roots = [
      ...(params.workspaceFolders ?? []).map((folder) => localPathOf(folder.uri)),
      params.workspaceFolders ? undefined : params.rootUri ? localPathOf(params.rootUri) : (params.rootPath ?? undefined),
    ].filter((path): path is string => path !== undefined);
    snippets = params.capabilities.textDocument?.completion?.completionItem?.snippetSupport === true;
    watchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    const requested = (params.initializationOptions as { validationDelay?: unknown } | null | undefined)?.validationDelay;
    if (typeof requested === 'number' && Number.isFinite(requested))
      delayMs = Math.max(0, Math.min(MAX_VALIDATION_DELAY_MS, Math.round(requested)));
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Full },
        completionProvider: { triggerCharacters: ['.', '{', '"', ':', ' ', '$'] },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        documentSymbolProvider: true,
        executeCommandProvider: { commands: [SECRET_TO_SET_COMMAND] },
      },
      serverInfo: {
        name: 'agent-workflows',
        version: typeof AGENT_WORKFLOWS_VERSION === 'string' ? AGENT_WORKFLOWS_VERSION : 'development',
      },
    };
  });

  connection.onInitialized(() => {
    if (!watchFiles) return;
    connection.client
      .register(DidChangeWatchedFilesNotification.type, { watchers: WATCHED_FILES.map((globPattern) => ({ globPattern })) })
      .catch((error: unknown) => log(`Watching files failed (cross-file checks follow open documents only): ${errorDetail(error)}`));
  });

  connection.onDidOpenTextDocument(
    guarded('Opening a document', undefined, ({ textDocument }) => {
      const kind = kindOf(textDocument.uri);
      if (!kind) return;
      const entry = keep(textDocument.uri, kind, textDocument.version, textDocument.text);
      if (entry.document) check(textDocument.uri);
      scheduleDependents(localPathOf(textDocument.uri));
    }),
  );

  connection.onDidChangeTextDocument(
    guarded('Changing a document', undefined, ({ textDocument, contentChanges }) => {
      const kind = kindOf(textDocument.uri);
      if (!kind || contentChanges.length === 0) return;
      const last = contentChanges[contentChanges.length - 1]!;
      let text: string;
      if (!('range' in last) || last.range === undefined) {
        text = last.text;
      } else {
        // The server asks for whole texts; a client that sends ranges anyway is followed when the text is at hand.
        const kept = store.peek(textDocument.uri)?.document;
        if (!kept) {
          log(`${textDocument.uri} changed by ranges, but the server has not its text: close and reopen it.`);
          return;
        }
        text = TextDocument.update(
          TextDocument.create(kept.uri, kept.languageId, kept.version, kept.getText()),
          contentChanges,
          0,
        ).getText();
      }
      const entry = keep(textDocument.uri, kind, textDocument.version, text);
      if (entry.document) schedule(textDocument.uri);
      scheduleDependents(localPathOf(textDocument.uri));
    }),
  );

  connection.onDidCloseTextDocument(
    guarded('Closing a document', undefined, ({ textDocument }) => {
      if (!store.peek(textDocument.uri)) return;
      cancel(textDocument.uri);
      store.delete(textDocument.uri);
      checked.delete(textDocument.uri);
      const path = localPathOf(textDocument.uri);
      if (path !== undefined && pathToUri.get(path) === textDocument.uri) pathToUri.delete(path);
      publish(textDocument.uri, []);
      // Their checks now read this file from disk.
      scheduleDependents(path);
    }),
  );

  connection.onDidChangeWatchedFiles(
    guarded('A watched file change', undefined, ({ changes }) => {
      for (const change of changes) scheduleDependents(localPathOf(change.uri));
    }),
  );

  connection.onCompletion(
    guarded('Completion', null, ({ textDocument, position }): CompletionList | null => {
      const entry = documentOf(textDocument.uri, ['agent', 'test', 'environments']);
      if (!entry) return null;
      const text = entry.document.getText();
      const offset = entry.document.offsetAt(position);
      const result: CompletionResult =
        entry.kind === 'agent'
          ? complete(text, offset)
          : entry.kind === 'test'
            ? testFileCompletions(text, offset, agentIndexFor(entry))
            : environmentsCompletions(text, offset);
      const lineStart = entry.document.offsetAt({ line: position.line, character: 0 });
      const indent = /^[ \t]*/.exec(text.slice(lineStart, offset))![0];
      const replace = rangeOfSpan(entry.document, result.replace);
      return { isIncomplete: false, items: result.items.map((item) => toCompletionItem(item, replace, indent, snippets)) };
    }),
  );

  connection.onHover(
    guarded('Hover', null, ({ textDocument, position }): Hover | null => {
      const entry = documentOf(textDocument.uri, ['agent', 'test', 'environments']);
      if (!entry) return null;
      const text = entry.document.getText();
      const offset = entry.document.offsetAt(position);
      const result: HoverResult | undefined =
        entry.kind === 'agent'
          ? hover(text, offset)
          : entry.kind === 'test'
            ? testFileHover(text, offset, agentIndexFor(entry))
            : environmentsHover(text, offset);
      return result ? { contents: { kind: 'markdown', value: result.contents }, range: rangeOfSpan(entry.document, result.span) } : null;
    }),
  );

  connection.onCodeAction(
    guarded('Code actions', [], ({ textDocument, range, context }): CodeAction[] => {
      const entry = documentOf(textDocument.uri, ['agent', 'test', 'environments']);
      if (!entry) return [];
      const text = entry.document.getText();
      const last = checked.get(entry.uri);
      const problems =
        last?.version === entry.version ? last.problems : checks.problemsOf(entry.kind, entry.uri, localPathOf(entry.uri), text);
      let index: AgentIndex | undefined;
      const actions: CodeAction[] = [];
      for (const problem of problems) {
        if (NO_FIXES.has(problem.code)) continue;
        const problemRange = rangeOfSpan(entry.document, problem.span);
        if (!intersects(problemRange, range)) continue;
        const diagnostic =
          context.diagnostics.find((d) => d.code === problem.code && sameRange(d.range, problemRange)) ??
          toDiagnostic(problem, entry.document);
        // Indexing parses the file: only once a problem here may have a fix.
        const fixes = entry.kind === 'agent' ? quickFixes(text, problem, (index ??= indexAgentText(text))) : nameQuickFixes(text, problem);
        for (const fix of fixes) {
          const edits: TextEdit[] = fix.edits.map((edit) => ({ range: rangeOfSpan(entry.document, edit.span), newText: edit.newText }));
          actions.push({
            title: fix.title,
            kind: CodeActionKind.QuickFix,
            diagnostics: [diagnostic],
            isPreferred: fix.isPreferred ?? false,
            edit: { changes: { [entry.uri]: edits } },
            // The value never leaves the server: the command names the secret to set, after the edit.
            ...(fix.storeSecret
              ? {
                  command: {
                    title: `Set secret ${fix.storeSecret.name}`,
                    command: SECRET_TO_SET_COMMAND,
                    arguments: [fix.storeSecret.name],
                  },
                }
              : {}),
          });
        }
      }
      return actions;
    }),
  );

  connection.onExecuteCommand(
    guarded('A command', null, ({ command, arguments: args }) => {
      const name = args?.[0];
      if (command !== SECRET_TO_SET_COMMAND || typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        throw new ResponseError(ErrorCodes.InvalidParams, `Unknown command ${command}, or no secret name given.`);
      // A notification, not a request: the client shows it, and nothing waits for an answer.
      notify(
        connection.sendNotification(ShowMessageNotification.type, {
          type: MessageType.Info,
          message: `The value was replaced by {{ secrets.${name} }}. Set secret ${name} where the agent runs: the environment variable AGENT_SECRET_${name} for the command line and the local server, or VS Code's secret storage.`,
        }),
      );
      return null;
    }),
  );

  connection.onDefinition(
    guarded('Definition', null, ({ textDocument, position }): Location | null => {
      const entry = documentOf(textDocument.uri, ['agent', 'test', 'environments']);
      if (!entry) return null;
      const offset = entry.document.offsetAt(position);
      if (entry.kind === 'environments') {
        const span = environmentsDefinition(entry.document.getText(), offset);
        return span ? { uri: entry.uri, range: rangeOfSpan(entry.document, span) } : null;
      }
      if (entry.kind === 'test') {
        // In the agent under test: the file itself, or the declaration of a name the case uses.
        const agent = agentUnderTestOf(entry);
        const found = agent ? testFileDefinition(entry.document.getText(), offset, agent.index) : undefined;
        if (!agent || !found) return null;
        const agentDocument = TextDocument.create(pathToFileURL(agent.path).href, 'yaml', 0, agent.text);
        const span = found.in === 'agent-file' ? { start: 0, end: 0 } : found.span;
        return { uri: agentDocument.uri, range: rangeOfSpan(agentDocument, span) };
      }
      const span = definition(entry.document.getText(), offset);
      return span ? { uri: entry.uri, range: rangeOfSpan(entry.document, span) } : null;
    }),
  );

  connection.onReferences(
    guarded('References', [], async ({ textDocument, position, context }): Promise<Location[]> => {
      const environmentsEntry = documentOf(textDocument.uri, ['environments']);
      if (environmentsEntry) {
        const offset = environmentsEntry.document.offsetAt(position);
        // No environment name here: no agent file to read.
        if (environmentsReferences(environmentsEntry.document.getText(), offset, true).length === 0) return [];
        const { environments, agents } = await environmentsAndAgents(environmentsEntry);
        const files = filesOf({ ...environments, uri: environmentsEntry.uri }, agents);
        return environmentReferencesAcross(environments, offset, context.includeDeclaration, agents).map(({ path, span }) => ({
          uri: files.uriOf(path),
          range: rangeOfSpan(files.documentOf(path), span),
        }));
      }
      const entry = documentOf(textDocument.uri, ['agent', 'test']);
      const start = entry ? crossFileStart(entry, entry.document.offsetAt(position)) : undefined;
      if (!start?.name) return [];
      const testFiles = await workspaceTestFiles(start.agent.path);
      const files = filesOf(start.agent, testFiles);
      return crossFileReferences(start.agent, start.name, testFiles, context.includeDeclaration).map(({ path, span }) => ({
        uri: files.uriOf(path),
        range: rangeOfSpan(files.documentOf(path), span),
      }));
    }),
  );

  connection.onPrepareRename(
    guarded('Preparing a rename', null, ({ textDocument, position }): { range: Range; placeholder: string } | null => {
      const entry = documentOf(textDocument.uri, ['agent', 'test', 'environments']);
      if (!entry) return null;
      const text = entry.document.getText();
      const offset = entry.document.offsetAt(position);
      try {
        if (entry.kind !== 'test') {
          const { span, name } = entry.kind === 'agent' ? prepareRename(text, offset) : prepareEnvironmentRename(text, offset);
          return { range: rangeOfSpan(entry.document, span), placeholder: name };
        }
        const agent = agentUnderTestOf(entry);
        if (!agent) throw new ResponseError(ErrorCodes.InvalidRequest, agentUnreadable(entry));
        const { span, name } = prepareTestFileRename(text, offset, agent.index);
        return { range: rangeOfSpan(entry.document, span), placeholder: name };
      } catch (error) {
        throw refusedRename(error);
      }
    }),
  );

  connection.onRenameRequest(
    guarded('Rename', null, async ({ textDocument, position, newName }): Promise<WorkspaceEdit | null> => {
      const environmentsEntry = documentOf(textDocument.uri, ['environments']);
      if (environmentsEntry) {
        const offset = environmentsEntry.document.offsetAt(position);
        try {
          // Refused before any agent file is read when the name or the position is wrong.
          prepareEnvironmentRename(environmentsEntry.document.getText(), offset);
          const { environments, agents } = await environmentsAndAgents(environmentsEntry);
          const files = filesOf({ ...environments, uri: environmentsEntry.uri }, agents);
          const changes: Record<string, TextEdit[]> = {};
          for (const { path, edits } of renameEnvironmentAcross(environments, offset, newName, agents)) {
            const document = files.documentOf(path);
            changes[files.uriOf(path)] = edits.map((edit) => ({ range: rangeOfSpan(document, edit.span), newText: edit.newText }));
          }
          return { changes };
        } catch (error) {
          throw refusedRename(error);
        }
      }
      const entry = documentOf(textDocument.uri, ['agent', 'test']);
      if (!entry) return null;
      const start = crossFileStart(entry, entry.document.offsetAt(position));
      if (!start) throw new ResponseError(ErrorCodes.InvalidRequest, agentUnreadable(entry));
      const testFiles = await workspaceTestFiles(start.agent.path);
      const files = filesOf(start.agent, testFiles);
      try {
        const changes: Record<string, TextEdit[]> = {};
        for (const { path, edits } of crossFileRename(start.agent, start.name, testFiles, newName)) {
          const document = files.documentOf(path);
          changes[files.uriOf(path)] = edits.map((edit) => ({ range: rangeOfSpan(document, edit.span), newText: edit.newText }));
        }
        return { changes };
      } catch (error) {
        throw refusedRename(error);
      }
    }),
  );

  connection.onDocumentSymbol(
    guarded('Document symbols', [], ({ textDocument }) => {
      const entry = documentOf(textDocument.uri, ['agent', 'test', 'environments']);
      return entry ? outlineOf(entry.kind, entry.document.getText()).map((symbol) => toDocumentSymbol(entry.document, symbol)) : [];
    }),
  );

  connection.onRequest(SERVER_STATUS_REQUEST, (): ServerStatus => {
    // Started with node --expose-gc (the benchmark): memory as the live objects take it, not as garbage left.
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    return {
      openDocuments: store.size.open,
      keptDocuments: store.size.kept,
      keptCharacters: store.size.characters,
      evictions: store.evictions,
      heapUsedBytes: memory.heapUsed,
      rssBytes: memory.rss,
    };
  });

  let shutDown = false;
  connection.onShutdown(() => {
    shutDown = true;
    pending.cancelAll();
  });
  return {
    shutDown: () => shutDown,
    dispose: () => pending.cancelAll(),
  };
}

function intersects(a: Range, b: Range): boolean {
  return !(before(a.end, b.start) || before(b.end, a.start));
}

function before(a: Range['start'], b: Range['start']): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

function sameRange(a: Range, b: Range): boolean {
  return (
    a.start.line === b.start.line &&
    a.start.character === b.start.character &&
    a.end.line === b.end.line &&
    a.end.character === b.end.character
  );
}
