// The extension manifest (package.json) holds together: menus, welcome links and walkthroughs name
// contributed commands, `when` clauses name contributed views, settings are documented, and the
// ids the code uses are the ids the manifest contributes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/commandIds';
import { repoRoot } from '../support/paths';

interface Manifest {
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: boolean | 'limited'; restrictedConfigurations?: string[] } };
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    views: Record<string, { id: string }[]>;
    viewsWelcome: { view: string; contents: string }[];
    walkthroughs: { steps: { description: string }[] }[];
    configuration: { properties: Record<string, { default?: unknown; description?: string; markdownDescription?: string }> };
  };
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
const contributes = manifest.contributes;
const commands = new Set(contributes.commands.map((entry) => entry.command));
const views = new Set(Object.values(contributes.views).flatMap((list) => list.map((view) => view.id)));
const linked = (text: string): string[] => [...text.matchAll(/\(command:([\w.]+)\)/g)].map((match) => match[1]!);
const builtIn = (command: string): boolean => command.startsWith('workbench.');

describe('manifest', () => {
  it('contributes every command id the code uses, and uses every contributed one', () => {
    const used = new Set(Object.values(COMMANDS));
    // VS Code makes the focus command of a contributed view.
    assert.deepEqual(
      [...used].filter((command) => !commands.has(command) && command !== 'agentWorkflows.executions.focus'),
      [],
    );
    const source = ['validateWorkspace', 'storeMovedSecret'].map((name) => `agentWorkflows.${name}`);
    assert.deepEqual(
      [...commands].filter((command) => !used.has(command as never) && !source.includes(command)),
      [],
    );
    for (const entry of contributes.commands) assert.equal(entry.category, 'Agent Workflows', entry.command);
  });

  it('names only contributed commands and views in menus, welcome views and walkthroughs', () => {
    for (const [menu, entries] of Object.entries(contributes.menus)) {
      for (const entry of entries) {
        assert.ok(commands.has(entry.command), `${menu}: ${entry.command}`);
        for (const view of entry.when?.matchAll(/view == ([\w.]+)/g) ?? []) assert.ok(views.has(view[1]!), `${menu}: view ${view[1]}`);
      }
    }
    for (const welcome of contributes.viewsWelcome) {
      assert.ok(views.has(welcome.view), welcome.view);
      for (const command of linked(welcome.contents)) assert.ok(commands.has(command) || builtIn(command), command);
    }
    const steps = contributes.walkthroughs.flatMap((walkthrough) => walkthrough.steps);
    assert.ok(steps.length >= 4);
    for (const step of steps) for (const command of linked(step.description)) assert.ok(commands.has(command), command);
  });

  it('offers running only in trusted workspaces, and says so', () => {
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    for (const setting of manifest.capabilities.untrustedWorkspaces.restrictedConfigurations ?? [])
      assert.ok(contributes.configuration.properties[setting], setting);
    const running = [
      'agentWorkflows.runAgent',
      'agentWorkflows.runLocally',
      'agentWorkflows.pollExecution',
      'agentWorkflows.startLocalServer',
    ];
    for (const [menu, entries] of Object.entries(contributes.menus)) {
      for (const entry of entries) {
        if (running.includes(entry.command)) assert.match(entry.when ?? '', /isWorkspaceTrusted/, `${menu}: ${entry.command}`);
      }
    }
  });

  it('documents every setting, with a default', () => {
    for (const [name, property] of Object.entries(contributes.configuration.properties)) {
      assert.ok(property.markdownDescription ?? property.description, `${name} has a description`);
      assert.ok('default' in property, `${name} has a default`);
    }
  });

  it('activates narrowly', () => {
    assert.ok(!manifest.activationEvents.includes('*'));
    assert.ok(!manifest.activationEvents.includes('onStartupFinished'));
    // workspaceContains makes VS Code search the whole workspace at every window start.
    assert.deepEqual(
      manifest.activationEvents.filter((event) => event.startsWith('workspaceContains')),
      [],
    );
    assert.ok(manifest.activationEvents.includes('onLanguage:agent-yaml'));
  });
});
