// The extension loads in a real VS Code and activates on an .agent.yaml file of the workspace
// (a fresh copy of test/fixtures/workspace per run).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'agent-workflows.agent-workflows';

interface Contributes {
  languages?: { id: string; extensions?: string[] }[];
  commands?: { command: string; title: string }[];
}

function extension(): vscode.Extension<unknown> {
  const found = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(found, `extension ${EXTENSION_ID} is not loaded`);
  return found;
}

function workspaceFolder(): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'no workspace folder is open');
  return folder;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describe('extension smoke test', () => {
  it('is loaded from the development path', () => {
    const ext = extension();
    assert.equal(ext.packageJSON.name, 'agent-workflows');
  });

  it('opens a temporary copy of the fixture workspace', async () => {
    const folder = workspaceFolder();
    assert.ok(
      !folder.uri.path.startsWith(extension().extensionUri.path),
      `the workspace ${folder.uri.path} is inside the repository, not a copy`,
    );
    const stat = await vscode.workspace.fs.stat(vscode.Uri.joinPath(folder.uri, 'hello.agent.yaml'));
    assert.equal(stat.type, vscode.FileType.File);
  });

  it('activates when an .agent.yaml file of the workspace is opened', async () => {
    const ext = extension();
    const uri = vscode.Uri.joinPath(workspaceFolder().uri, 'hello.agent.yaml');
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document);
    assert.equal(document.languageId, 'agent-yaml');
    if (!(await waitFor(() => ext.isActive, 10_000))) {
      // Say why, if activation threw.
      const reason = await ext.activate().then(
        () => 'it activates when asked, so the activation event did not fire',
        (error: unknown) => `activate() failed: ${String(error)}`,
      );
      assert.fail(`the extension did not activate within 10 s of opening ${uri.path}: ${reason}`);
    }
  });

  it('contributes the agent-yaml language and the validate command', () => {
    const contributes = extension().packageJSON.contributes as Contributes;
    const language = contributes.languages?.find((l) => l.id === 'agent-yaml');
    assert.ok(language, 'language agent-yaml is not contributed');
    assert.ok(language.extensions?.includes('.agent.yaml'));
    assert.ok(
      contributes.commands?.some((c) => c.command === 'agentWorkflows.validateWorkspace'),
      'command agentWorkflows.validateWorkspace is not contributed',
    );
  });
});
