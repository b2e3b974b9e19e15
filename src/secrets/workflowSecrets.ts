// The secrets that agent files reference as {{ secrets.NAME }}, kept in VS Code's SecretStorage.
// SecretStorage cannot list its keys, so the names (never the values) are kept in global state.
import type * as vscode from 'vscode';

const KEY_PREFIX = 'agentWorkflows.workflowSecret.';
const NAMES_KEY = 'agentWorkflows.workflowSecretNames';

export class WorkflowSecrets {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
  ) {}

  get(name: string): Thenable<string | undefined> {
    return this.secrets.get(KEY_PREFIX + name);
  }

  async set(name: string, value: string): Promise<void> {
    await this.secrets.store(KEY_PREFIX + name, value);
    const names = new Set(this.names());
    if (!names.has(name)) await this.state.update(NAMES_KEY, [...names, name].sort());
  }

  async delete(name: string): Promise<void> {
    await this.secrets.delete(KEY_PREFIX + name);
    await this.state.update(
      NAMES_KEY,
      this.names().filter((known) => known !== name),
    );
  }

  /** Names of the secrets stored so far. */
  names(): string[] {
    return this.state.get<string[]>(NAMES_KEY, []);
  }
}
