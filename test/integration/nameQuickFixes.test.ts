// Quick fixes in agent test files and the environments file through VS Code's own commands: the
// problem that suggests a name (a test file's unknown input, agent-workflows.yaml's unknown default
// environment) offers "Change to …", whose edit writes the name meant; a document edited since its
// problems were computed offers no fix from them.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor } from './wait';
import { workspaceUri } from './workspace';

const FOLDER = workspaceUri('name-fixes');
const AGENT = vscode.Uri.joinPath(FOLDER, 'greeter.agent.yaml');
const TEST_FILE = vscode.Uri.joinPath(FOLDER, 'greeter.agent.test.yaml');
const ENVIRONMENTS = vscode.Uri.joinPath(FOLDER, 'agent-workflows.yaml');

async function write(uri: vscode.Uri, text: string): Promise<void> {
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
}

function codeOf(diagnostic: vscode.Diagnostic): string {
  return typeof diagnostic.code === 'object' ? String(diagnostic.code.value) : String(diagnostic.code);
}

/** The diagnostic of a code on a file, once shown. */
function diagnosticOf(uri: vscode.Uri, code: string): Promise<vscode.Diagnostic> {
  return waitFor(() => vscode.languages.getDiagnostics(uri).find((diagnostic) => codeOf(diagnostic) === code), `the ${code} problem`);
}

async function codeActionsAt(uri: vscode.Uri, range: vscode.Range): Promise<vscode.CodeAction[]> {
  return vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, range);
}

describe('name quick fixes in test files and agent-workflows.yaml', () => {
  before(async () => {
    const extension = vscode.extensions.getExtension('agent-workflows.agent-workflows');
    assert.ok(extension);
    await extension.activate();
    await write(
      AGENT,
      'version: 1\nname: Greeter\ninputs:\n  who: { type: string, required: true }\nnodes:\n  greet:\n    type: template\n    text: "Hello {{ inputs.who }}"\noutputs:\n  greeting: { from: "{{ nodes.greet.body }}" }\n',
    );
  });

  afterEach(async () => {
    for (const document of vscode.workspace.textDocuments.filter((open) => open.isDirty)) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert').then(undefined, () => undefined);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    await vscode.workspace.fs.delete(FOLDER, { recursive: true }).then(undefined, () => undefined);
  });

  it('changes an unknown input of a test file to the input meant, and offers nothing from problems of an older text', async () => {
    await write(
      TEST_FILE,
      'agent: greeter.agent.yaml\ncases:\n  greets:\n    inputs: { wha: Ada }\n    expect:\n      outputs:\n        greeting: Hello Ada\n',
    );
    const document = await vscode.workspace.openTextDocument(TEST_FILE);
    const editor = await vscode.window.showTextDocument(document);
    const diagnostic = await diagnosticOf(TEST_FILE, 'unknown-input');
    assert.equal(document.getText(diagnostic.range), 'wha');

    // Edited since: the problem, and its suggestion, are of the text before; no fix is offered from
    // them (nor from the problems of the new text: nothing is like "qqq").
    const wha = new vscode.Range(diagnostic.range.start, diagnostic.range.end);
    assert.ok(await editor.edit((edit) => edit.replace(wha, 'qqq')));
    const stale = await codeActionsAt(TEST_FILE, wha);
    assert.deepEqual(
      stale.filter((action) => action.title.startsWith('Change to')).map((action) => action.title),
      [],
      'no fix from the problems of the text before the edit',
    );

    // Back to "wha", a line lower: the fix of the problem at its new place, once read again.
    assert.ok(
      await editor.edit((edit) => {
        edit.replace(wha, 'wha');
        edit.insert(new vscode.Position(0, 0), '# edited\n');
      }),
    );
    const moved = await waitFor(
      () =>
        vscode.languages
          .getDiagnostics(TEST_FILE)
          .find((entry) => codeOf(entry) === 'unknown-input' && entry.range.start.line === 4 && /"wha"/.test(entry.message)),
      'the unknown input at its new line',
    );
    const actions = await waitFor(async () => {
      const found = await codeActionsAt(TEST_FILE, moved.range);
      return found.some((action) => action.title === 'Change to "who"') ? found : undefined;
    }, 'the quick fix "Change to "who""');
    const fix = actions.find((action) => action.title === 'Change to "who"')!;
    assert.equal(fix.kind?.value, vscode.CodeActionKind.QuickFix.value);
    assert.ok(fix.edit, 'the fix is an edit');
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.match(document.getText(), /^ {4}inputs: \{ who: Ada \}$/m);
    await waitFor(
      () => !vscode.languages.getDiagnostics(TEST_FILE).some((entry) => codeOf(entry) === 'unknown-input'),
      'the unknown input problem to go',
    );
  });

  it('changes an unknown default environment of agent-workflows.yaml to the environment meant', async () => {
    await write(
      ENVIRONMENTS,
      'default: "dve"\nenvironments:\n  dev:\n    baseUrl: https://dev.example.com\n    account: local\n  prod:\n    baseUrl: https://prod.example.com\n    account: local\n',
    );
    const document = await vscode.workspace.openTextDocument(ENVIRONMENTS);
    assert.equal(document.languageId, 'agent-environments-yaml');
    await vscode.window.showTextDocument(document);
    const diagnostic = await diagnosticOf(ENVIRONMENTS, 'unknown-default-environment');
    const actions = await codeActionsAt(ENVIRONMENTS, diagnostic.range);
    const fix = actions.find((action) => action.title === 'Change to "dev"');
    assert.ok(fix?.edit, actions.map((action) => action.title).join(', ') || 'no code actions');
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    // In the quotes it was written in.
    assert.match(document.getText(), /^default: "dev"$/m);
    await waitFor(() => vscode.languages.getDiagnostics(ENVIRONMENTS).length === 0, 'the problem to go');
  });
});
