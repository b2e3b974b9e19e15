// Code lenses at the top of an agent file: Run Agent, Run Locally, Copy as curl, Show Graph; and
// Run Tests when the agent has a test file; above each node: Send Request (API nodes), Render
// (template nodes), and a pinned node's pin.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { resultsSettings } from '../config';
import { affects } from '../config';
import { pinTimeLabel } from '../core/nodeValues/pins';
import { AGENT_LANGUAGE_ID, TEST_LANGUAGE_ID } from './languageIds';
import { nodeLocationsOf } from './nodeLocations';

/**
 * What the lenses ask of the workspace's environments (src/environments/, a layer above: the
 * composition root passes WorkspaceEnvironments in).
 */
export interface LensEnvironments {
  readonly onDidChange: vscode.Event<unknown>;
  /** The environment an agent file runs on now; throws when the environments file cannot be used. */
  active(agentUri: vscode.Uri): Promise<{ readonly name: string } | undefined>;
}

/** What the lenses ask of the pinned node results (src/runs/pinStore.ts, a layer above). */
export interface LensPins {
  readonly onDidChange: vscode.Event<unknown>;
  pinsOf(file: vscode.Uri): ReadonlyMap<string, { readonly pinnedAt: number }>;
}

class AgentCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly environments: LensEnvironments,
    private readonly pins: LensPins,
  ) {
    this.subscriptions = [
      environments.onDidChange(() => this.changed.fire()),
      pins.onDidChange(() => this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affects(event, 'codeLens.enabled')) this.changed.fire();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()),
    ];
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!resultsSettings().codeLens) return [];
    const range = lensRange(document);
    const graph = new vscode.CodeLens(range, {
      title: '$(type-hierarchy) Show graph',
      command: COMMANDS.showGraph,
      arguments: [document.uri],
    });
    if (!vscode.workspace.isTrusted) return [graph];
    const environment = await this.environmentOf(document.uri);
    const nodeLenses = await this.nodeLenses(document);
    return [
      new vscode.CodeLens(range, {
        title: environment ? `$(play) Run agent (${environment})` : '$(play) Run agent',
        tooltip: environment
          ? `Run on the environment "${environment}" of agent-workflows.yaml (switch it in the status bar)`
          : 'Run on the service named by deployment: (or the local agent server)',
        command: COMMANDS.runAgent,
        arguments: [document.uri],
      }),
      new vscode.CodeLens(range, {
        title: '$(debug-alt-small) Run locally',
        tooltip: 'Run in VS Code with the workflow engine',
        command: COMMANDS.runLocally,
        arguments: [document.uri],
      }),
      new vscode.CodeLens(range, {
        title: '$(debug-alt) Debug',
        tooltip: 'Run in VS Code under the debugger: breakpoints on nodes, values and requests inspected',
        command: COMMANDS.debugAgent,
        arguments: [document.uri],
      }),
      new vscode.CodeLens(range, { title: '$(terminal) Copy as curl', command: COMMANDS.copyAsCurl, arguments: [document.uri] }),
      graph,
      ...nodeLenses,
    ];
  }

  /** Send Request above each API node, Render above each template node, and the pin of a pinned one. */
  private async nodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    let locations;
    try {
      locations = await nodeLocationsOf(document);
    } catch {
      return [];
    }
    const pins = this.pins.pinsOf(document.uri);
    const lenses: vscode.CodeLens[] = [];
    for (const [index, location] of locations.entries()) {
      const pin = pins.get(location.id);
      // Past MAX_NODE_LENSES nodes only pins show (bounded): thousands of lenses would hold up the
      // host for nothing, and the palette and context menu still send or render any node.
      const withinLimit = index < MAX_NODE_LENSES;
      if (!withinLimit && !pin) continue;
      const position = document.positionAt(location.keyOffset);
      const range = new vscode.Range(position.line, 0, position.line, 0);
      const args = [document.uri, location.id];
      if (withinLimit && location.type === 'api')
        lenses.push(
          new vscode.CodeLens(range, {
            title: '$(send) Send Request',
            tooltip: `Send the request of node "${location.id}" alone and show the exchange`,
            command: COMMANDS.sendRequest,
            arguments: args,
          }),
        );
      else if (withinLimit && location.type === 'template')
        lenses.push(
          new vscode.CodeLens(range, {
            title: '$(open-preview) Render',
            tooltip: `Show the text of node "${location.id}" with the current values (nothing is sent)`,
            command: COMMANDS.renderTemplate,
            arguments: args,
          }),
        );
      if (pin)
        lenses.push(
          new vscode.CodeLens(range, {
            title: `$(pinned) pinned ${pinTimeLabel(pin.pinnedAt)} · Unpin`,
            tooltip: `Send Request and Run Locally use the pinned result instead of calling "${location.id}". Click to unpin.`,
            command: COMMANDS.unpinNodeResult,
            arguments: args,
          }),
        );
    }
    return lenses;
  }

  /** The active environment's name for the lens, or a hint when the environments file says none can be used. */
  private async environmentOf(uri: vscode.Uri): Promise<string | undefined> {
    try {
      return (await this.environments.active(uri))?.name;
    } catch {
      return 'environment needs fixing';
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

/**
 * What the Run Tests lens asks of the agent tests (src/testing/, a layer above: the composition
 * root passes the AgentTestController in).
 */
export interface LensTestFiles {
  /** Fires when test files appear, go, or change the agent they test. */
  readonly onDidChangeTestFiles: vscode.Event<void>;
  /** The test files of an agent file (the one beside it, and any that name it). */
  testFilesFor(agentFile: vscode.Uri): Promise<readonly vscode.Uri[]>;
}

/** "Run tests" above an agent file that has a test file. */
class RunTestsCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly tests: LensTestFiles) {
    this.subscriptions = [
      tests.onDidChangeTestFiles(() => this.changed.fire()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affects(event, 'codeLens.enabled')) this.changed.fire();
      }),
    ];
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!resultsSettings().codeLens || !vscode.workspace.isTrusted || document.languageId === TEST_LANGUAGE_ID) return [];
    const testFiles = await this.tests.testFilesFor(document.uri);
    if (testFiles.length === 0) return [];
    const names = testFiles.map((uri) => vscode.workspace.asRelativePath(uri)).join(', ');
    return [
      new vscode.CodeLens(lensRange(document), {
        title: '$(beaker) Run tests',
        tooltip: `Run the cases of ${names} in the Test Explorer`,
        command: COMMANDS.runAgentTests,
        arguments: [document.uri],
      }),
    ];
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

/** Where an agent file's lenses go: above its name, or on the first line. Asked on every edit: reads lines, not the whole text. */
function lensRange(document: vscode.TextDocument): vscode.Range {
  let nameLine = 0;
  for (let line = 0; line < document.lineCount; line++) {
    if (/^name\s*:/.test(document.lineAt(line).text)) {
      nameLine = line;
      break;
    }
  }
  return new vscode.Range(nameLine, 0, nameLine, 0);
}

/** The nodes of a file that get Send Request or Render lenses (a file of 2,700 nodes stalled the host). */
export const MAX_NODE_LENSES = 200;

export function registerCodeLensProvider(
  context: vscode.ExtensionContext,
  deps: { readonly environments: LensEnvironments; readonly pins: LensPins },
): void {
  const provider = new AgentCodeLensProvider(deps.environments, deps.pins);
  context.subscriptions.push(provider, vscode.languages.registerCodeLensProvider({ language: AGENT_LANGUAGE_ID }, provider));
}

export function registerRunTestsCodeLens(context: vscode.ExtensionContext, deps: { readonly tests: LensTestFiles }): void {
  const provider = new RunTestsCodeLensProvider(deps.tests);
  context.subscriptions.push(provider, vscode.languages.registerCodeLensProvider({ language: AGENT_LANGUAGE_ID }, provider));
}
