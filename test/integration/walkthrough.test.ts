// Getting started: the walkthrough's steps link to commands the extension has, and its first step,
// New Agent File, creates a file from the snippet that validates with no errors.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { validateAgentText } from '../../src/core/validation/validate';
import { ScriptedUi } from './scriptedUi';
import { waitFor } from './wait';

interface Walkthrough {
  readonly steps: readonly { readonly id: string; readonly description: string; readonly media: { readonly markdown?: string } }[];
}

describe('walkthrough', () => {
  const extension = (): vscode.Extension<unknown> => {
    const found = vscode.extensions.getExtension('agent-workflows.agent-workflows');
    assert.ok(found);
    return found;
  };

  it('links every step to a command the extension registers, and ships its pages', async () => {
    await extension().activate();
    const walkthroughs = (extension().packageJSON as { contributes: { walkthroughs: Walkthrough[] } }).contributes.walkthroughs;
    const registered = new Set(await vscode.commands.getCommands(true));
    const steps = walkthroughs.flatMap((walkthrough) => walkthrough.steps);
    assert.deepEqual(
      steps.map((step) => step.id),
      ['createAgent', 'setApiKey', 'runLocally', 'runDeployed'],
    );
    for (const step of steps) {
      const links = [...step.description.matchAll(/\(command:([\w.]+)\)/g)].map((match) => match[1]!);
      assert.ok(links.length > 0, `${step.id} links to a command`);
      for (const command of links) assert.ok(registered.has(command), `${step.id} links to ${command}, which is registered`);
      assert.ok(step.media.markdown);
      await vscode.workspace.fs.stat(vscode.Uri.joinPath(extension().extensionUri, step.media.markdown));
    }
  });

  it('creates a new agent file from the snippet, valid as it is', async () => {
    const ui = new ScriptedUi().input((options) => {
      assert.equal(options.value, 'my-agent');
      assert.ok(options.validateInput?.('../escape'), 'a path is not a name');
      return 'walkthrough-agent';
    });
    try {
      const editor = await vscode.commands.executeCommand<vscode.TextEditor>('agentWorkflows.newAgentFile');
      assert.ok(editor.document.uri.path.endsWith('/walkthrough-agent.agent.yaml'));
      assert.equal(editor.document.languageId, 'agent-yaml');
      const text = await waitFor(
        () => (editor.document.getText().includes('outputs:') ? editor.document.getText() : undefined),
        'the snippet to be inserted',
      );
      const errors = validateAgentText(text).problems.filter((problem) => problem.severity === 'error');
      assert.deepEqual(errors, []);
      await editor.document.save();
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await vscode.workspace.fs.delete(editor.document.uri);
    } finally {
      ui.restore();
    }
    assert.deepEqual(ui.unexpected, []);
  });
});
