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
      const result = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', document.uri, new vscode.Position(0, 0));
      return result.items.some((item) => item.kind === vscode.CompletionItemKind.Snippet) ? result : undefined;
    }, 'snippet completions');
    const labels = list.items.filter((item) => item.kind === vscode.CompletionItemKind.Snippet).map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
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

  it('applies the grammar to agent files (expression and header scopes)', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const uri = vscode.Uri.joinPath(folder.uri, 'broken.agent.yaml');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    // The same internal command VS Code's own colorizer tests use to read the tokens of a file.
    const tokens = await waitFor(async () => {
      const result = await vscode.commands.executeCommand<Array<{ c: string; t: string }>>('_workbench.captureSyntaxTokens', uri);
      return result && result.length > 0 ? result : undefined;
    }, 'syntax tokens');
    const scopesOf = (text: string) => tokens.filter((token) => token.c === text).map((token) => token.t);
    assert.ok(scopesOf('inputs').some((t) => t.includes('variable.language.root.agent-yaml')), JSON.stringify(scopesOf('inputs')));
    assert.ok(scopesOf('Authorization').some((t) => t.includes('support.type.property-name.header.agent-yaml')), JSON.stringify(scopesOf('Authorization')));
    assert.ok(scopesOf('Basic').some((t) => t.includes('keyword.other.auth-scheme.agent-yaml')), JSON.stringify(scopesOf('Basic')));
  });
});
