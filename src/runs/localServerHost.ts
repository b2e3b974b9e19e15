// The local agent server started from VS Code ("Start Local Agent Server"): serves the workspace
// folder's agent files on 127.0.0.1 with the service's HTTP interface, with secrets from
// SecretStorage. Its fresh key is stored for its origin, so deployed-style runs can target it.
import * as vscode from 'vscode';
import { proxySettings } from '../config';
import type { AgentServer } from '../core/server/agentServer';
import type { ApiKeyStore } from '../secrets/apiKeyStore';
import { originOf } from '../secrets/apiKeyStore';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';

export const LOCAL_SERVER_RUNNING_CONTEXT = 'agentWorkflows.localServerRunning';
/** Origins of servers this workspace started whose keys are stored (in workspace state: another window has its own). */
const SERVER_ORIGINS_KEY = 'agentWorkflows.localServerOrigins';

export class LocalServerHost implements vscode.Disposable {
  private server: AgentServer | undefined;
  private starting: Promise<AgentServer> | undefined;
  private readonly changed = new vscode.EventEmitter<AgentServer | undefined>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly deps: {
      readonly keys: ApiKeyStore;
      readonly workflowSecrets: WorkflowSecrets;
      readonly logger: vscode.LogOutputChannel;
      readonly state: vscode.Memento;
    },
  ) {
    // A window that closed with the server running could not remove its key: do it now.
    void this.forgetStaleKeys();
  }

  get running(): AgentServer | undefined {
    return this.server;
  }

  /** Starts the server for a folder (or returns the running one when it serves the same folder). */
  async start(folder: vscode.Uri, port = 0): Promise<AgentServer> {
    if (this.server && this.server.directory === folder.fsPath) return this.server;
    if (this.starting) return this.starting;
    await this.stop();
    this.starting = (async () => {
      const { anyHostDispatcher, startAgentServer } = await import('./localServerCode');
      // API nodes of the served agents call out through VS Code's proxy settings too.
      const dispatcher = anyHostDispatcher(proxySettings());
      const server = await startAgentServer({
        directory: folder.fsPath,
        port,
        secrets: async (name) => this.deps.workflowSecrets.get(name),
        secretHint: (name) => `run "Agent Workflows: Set Secret…" for ${name}`,
        ...(dispatcher ? { engine: { dispatcher } } : {}),
        onEvent: (event) => {
          if (event.kind === 'warning') this.deps.logger.warn(`Local server: ${event.message}`);
          else if (event.kind === 'agents-changed')
            this.deps.logger.info(`Local server: ${event.changes.map((change) => `${change.kind} ${change.agent.file}`).join(', ')}`);
          else this.deps.logger.info(`Local server: execution ${event.execution.executionId} ${event.execution.status}`);
        },
      });
      await this.deps.keys.set(originOf(server.url), server.apiKey);
      await this.deps.state.update(SERVER_ORIGINS_KEY, [...this.deps.state.get<string[]>(SERVER_ORIGINS_KEY, []), originOf(server.url)]);
      this.server = server;
      await vscode.commands.executeCommand('setContext', LOCAL_SERVER_RUNNING_CONTEXT, true);
      this.deps.logger.info(
        `Local agent server listening on ${server.url} for ${server.directory} (${server.agents().length} agent files).`,
      );
      this.changed.fire(server);
      return server;
    })();
    try {
      return await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  async stop(): Promise<boolean> {
    const server = this.server;
    if (!server) return false;
    this.server = undefined;
    await server.close();
    // Its key is useless once it stops; a new start makes a new one.
    await this.forget(originOf(server.url));
    await vscode.commands.executeCommand('setContext', LOCAL_SERVER_RUNNING_CONTEXT, false);
    this.deps.logger.info(`Local agent server on ${server.url} stopped.`);
    this.changed.fire(undefined);
    return true;
  }

  private async forget(origin: string): Promise<void> {
    await this.deps.keys.delete(origin);
    await this.deps.state.update(
      SERVER_ORIGINS_KEY,
      this.deps.state.get<string[]>(SERVER_ORIGINS_KEY, []).filter((known) => known !== origin),
    );
  }

  private async forgetStaleKeys(): Promise<void> {
    for (const origin of this.deps.state.get<string[]>(SERVER_ORIGINS_KEY, [])) {
      if (origin !== (this.server && originOf(this.server.url))) await this.forget(origin).catch(() => undefined);
    }
  }

  dispose(): void {
    void this.server?.close();
    this.server = undefined;
    this.changed.dispose();
  }
}
