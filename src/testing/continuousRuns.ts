// A continuous run (the Test Explorer's auto run of "Run Locally"): until cancelled, each change of
// a test file the request selects, or of its agent, runs that file's selected cases again. What
// leaves the machine (deployed and live cases) is left out by the runs it starts (testRuns.ts).
import * as vscode from 'vscode';
import { errorDetail } from '../core/errors';

/** What a continuous run needs of the Test Explorer's other parts. */
export interface ContinuousRunDeps {
  fileItem(uri: vscode.Uri): vscode.TestItem | undefined;
  /** Fires when a test file or its agent changed, once the test file was read again. */
  readonly onDidChangeTestContent: vscode.Event<vscode.Uri>;
  /** Runs one file's chosen cases as a continuous run's (the cases that leave the machine left out). */
  runTests(request: vscode.TestRunRequest): Promise<unknown>;
  readonly logger: vscode.LogOutputChannel;
}

/** Runs, until `token` is cancelled, each changed file of `request` again; changes during a file's run run it once more after. */
export async function runContinuously(
  request: vscode.TestRunRequest,
  token: vscode.CancellationToken,
  deps: ContinuousRunDeps,
): Promise<void> {
  const chosen = new Map<string, vscode.TestItem[]>();
  for (const item of request.include ?? []) {
    const fileId = (item.parent ?? item).id;
    chosen.set(fileId, [...(chosen.get(fileId) ?? []), item]);
  }
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const runFile = (uri: vscode.Uri): void => {
    const key = uri.toString();
    const file = deps.fileItem(uri);
    if (token.isCancellationRequested || !file || (request.include && !chosen.has(key))) return;
    if (running.has(key)) {
      again.add(key);
      return;
    }
    const include = chosen.get(key) ?? [file];
    const done = deps
      .runTests(new vscode.TestRunRequest(include, request.exclude, request.profile))
      // A run that failed is logged: it must not end the continuous run, nor keep its file from running again.
      .then(
        () => undefined,
        (error: unknown) => deps.logger.error(`A continuous run of ${uri.fsPath} failed: ${errorDetail(error)}`),
      )
      .finally(() => {
        running.delete(key);
        if (again.delete(key)) runFile(uri);
      });
    running.set(key, done);
  };
  const listening = deps.onDidChangeTestContent(runFile);
  let stopping: vscode.Disposable | undefined;
  try {
    await new Promise<void>((resolve) => {
      if (token.isCancellationRequested) resolve();
      else stopping = token.onCancellationRequested(() => resolve());
    });
  } finally {
    stopping?.dispose();
    listening.dispose();
    await Promise.all(running.values());
  }
}
