// Diagnostics in the real extension host: ranges and codes, live updates, close, disk changes,
// and the Validate Workspace Agents command.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

function describeDiagnostics(uri: vscode.Uri): string[] {
  return vscode.languages
    .getDiagnostics(uri)
    .map(
      (d) =>
        `${d.range.start.line + 1}:${d.range.start.character + 1}-${d.range.end.line + 1}:${d.range.end.character + 1} ${vscode.DiagnosticSeverity[d.severity]} ${typeof d.code === 'object' ? d.code.value : String(d.code)}`,
    )
    .sort();
}

async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

describe('diagnostics', () => {
  afterEach(closeAllEditors);

  it('opens .agent.yaml and .agent.yml files in the agent-yaml language', async () => {
    const yaml = await vscode.workspace.openTextDocument(workspaceUri('broken.agent.yaml'));
    const yml = await vscode.workspace.openTextDocument(workspaceUri('nested', 'weather.agent.yml'));
    assert.equal(yaml.languageId, 'agent-yaml');
    assert.equal(yml.languageId, 'agent-yaml');
  });

  it('shows the problems of an opened file with exact ranges, codes and severities', async () => {
    const uri = workspaceUri('broken.agent.yaml');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const diagnostics = await waitFor(
      () => (vscode.languages.getDiagnostics(uri).length >= 3 ? describeDiagnostics(uri) : undefined),
      'diagnostics of broken.agent.yaml',
    );
    assert.deepEqual(diagnostics, [
      '11:31-11:43 Error basic-not-encoded',
      '14:24-14:29 Error unknown-input',
      '4:3-4:9 Information unused-input',
      '8:13-8:17 Error unknown-http-method',
    ]);
    const [first] = vscode.languages.getDiagnostics(uri).filter((d) => d.range.start.line === 7);
    assert.equal(first?.source, 'agent-workflows');
    assert.match(first!.message, /Write it as "POST"/);
    const code = first!.code as { value: string; target: vscode.Uri };
    assert.equal(code.target.fragment, 'unknown-http-method');
    assert.match(code.target.path, /docs\/agent-yaml\.md$/);
  });

  it('updates as the user types and clears when the file closes', async () => {
    const uri = workspaceUri('broken.agent.yaml');
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await waitFor(
      () => vscode.languages.getDiagnostics(uri).some((d) => String((d.code as { value: string }).value) === 'unknown-http-method'),
      'the method problem',
    );
    const methodLine = editor.document.lineAt(7);
    const start = methodLine.text.indexOf('post');
    await editor.edit((edit) => edit.replace(new vscode.Range(7, start, 7, start + 4), 'POST'));
    await waitFor(() => !describeDiagnostics(uri).some((d) => d.endsWith('unknown-http-method')), 'the method problem to go');
    assert.deepEqual(describeDiagnostics(uri), [
      '11:31-11:43 Error basic-not-encoded',
      '14:24-14:29 Error unknown-input',
      '4:3-4:9 Information unused-input',
    ]);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor(() => vscode.languages.getDiagnostics(uri).length === 0, 'diagnostics to clear after close', 20_000);
  });

  it('validates the whole workspace and re-checks closed files changed on disk', async () => {
    const summary = (await vscode.commands.executeCommand('agentWorkflows.validateWorkspace')) as {
      files: number;
      errors: number;
      warnings: number;
    };
    assert.ok(summary.files >= 3, `checked ${summary.files} files`);
    assert.ok(summary.errors >= 3);
    const weather = workspaceUri('nested', 'weather.agent.yml');
    assert.deepEqual(describeDiagnostics(weather), ['11:21-11:53 Warning literal-credential']);
    const original = await vscode.workspace.fs.readFile(weather);
    try {
      const fixed = Buffer.from(original).toString('utf8').replace('0123456789abcdef0123456789abcdef', '{{ secrets.WEATHER_KEY }}');
      await vscode.workspace.fs.writeFile(weather, Buffer.from(fixed));
      await waitFor(
        () => vscode.languages.getDiagnostics(weather).length === 0,
        'the closed file to be re-checked after a change on disk',
        20_000,
      );
    } finally {
      await vscode.workspace.fs.writeFile(weather, original);
    }
    await waitFor(() => vscode.languages.getDiagnostics(weather).length === 1, 'the restored file to be re-checked', 20_000);
  });
});
