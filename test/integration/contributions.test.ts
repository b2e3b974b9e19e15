// What the extension contributes, as the running VS Code sees it: snippets in completion, the
// grammar's scopes on real tokens, the schema for the YAML extension, and the command.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor } from './wait';

const EXTENSION_ID = 'agent-workflows.agent-workflows';

describe('contributions', () => {
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('offers the snippets in agent files', async () => {
    const document = await vscode.workspace.openTextDocument({ language: 'agent-yaml', content: '' });
    await vscode.window.showTextDocument(document);
    const list = await waitFor(async () => {
      const result = await vscode.commands.executeCommand<vscode.CompletionList>(
        'vscode.executeCompletionItemProvider',
        document.uri,
        new vscode.Position(0, 0),
      );
      return result.items.some((item) => item.kind === vscode.CompletionItemKind.Snippet) ? result : undefined;
    }, 'snippet completions');
    const labels = list.items
      .filter((item) => item.kind === vscode.CompletionItemKind.Snippet)
      .map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
    for (const prefix of ['agent', 'api-bearer', 'api-basic', 'api-key-header', 'api-key-url', 'template', 'input-file', 'output']) {
      assert.ok(labels.includes(prefix), `snippet ${prefix} in ${labels.join(', ')}`);
    }
  });

  it('declares the language, grammar, schema, snippets and command in the manifest', () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    const contributes = extension.packageJSON.contributes;
    assert.equal(contributes.grammars[0].scopeName, 'source.agent-yaml');
    assert.equal(contributes.yamlValidation[0].url, './schemas/agent.schema.json');
    assert.deepEqual(contributes.languages[0].extensions, ['.agent.yaml', '.agent.yml']);
    assert.ok(contributes.commands.some((c: { command: string }) => c.command === 'agentWorkflows.validateWorkspace'));
  });

  it('registers every command it contributes, once activated', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    await extension.activate();
    const registered = new Set(await vscode.commands.getCommands(true));
    const contributed = (extension.packageJSON.contributes.commands as { command: string }[]).map((entry) => entry.command);
    assert.deepEqual(
      contributed.filter((command) => !registered.has(command)),
      [],
    );
    // The view's focus command, which VS Code makes for the contributed view.
    assert.ok(registered.has('agentWorkflows.executions.focus'));
  });

  it('ships the grammar and language configuration it contributes', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const { grammars, languages } = extension.packageJSON.contributes;
    const read = async (path: string) =>
      JSON.parse(Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(extension.extensionUri, path))).toString('utf8'));
    const grammar = await read(grammars[0].path);
    assert.equal(grammar.scopeName, 'source.agent-yaml');
    const configuration = await read(languages[0].configuration);
    assert.equal(configuration.comments.lineComment, '#');
  });
});
