// The checks of agent test files in the browser build, where the Test Explorer (which shows them on
// the desktop, src/testing/testTree.ts) is absent: an open test file is checked as you type against
// its agent (the editor's text, else the file through VS Code), in the language worker, and its
// problems go to the same "agent-tests" diagnostics.
import * as vscode from 'vscode';
import { AGENT_FILE } from '../core/document/agentFileName';
import { errorDetail } from '../core/errors';
import { agentPathOf } from '../core/testing/testFileName';
import type { FixableProblems } from '../language/fixableProblems';
import { AGENT_LANGUAGE_ID, TEST_LANGUAGE_ID } from '../language/languageIds';
import { toDiagnostic } from '../language/problemsToDiagnostics';
import { VALIDATION_TIME_LIMIT_MS, ValidationWorker } from '../language/validationWorkerClient';
import type { StartThread } from '../language/validationWorkerClient';
import { validationSettings } from '../config';
import { currentText } from '../workspaceFiles';
import { KeyedDelay } from '../core/keyedDelay';

export interface WebTestFileChecksDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly docsUri: vscode.Uri;
  readonly startWorkerThread: StartThread;
  /** Where a test file's problems that suggest a name are kept, for their quick fixes. */
  readonly fixableProblems: FixableProblems;
}

export function registerWebTestFileChecks(context: vscode.ExtensionContext, deps: WebTestFileChecksDeps): void {
  const diagnostics = vscode.languages.createDiagnosticCollection('agent-tests');
  const worker = new ValidationWorker({ startThread: deps.startWorkerThread, timeLimitMs: VALIDATION_TIME_LIMIT_MS });
  const pending = new KeyedDelay();

  const check = async (document: vscode.TextDocument): Promise<void> => {
    const text = document.getText();
    const version = document.version;
    const fileName = document.uri.path.split('/').pop() ?? '';
    const folder = vscode.Uri.joinPath(document.uri, '..');
    const agentUri = vscode.Uri.joinPath(folder, agentPathOf(text, fileName));
    const agentText = await currentText(agentUri).catch(() => undefined);
    // The names beside it, for the "did you mean" of an agent that cannot be read.
    const agentFilesThere =
      agentText === undefined
        ? await vscode.workspace.fs.readDirectory(folder).then(
            (entries) => entries.filter(([name, type]) => type === vscode.FileType.File && AGENT_FILE.test(name)).map(([name]) => name),
            () => [],
          )
        : [];
    const outcome = await worker.run('testFile', document.uri.toString(), text, {
      file: document.uri.path,
      agentTexts: agentText === undefined ? [] : [[agentUri.path, agentText]],
      agentFilesThere,
    });
    if (outcome.kind === 'failed') deps.logger.error(`Checking ${document.uri.toString(true)} failed: ${outcome.error}`);
    if (outcome.kind !== 'done' || document.isClosed || document.version !== version) return;
    deps.fixableProblems.keep(document.uri, text, outcome.result.problems);
    diagnostics.set(
      document.uri,
      outcome.result.problems.map((problem) => toDiagnostic(problem, document, deps.docsUri)),
    );
  };
  const checkNow = (document: vscode.TextDocument): void => {
    if (document.languageId !== TEST_LANGUAGE_ID || !validationSettings().enabled) return;
    check(document).catch((error: unknown) => deps.logger.error(`Checking ${document.uri.toString(true)} failed: ${errorDetail(error)}`));
  };
  const later = (document: vscode.TextDocument): void => {
    // An agent edited: the open test files are checked again (they may test it).
    if (document.languageId === AGENT_LANGUAGE_ID)
      vscode.workspace.textDocuments.filter((open) => open.languageId === TEST_LANGUAGE_ID).forEach(later);
    if (document.languageId !== TEST_LANGUAGE_ID) return;
    pending.schedule(document.uri.toString(), validationSettings().delay, () => {
      if (!document.isClosed) checkNow(document);
    });
  };

  context.subscriptions.push(
    diagnostics,
    worker,
    vscode.workspace.onDidOpenTextDocument(checkNow),
    vscode.workspace.onDidChangeTextDocument((event) => later(event.document)),
    vscode.workspace.onDidCloseTextDocument((document) => diagnostics.delete(document.uri)),
    new vscode.Disposable(() => pending.cancelAll()),
  );
  for (const document of vscode.workspace.textDocuments) checkNow(document);
}
