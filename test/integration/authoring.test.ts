// Authoring features through VS Code's own commands, as the editor calls the providers.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor } from './wait';

async function openFixture(): Promise<{ document: vscode.TextDocument; editor: vscode.TextEditor }> {
  const folder = vscode.workspace.workspaceFolders![0]!;
  const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, 'authoring.agent.yaml'));
  const editor = await vscode.window.showTextDocument(document);
  return { document, editor };
}

function positionOf(document: vscode.TextDocument, needle: string, within = 0): vscode.Position {
  const offset = document.getText().indexOf(needle);
  assert.notEqual(offset, -1, needle);
  return document.positionAt(offset + within);
}

function offsetIn(text: string, position: vscode.Position): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) offset = text.indexOf('\n', offset) + 1;
  return offset + position.character;
}

async function completionLabels(document: vscode.TextDocument, position: vscode.Position): Promise<string[]> {
  const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', document.uri, position);
  return list.items
    .filter((item) => item.kind !== vscode.CompletionItemKind.Snippet && item.kind !== vscode.CompletionItemKind.Text)
    .map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
}

async function replaceText(editor: vscode.TextEditor, needle: string, replacement: string): Promise<void> {
  const start = positionOf(editor.document, needle);
  await editor.edit((edit) => edit.replace(new vscode.Range(start, start.translate(0, needle.length)), replacement));
}

describe('authoring', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('completes header names, auth schemes and expression references', async () => {
    const { document, editor } = await openFixture();
    await replaceText(editor, '"Accept: application/json"', '"Acc"');
    const names = await completionLabels(document, positionOf(document, '"Acc"', 4));
    for (const header of ['Authorization', 'x-api-key', 'Content-Type', 'Accept'])
      assert.ok(names.includes(header), `${header} in ${names.join(', ')}`);
    await replaceText(editor, '"Acc"', '"Authorization: "');
    assert.deepEqual(await completionLabels(document, positionOf(document, '"Authorization: "', 16)), ['Bearer', 'Basic']);
    await replaceText(editor, '{{ nodes.fetch.body.text }}', '{{ nodes. }}');
    assert.deepEqual(await completionLabels(document, positionOf(document, '{{ nodes. }}', 9)), ['fetch']);
    await replaceText(editor, '{{ nodes. }}', '{{ inputs. }}');
    assert.deepEqual(await completionLabels(document, positionOf(document, '{{ inputs. }}', 10)), ['ticket']);
  });

  it('shows hovers on header strings and references', async () => {
    const { document } = await openFixture();
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      document.uri,
      positionOf(document, 'inputs.ticket', 3),
    );
    const text = hovers
      .flatMap((hover) =>
        hover.contents.map((content) => (typeof content === 'string' ? content : (content as vscode.MarkdownString).value)),
      )
      .join('\n');
    assert.match(text, /Input `ticket`\*\*: type `string`, required/);
    const basic = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      document.uri,
      positionOf(document, 'alice:s3cret', 2),
    );
    assert.match((basic[0]!.contents[0] as vscode.MarkdownString).value, /Basic authentication/);
  });

  it('applies quick fixes: encode Basic, and move a literal token to a stored secret', async () => {
    const { document } = await openFixture();
    await waitFor(
      () => vscode.languages.getDiagnostics(document.uri).some((d) => (d.code as { value: string }).value === 'basic-not-encoded'),
      'the Basic problem',
    );
    const basicRange = new vscode.Range(positionOf(document, 'alice:s3cret'), positionOf(document, 'alice:s3cret', 12));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, basicRange);
    const encode = actions.find((action) => action.title === 'Encode the credentials as Base64');
    assert.ok(encode?.edit, actions.map((a) => a.title).join(', '));
    assert.ok(await vscode.workspace.applyEdit(encode.edit));
    assert.match(document.getText(), /"Authorization: Basic YWxpY2U6czNjcmV0"/);

    // The fixes of the edited text once it is checked: none are offered from the check before.
    const tokenRange = new vscode.Range(positionOf(document, 'abc123token'), positionOf(document, 'abc123token', 11));
    const move = await waitFor(async () => {
      const moves = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, tokenRange);
      return moves.find((action) => action.title === 'Move the value to secret FETCH_TOKEN');
    }, 'the fix moving the token to a secret');
    assert.ok(move.edit && move.command);
    assert.ok(await vscode.workspace.applyEdit(move.edit));
    assert.match(document.getText(), /"Authorization: Bearer \{\{ secrets\.FETCH_TOKEN \}\}"/);
    assert.doesNotMatch(document.getText(), /abc123token/);
    // The action's command offers to store the value; accept the notification as a user would.
    const stored = vscode.commands.executeCommand<boolean>(move.command.command, ...(move.command.arguments ?? []));
    await waitFor(async () => {
      await vscode.commands.executeCommand('notification.acceptPrimaryAction');
      return Promise.race([stored, new Promise<false>((resolve) => setTimeout(() => resolve(false), 100))]);
    }, 'the secret to be stored');
    // The stored name is now offered after "secrets." anywhere.
    const { document: again, editor } = await openFixture();
    await replaceText(editor, '{{ inputs.ticket }}', '{{ secrets. }}');
    assert.ok((await completionLabels(again, positionOf(again, '{{ secrets. }}', 11))).includes('FETCH_TOKEN'));
  });

  it('offers no fix until the edited text is checked, rather than validating on the extension host', async () => {
    const settings = vscode.workspace.getConfiguration('agentWorkflows');
    // A long validation delay, set before the file opens (a change of it checks open files again):
    // the edit below is not checked before the question.
    await settings.update('validation.delay', 5000, vscode.ConfigurationTarget.Workspace);
    const { document, editor } = await openFixture();
    const encodeAt = async (): Promise<vscode.CodeAction | undefined> => {
      const range = new vscode.Range(positionOf(document, 'alice:s3cret'), positionOf(document, 'alice:s3cret', 12));
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, range);
      return actions.find((action) => action.title === 'Encode the credentials as Base64');
    };
    try {
      await waitFor(encodeAt, 'the fix encoding the credentials');
      await replaceText(editor, 'name: Authoring', 'name: Authored');
      assert.equal(await encodeAt(), undefined, 'no fix from the problems of the text before the edit');
    } finally {
      // Changing the setting checks the open files again, now.
      await settings.update('validation.delay', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitFor(encodeAt, 'the fix, once the edited text is checked');
  });

  it('offers the secret names other agent files of the workspace use, but not those of a file over the limit', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!.uri;
    const other = vscode.Uri.joinPath(folder, 'shared-secrets.agent.yaml');
    const huge = vscode.Uri.joinPath(folder, 'huge-secrets.agent.yaml');
    const agent = (secret: string, padding = ''): string =>
      `version: 1\nname: Shared\nnodes:\n  call:\n    type: api\n    method: GET\n    url: https://api.example.com\n    settings: ["x-api-key: {{ secrets.${secret} }}"]\n${padding}`;
    await vscode.workspace.fs.writeFile(other, Buffer.from(agent('SHARED_CRM_TOKEN')));
    // Over the agent file limit (768 KB): not read, as the extension reads no agent that large.
    await vscode.workspace.fs.writeFile(huge, Buffer.from(agent('HUGE_FILE_TOKEN', `# ${'x'.repeat(800 * 1024)}\n`)));
    try {
      const { document, editor } = await openFixture();
      await replaceText(editor, '{{ inputs.ticket }}', '{{ secrets. }}');
      let asked = 0;
      const names = await waitFor(async () => {
        const labels = await completionLabels(document, positionOf(document, '{{ secrets. }}', 11));
        if (labels.includes('SHARED_CRM_TOKEN')) return labels;
        // The names are read again once a watcher reports an agent file; should the report of the
        // new file be missed, writing it again is a change that is reported.
        if (++asked % 10 === 0) await vscode.workspace.fs.writeFile(other, Buffer.from(agent('SHARED_CRM_TOKEN')));
        return undefined;
      }, 'the secret name of the other agent file');
      assert.ok(!names.includes('HUGE_FILE_TOKEN'), names.join(', '));
    } finally {
      await vscode.workspace.fs.delete(other);
      await vscode.workspace.fs.delete(huge);
    }
  });

  it('goes to definitions, finds references, renames and outlines', async () => {
    const { document } = await openFixture();
    const definitions = await vscode.commands.executeCommand<vscode.Location[]>(
      'vscode.executeDefinitionProvider',
      document.uri,
      positionOf(document, 'nodes.fetch.body', 8),
    );
    assert.equal(definitions[0]!.range.start.line, 5);
    const references = await vscode.commands.executeCommand<vscode.Location[]>(
      'vscode.executeReferenceProvider',
      document.uri,
      positionOf(document, 'fetch:', 1),
    );
    assert.equal(references.length, 2);
    const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>(
      'vscode.executeDocumentRenameProvider',
      document.uri,
      positionOf(document, 'fetch:', 1),
      'lookup',
    );
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.match(document.getText(), /\n {2}lookup:\n/);
    assert.match(document.getText(), /\{\{ nodes\.lookup\.body\.text \}\}/);
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', document.uri);
    assert.deepEqual(
      symbols.map((s) => `${s.name}: ${s.children.map((c) => c.name).join(', ')}`),
      ['inputs: ticket', 'nodes: lookup, summarize', 'outputs: summary'],
    );
  });

  it('goes from a test file to its agent file and to the declarations its cases use', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const agentUri = vscode.Uri.joinPath(folder.uri, 'agent-tests', 'greeter.agent.yaml');
    const testFile = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, 'agent-tests', 'greeter.agent.test.yaml'));
    await vscode.window.showTextDocument(testFile);
    const definitionAt = async (needle: string): Promise<string[]> => {
      const found = await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>(
        'vscode.executeDefinitionProvider',
        testFile.uri,
        positionOf(testFile, needle, 1),
      );
      return found.map((each) => {
        const location = 'targetUri' in each ? { uri: each.targetUri, range: each.targetRange } : each;
        return `${location.uri.toString() === agentUri.toString() ? 'agent' : location.uri.toString()}:${location.range.start.line}`;
      });
    };
    // The input and the mocked node of the first case, the output it expects: lines 4, 6 and 16 of the agent.
    assert.deepEqual(await definitionAt('who: Ada'), ['agent:4']);
    assert.deepEqual(await definitionAt('profile:'), ['agent:6']);
    assert.deepEqual(await definitionAt('greeting: Hello Countess'), ['agent:16']);
    // A secret is no declaration of the agent's.
    assert.deepEqual(await definitionAt('PROFILE_TOKEN: test-token'), []);
  });

  it("renames an agent's input in its test files too, and finds references from a test file", async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    // A copy of the fixture's agent and test file in a folder of this test's own: other suites make
    // test files of the fixture's agent, which a rename of its input would rightly reach too.
    const fixtures = vscode.Uri.joinPath(folder.uri, 'agent-tests');
    const tests = vscode.Uri.joinPath(folder.uri, 'rename-across');
    const agentUri = vscode.Uri.joinPath(tests, 'greeter.agent.yaml');
    const testUri = vscode.Uri.joinPath(tests, 'greeter.agent.test.yaml');
    for (const name of ['greeter.agent.yaml', 'greeter.agent.test.yaml']) {
      await vscode.workspace.fs.copy(vscode.Uri.joinPath(fixtures, name), vscode.Uri.joinPath(tests, name));
    }
    // Another folder's test file of the same agent, and a test file of another agent with an input of the same name.
    const extra = vscode.Uri.joinPath(tests, 'refs');
    const moreUri = vscode.Uri.joinPath(extra, 'more.agent.test.yaml');
    const otherUri = vscode.Uri.joinPath(extra, 'hello.agent.test.yaml');
    const more =
      'agent: ../greeter.agent.yaml\ncases:\n  quoted:\n    inputs: { "who": Grace }\n    mocks:\n      profile: { body: { title: Admiral } }\n    expect:\n      fails_at: profile\n';
    const other = 'agent: ../../hello.agent.yaml\ncases:\n  a:\n    inputs: { who: Linus }\n';
    await vscode.workspace.fs.writeFile(moreUri, Buffer.from(more));
    await vscode.workspace.fs.writeFile(otherUri, Buffer.from(other));
    try {
      const agent = await vscode.workspace.openTextDocument(agentUri);
      await vscode.window.showTextDocument(agent);
      // Run alone (--grep), this test may come before anything activated the extension: its providers are registered then.
      await vscode.extensions.getExtension('agent-workflows.agent-workflows')!.activate();
      const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>(
        'vscode.executeDocumentRenameProvider',
        agentUri,
        positionOf(agent, 'who:', 1),
        'person',
      );
      const renamed = async (uri: vscode.Uri): Promise<string> => {
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
        const edits = edit
          .get(uri)
          .map((each) => ({ start: offsetIn(text, each.range.start), end: offsetIn(text, each.range.end), newText: each.newText }));
        return edits
          .sort((a, b) => b.start - a.start)
          .reduce((result, each) => result.slice(0, each.start) + each.newText + result.slice(each.end), text);
      };
      assert.deepEqual(
        edit
          .entries()
          .map(([uri, edits]) => `${uri.path.slice(tests.path.length + 1)}: ${edits.length}`)
          .sort(),
        ['greeter.agent.test.yaml: 2', 'greeter.agent.yaml: 3', 'refs/more.agent.test.yaml: 1'],
      );
      assert.match(await renamed(agentUri), /\n {2}person: \{ type: string/);
      assert.match(await renamed(testUri), /inputs: \{ person: Ada \}[\s\S]*inputs: \{ person: Alan \}/);
      assert.match(await renamed(moreUri), /inputs: \{ "person": Grace \}/);

      // From a mocked node in the test file: the agent's declaration and reference, and every test file's name of it.
      const testFile = await vscode.workspace.openTextDocument(testUri);
      await vscode.window.showTextDocument(testFile);
      const references = await vscode.commands.executeCommand<vscode.Location[]>(
        'vscode.executeReferenceProvider',
        testUri,
        positionOf(testFile, 'profile:', 1),
      );
      assert.deepEqual(
        references.map((location) => `${location.uri.path.slice(tests.path.length + 1)}:${location.range.start.line}`).sort(),
        [
          'greeter.agent.test.yaml:19',
          'greeter.agent.test.yaml:8',
          'greeter.agent.yaml:14',
          'greeter.agent.yaml:6',
          'refs/more.agent.test.yaml:5',
          'refs/more.agent.test.yaml:7',
        ],
      );
      // Renaming the expected output from the test file renames its declaration in the agent.
      const fromTest = await vscode.commands.executeCommand<vscode.WorkspaceEdit>(
        'vscode.executeDocumentRenameProvider',
        testUri,
        positionOf(testFile, 'greeting: Hello Countess', 1),
        'message',
      );
      assert.deepEqual(
        fromTest.get(agentUri).map((each) => each.range.start.line),
        [16],
      );
      assert.equal(fromTest.get(testUri).length, 2);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(tests, { recursive: true });
    }
  });

  it('outlines test files and the environments file', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const testFile = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, 'agent-tests', 'greeter.agent.test.yaml'));
    await vscode.window.showTextDocument(testFile);
    const names = (symbols: readonly vscode.DocumentSymbol[]): string[] =>
      symbols.map((s) => `${s.name} (${s.detail})${s.children.length ? `: ${names(s.children).join(', ')}` : ''}`);
    const testSymbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', testFile.uri);
    assert.deepEqual(names(testSymbols), [
      'defaults (): secrets (1 entry)',
      'cases (2 cases): known person (inputs, mocks, expect): inputs (1 entry), mocks (1 entry), expect (1 entry), wrong title (inputs, mocks, expect): inputs (1 entry), mocks (1 entry), expect (1 entry)',
    ]);
    assert.equal(testSymbols[1]!.children[0]!.kind, vscode.SymbolKind.Method);
    assert.equal(testSymbols[1]!.children[1]!.selectionRange.start.line, 16);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    // The environments file's language, on an unsaved document: nothing is written to the workspace.
    const environments = await vscode.workspace.openTextDocument({
      language: 'agent-environments-yaml',
      content:
        'default: staging\nenvironments:\n  staging: { baseUrl: https://staging.example.com, account: acme }\n  prod: { baseUrl: https://agents.example.com/v1, account: acme, protected: true }\n',
    });
    await vscode.window.showTextDocument(environments);
    const environmentSymbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>(
      'vscode.executeDocumentSymbolProvider',
      environments.uri,
    );
    assert.deepEqual(names(environmentSymbols), [
      'default (staging)',
      'environments (2 environments): staging (https://staging.example.com · acme), prod (https://agents.example.com · acme · protected)',
    ]);
  });
});
