// Code lenses at the top of an agent file: Run Agent, Run Locally, Copy as curl, Show Graph; and
// above each node: Send Request (API nodes), Render (template nodes), and a pinned node's pin.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { resultsSettings } from '../config';
import { affects } from '../config';
import { pinTimeLabel } from '../core/nodeValues/pins';
import { AGENT_LANGUAGE_ID } from './languageIds';
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
    // Above the agent's name, or the first line. Asked on every edit: read lines, not the whole text.
    let nameLine = 0;
    for (let line = 0; line < document.lineCount; line++) {
      if (/^name\s*:/.test(document.lineAt(line).text)) {
        nameLine = line;
        break;
      }
    }
    const range = new vscode.Range(nameLine, 0, nameLine, 0);
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
    for (const location of locations) {
      const position = document.positionAt(location.keyOffset);
      const range = new vscode.Range(position.line, 0, position.line, 0);
      const args = [document.uri, location.id];
      if (location.type === 'api')
        lenses.push(
          new vscode.CodeLens(range, {
            title: '$(send) Send Request',
            tooltip: `Send the request of node "${location.id}" alone and show the exchange`,
            command: COMMANDS.sendRequest,
            arguments: args,
          }),
        );
      else if (location.type === 'template')
        lenses.push(
          new vscode.CodeLens(range, {
            title: '$(open-preview) Render',
            tooltip: `Show the text of node "${location.id}" with the current values (nothing is sent)`,
            command: COMMANDS.renderTemplate,
            arguments: args,
          }),
        );
      const pin = pins.get(location.id);
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

export function registerCodeLensProvider(
  context: vscode.ExtensionContext,
  deps: { readonly environments: LensEnvironments; readonly pins: LensPins },
): void {
  const provider = new AgentCodeLensProvider(deps.environments, deps.pins);
  context.subscriptions.push(provider, vscode.languages.registerCodeLensProvider({ language: AGENT_LANGUAGE_ID }, provider));
}
