// "Agent Workflows: Show Graph" in the real extension host: the panel opens beside the agent file,
// its webview draws the graph (read back from the webview's page), redraws as the file changes and
// as another agent editor becomes active, draws what it can of a broken file, and a node reveals
// its entry in the YAML; its page's Content Security Policy lets in nothing but its own files.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { buildWorkflowGraph } from '../../src/core/graph/workflowGraph';
import type { GraphPanel } from '../../src/views/graphPanel';
import type { RenderReport } from '../../src/webview/graph/protocol';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const SHOW_GRAPH = 'agentWorkflows.showGraph';

async function openAgent(name: string, column = vscode.ViewColumn.One): Promise<vscode.TextEditor> {
  return vscode.window.showTextDocument(await vscode.workspace.openTextDocument(workspaceUri(name)), { viewColumn: column });
}

async function showGraph(): Promise<GraphPanel> {
  const panel = await vscode.commands.executeCommand<GraphPanel | undefined>(SHOW_GRAPH);
  assert.ok(panel, 'the command returns the panel');
  return panel;
}

/** Waits until the webview reports a drawing of the document's current version that passes the check. */
function drawn(
  panel: GraphPanel,
  document: vscode.TextDocument,
  check: (report: RenderReport) => boolean = () => true,
): Promise<RenderReport> {
  return waitFor(
    () => {
      const report = panel.rendered;
      return report && report.uri === document.uri.toString() && report.version === document.version && check(report) ? report : undefined;
    },
    `the graph of ${document.uri.path} (version ${document.version}) to be drawn; last drawn: ${JSON.stringify(panel.rendered)}`,
    15_000,
  );
}

async function insertAfter(editor: vscode.TextEditor, needle: string, text: string): Promise<void> {
  const offset = editor.document.getText().indexOf(needle);
  assert.notEqual(offset, -1, needle);
  assert.ok(await editor.edit((edit) => edit.insert(editor.document.positionAt(offset + needle.length), text)));
}

describe('graph', () => {
  // Activated first: a command that activates the extension goes through the workbench, which
  // serializes its result, and these tests need the panel object itself.
  before(async () => {
    await vscode.extensions.getExtension('agent-workflows.agent-workflows')?.activate();
  });

  afterEach(async () => {
    for (const document of vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme !== 'untitled')) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens beside the active agent file, keeps the focus there and draws the graph', async () => {
    const editor = await openAgent('authoring.agent.yaml');
    const panel = await showGraph();
    assert.equal(panel.webviewPanel.title, 'Graph: authoring.agent.yaml');
    // The workbench reports the panel's column once it has placed it.
    await waitFor(() => panel.webviewPanel.viewColumn, 'the graph panel to be placed');
    assert.equal(panel.webviewPanel.viewColumn, vscode.ViewColumn.Two);
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), editor.document.uri.toString(), 'the focus stays in the editor');
    const report = await drawn(panel, editor.document);
    assert.deepEqual(report.nodes, ['input:ticket', 'node:fetch', 'node:summarize', 'output:summary']);
    assert.deepEqual(report.edges, ['input:ticket->node:fetch', 'node:fetch->node:summarize', 'node:summarize->output:summary']);
    assert.deepEqual(report.badges, { 'node:fetch': ['Bearer'], 'node:summarize': ['Basic'] });
    // The literal token and the plain Basic value are listed, as in the Problems panel.
    assert.equal(report.problems, buildWorkflowGraph(editor.document.getText()).problems.length);
    assert.ok(report.problems >= 2);

    // Running it again brings the same panel forward.
    assert.equal(await showGraph(), panel);

    // The page loads nothing but the extension's own script (by its nonce) and styles: no inline
    // code, no remote resource.
    const html = panel.webviewPanel.webview.html;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    const source = panel.webviewPanel.webview.cspSource;
    const nonce = /<script nonce="([^"]+)"/.exec(html)?.[1];
    assert.ok(nonce && nonce.length >= 16, 'the script carries a nonce');
    assert.deepEqual(csp.split('; '), [
      "default-src 'none'",
      `style-src ${source}`,
      `img-src ${source}`,
      `font-src ${source}`,
      `script-src 'nonce-${nonce}'`,
    ]);
    assert.doesNotMatch(html, /<script(?![^>]*nonce=)/, 'every script has the nonce');
    assert.doesNotMatch(html, /\sstyle=|<style/, 'no inline style');
    const extensionUri = vscode.extensions.getExtension('agent-workflows.agent-workflows')!.extensionUri;
    const own = panel.webviewPanel.webview.asWebviewUri(extensionUri).toString();
    const resources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    assert.equal(resources.length, 3, 'the two style sheets and the script');
    for (const url of resources) assert.ok(url.startsWith(`${own}/`), `${url} is a file of the extension (${own})`);
  });

  it('redraws as the document changes', async () => {
    const editor = await openAgent('hello.agent.yaml');
    const panel = await showGraph();
    await drawn(panel, editor.document, (r) => r.nodes.includes('node:greet'));
    await insertAfter(
      editor,
      'text: "Hello {{ inputs.who }}"\n',
      '  shout:\n    type: api\n    method: POST\n    url: https://shout.example.com/v1?api_key={{ secrets.SHOUT_KEY }}\n    body: { text: "{{ nodes.greet.body }}" }\n',
    );
    const report = await drawn(panel, editor.document, (r) => r.nodes.includes('node:shout'));
    assert.ok(report.edges.includes('node:greet->node:shout'), report.edges.join(', '));
    assert.deepEqual(report.badges['node:shout'], ['API key in URL']);
  });

  it('follows the active agent editor', async () => {
    const first = await openAgent('hello.agent.yaml');
    const panel = await showGraph();
    await drawn(panel, first.document);
    const second = await openAgent('nested/weather.agent.yml');
    const report = await drawn(panel, second.document);
    assert.equal(panel.webviewPanel.title, 'Graph: weather.agent.yml');
    assert.deepEqual(report.nodes, ['input:city', 'node:current', 'output:report']);
    assert.deepEqual(report.badges, { 'node:current': ['API key header'] });
  });

  it('still draws what it can of a file with a YAML error, and lists the error', async () => {
    const editor = await openAgent('hello.agent.yaml');
    const panel = await showGraph();
    await drawn(panel, editor.document);
    // A key indented one space too far: the YAML no longer parses.
    await insertAfter(editor, '    type: template\n', '     extra: 1\n');
    const report = await drawn(panel, editor.document, (r) => r.problems > 0);
    const problems = buildWorkflowGraph(editor.document.getText()).problems;
    assert.ok(
      problems.some((p) => p.code === 'yaml-syntax'),
      problems.map((p) => p.code).join(', '),
    );
    assert.equal(report.problems, problems.length);
    assert.ok(report.nodes.includes('input:who') && report.nodes.includes('node:greet'), report.nodes.join(', '));
  });

  it('reveals and selects a node in the YAML', async () => {
    const editor = await openAgent('authoring.agent.yaml');
    const panel = await showGraph();
    await drawn(panel, editor.document);
    const revealed = await panel.revealNode('node:summarize');
    assert.ok(revealed);
    assert.equal(revealed.viewColumn, vscode.ViewColumn.One);
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), editor.document.uri.toString());
    assert.equal(revealed.document.getText(revealed.selection), 'summarize');
    assert.equal(revealed.selection.start.line, editor.document.getText().split('\n').indexOf('  summarize:'));
  });

  it('says what to do when no agent file is active', async () => {
    const document = await vscode.workspace.openTextDocument({ language: 'plaintext', content: '' });
    await vscode.window.showTextDocument(document);
    assert.equal(await vscode.commands.executeCommand(SHOW_GRAPH), undefined);
  });
});
