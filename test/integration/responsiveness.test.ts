// A hostile agent file in the real extension host (issue 9): its diagnostics arrive while the
// extension host stays responsive (validation and the outline run in a worker thread), and Validate
// Workspace counts a binary agent file as an error, not as clean (issue 14, point 6). A large test
// file is read for the Test Explorer in that worker too.
import assert from 'node:assert/strict';
import { truncateSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { AgentWorkflowsApi } from '../../src/extension';
import { HOSTILE_SHAPES } from '../support/hostileAgents';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

function codeOf(diagnostic: vscode.Diagnostic): string {
  return typeof diagnostic.code === 'object' ? String(diagnostic.code.value) : String(diagnostic.code);
}

/** Measures the longest wait of a 10 ms timer on this thread (the extension host's) while `work` runs. */
async function longestTimerGap<T>(work: () => Promise<T>): Promise<{ result: T; longestMs: number }> {
  let last = performance.now();
  let longestMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestMs = Math.max(longestMs, now - last);
    last = now;
  }, 10);
  try {
    const result = await work();
    const now = performance.now();
    return { result, longestMs: Math.max(longestMs, now - last) };
  } finally {
    clearInterval(ticker);
  }
}

/** The longest the extension host may be unresponsive while a hostile file is opened or edited. */
const BLOCKED_MS = 250;

describe('hostile agent files in the editor', () => {
  const created: vscode.Uri[] = [];

  afterEach(async () => {
    // An edited editor outlives its file (and the search may still list an unsaved file): undone first.
    for (const document of vscode.workspace.textDocuments.filter((open) => open.isDirty)) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert').then(undefined, () => undefined);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const removed = created.splice(0);
    for (const uri of removed) await Promise.resolve(vscode.workspace.fs.delete(uri, { useTrash: false })).catch(() => undefined);
    // The workspace search (what Validate Workspace counts) sees a deletion a moment later.
    await waitFor(async () => {
      const found = new Set((await vscode.workspace.findFiles('**/*.agent.{yaml,yml}')).map((uri) => uri.toString()));
      return removed.every((uri) => !found.has(uri.toString()));
    }, 'the removed files to leave the workspace search');
  });

  it('shows the diagnostics of a 190 KB hostile file while the extension host stays responsive', async function () {
    this.timeout(60_000);
    const shape = HOSTILE_SHAPES.find((each) => each.name === 'nodes referencing missing nodes');
    assert.ok(shape);
    const text = shape.generate(2700);
    assert.ok(text.length > 180_000 && text.length < 200_000, `${text.length} characters`);
    // Two copies, each opened and checked while a timer measures the host's longest wait: the
    // better of the two is held to the bound, so that one collection of the host's whole heap (the
    // suite's, not the file's) cannot fail it; a host the file blocks is blocked both times.
    const opened: Array<{ diagnostics: vscode.Diagnostic[]; longestMs: number }> = [];
    let uri = workspaceUri('hostile-responsive.agent.yaml');
    for (const name of ['hostile-responsive-first.agent.yaml', 'hostile-responsive.agent.yaml']) {
      uri = workspaceUri(name);
      await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
      created.push(uri);
      const checked = uri;
      const { result, longestMs } = await longestTimerGap(async () => {
        await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(checked));
        return waitFor(
          () => {
            const found = vscode.languages.getDiagnostics(checked);
            return found.length > 0 ? found : undefined;
          },
          'the diagnostics of the hostile file',
          30_000,
        );
      });
      opened.push({ diagnostics: result, longestMs });
    }
    const diagnostics = opened[1]!.diagnostics;
    const longestMs = Math.min(...opened.map((each) => each.longestMs));
    console.log(
      `      the extension host's longest waits while the 190 KB file was opened and checked: ${opened.map((each) => `${each.longestMs.toFixed(0)} ms`).join(', ')}`,
    );
    // The first 500 problems and the note that checking stopped there.
    assert.equal(diagnostics.length, 501);
    assert.equal(diagnostics.filter((d) => codeOf(d) === 'unknown-node').length, 500);
    assert.ok(diagnostics.some((d) => codeOf(d) === 'too-many-problems'));
    // The issue's bound for files under 200 KB in the extension: 250 ms (the check itself is in
    // the worker; what is left on this thread is activation and publishing 501 problems).
    assert.ok(
      longestMs < BLOCKED_MS,
      `the extension host was blocked for ${longestMs.toFixed(0)} ms while the file was opened and checked`,
    );

    // Typing at the end is checked again, and the host stays responsive meanwhile too: the better
    // of two edits is held to the bound, for the same reason as the openings above.
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor);
    const edits: Array<{ result: vscode.DocumentSymbol[]; longestMs: number }> = [];
    for (const line of ['# edited', '# edited again']) {
      edits.push(
        await longestTimerGap(async () => {
          const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
          await editor.edit((edit) => edit.insert(end, `\n${line}\n`));
          const symbols = (await vscode.commands.executeCommand('vscode.executeDocumentSymbolProvider', uri)) as
            vscode.DocumentSymbol[] | undefined;
          return symbols ?? [];
        }),
      );
    }
    console.log(
      `      the extension host's longest waits after an edit: ${edits.map((each) => `${each.longestMs.toFixed(0)} ms`).join(', ')}`,
    );
    for (const typed of edits)
      assert.ok(
        typed.result.some((symbol) => symbol.name === 'nodes'),
        'the outline of the edited file',
      );
    const typedMs = Math.min(...edits.map((each) => each.longestMs));
    assert.ok(typedMs < BLOCKED_MS, `the extension host was blocked for ${typedMs.toFixed(0)} ms after an edit`);
    // Saved, so closing the editor asks nothing and the file leaves the workspace search once deleted.
    await editor.document.save();
  });

  it('lists the cases of a 700 KB test file while the extension host stays responsive', async function () {
    this.timeout(60_000);
    const extension = vscode.extensions.getExtension<AgentWorkflowsApi>('agent-workflows.agent-workflows');
    assert.ok(extension);
    const api = await extension.activate();
    // Many small YAML nodes: about a second to parse on this thread.
    const names = Array.from({ length: 150 }, (_, index) => `n${index}`).join(', ');
    let text = 'agent: greeter.agent.yaml\ncases:\n';
    let cases = 0;
    while (text.length < 700_000) text += `  case ${cases++}:\n    inputs: { who: Ada, list: [${names}] }\n`;
    const uri = workspaceUri('agent-tests', 'large-responsive.agent.test.yaml');
    await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
    created.push(uri);
    const { longestMs } = await longestTimerGap(() => api.agentTests.refresh(uri));
    const file = api.agentTests.controller.items.get(uri.toString());
    assert.ok(file, 'the test file item');
    assert.equal(file.children.size, cases);
    assert.ok(longestMs < BLOCKED_MS, `the extension host was blocked for ${longestMs.toFixed(0)} ms while the test file was read`);
  });

  it('counts a binary agent file as an error in Validate Workspace', async function () {
    this.timeout(60_000);
    type Summary = { files: number; errors: number; filesWithErrors: number };
    const before = (await vscode.commands.executeCommand('agentWorkflows.validateWorkspace')) as Summary;
    const uri = workspaceUri('binary-check.agent.yaml');
    await vscode.workspace.fs.writeFile(uri, new Uint8Array([0x76, 0x00, 0x01, 0x02]));
    created.push(uri);
    const after = (await vscode.commands.executeCommand('agentWorkflows.validateWorkspace')) as Summary;
    assert.equal(after.files, before.files + 1);
    assert.equal(after.errors, before.errors + 1);
    assert.equal(after.filesWithErrors, before.filesWithErrors + 1);
    const shown = vscode.languages.getDiagnostics(uri);
    assert.deepEqual(shown.map(codeOf), ['not-text']);
    assert.equal(shown[0]!.severity, vscode.DiagnosticSeverity.Error);
  });

  it('reports a 3 GB agent file as too large in Validate Workspace, without reading it', async function () {
    this.timeout(60_000);
    type Summary = { files: number; errors: number; filesWithErrors: number };
    const before = (await vscode.commands.executeCommand('agentWorkflows.validateWorkspace')) as Summary;
    const uri = workspaceUri('sparse-huge.agent.yaml');
    // Sparse: 3 GB to stat, no disk used. Read whole, it would fill the extension host's memory (past
    // 2 GB Node refuses to read a file whole, and the file went unreported).
    writeFileSync(uri.fsPath, '');
    truncateSync(uri.fsPath, 3 * 1024 ** 3);
    created.push(uri);
    const after = (await vscode.commands.executeCommand('agentWorkflows.validateWorkspace')) as Summary;
    assert.equal(after.files, before.files + 1);
    assert.equal(after.filesWithErrors, before.filesWithErrors + 1);
    const shown = vscode.languages.getDiagnostics(uri);
    assert.deepEqual(shown.map(codeOf), ['file-too-large']);
    assert.match(shown[0]!.message, /^The file is 3072\.0 MB; agent files are checked up to 768 KB/);
  });
});
