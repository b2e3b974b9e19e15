// The service API key, kept only in VS Code's SecretStorage and keyed by the service origin
// (scheme, host and port), so a workflow that names another origin never receives a key set for
// a different one. The origins (never the keys) are listed in global state for the UI.
import * as vscode from 'vscode';

const KEY_PREFIX = 'agentWorkflows.apiKey.';
const ORIGINS_KEY = 'agentWorkflows.apiKeyOrigins';
export const HAS_API_KEY_CONTEXT = 'agentWorkflows.hasApiKey';

/** The origin of a base URL: "https://agents.example.com:8443". Throws on an invalid URL. */
export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

export class ApiKeyStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with the origin whose key was set or cleared. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /**
   * Reads begun before they are needed, each taken by the next get() of its origin: a window that
   * resumes watching reads its keys from VS Code while the commands' code loads, not after. At most
   * one per origin; dropped when the key changes.
   */
  private readonly readsAhead = new Map<string, Thenable<string | undefined>>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
  ) {
    // Another window of the same profile may change the keys.
    this.subscription = secrets.onDidChange((event) => {
      if (event.key.startsWith(KEY_PREFIX)) {
        this.readsAhead.delete(event.key.slice(KEY_PREFIX.length));
        this.changed.fire(event.key.slice(KEY_PREFIX.length));
        void this.updateContext();
      }
    });
    void this.updateContext();
  }

  get(origin: string): Thenable<string | undefined> {
    const ahead = this.readsAhead.get(origin);
    this.readsAhead.delete(origin);
    return ahead ?? this.secrets.get(KEY_PREFIX + origin);
  }

  /** Starts reading the keys of these services (base URLs) now, for the next get() of each origin. */
  readAhead(baseUrls: Iterable<string>): void {
    for (const baseUrl of baseUrls) {
      let origin: string;
      try {
        origin = originOf(baseUrl);
      } catch {
        continue; // Not a URL: whoever uses it says so.
      }
      if (!this.readsAhead.has(origin)) this.readsAhead.set(origin, this.secrets.get(KEY_PREFIX + origin));
    }
  }

  async set(origin: string, key: string): Promise<void> {
    this.readsAhead.delete(origin);
    await this.secrets.store(KEY_PREFIX + origin, key);
    const origins = new Set(this.origins());
    origins.add(origin);
    await this.state.update(ORIGINS_KEY, [...origins].sort());
    this.changed.fire(origin);
    await this.updateContext();
  }

  async delete(origin: string): Promise<void> {
    this.readsAhead.delete(origin);
    await this.secrets.delete(KEY_PREFIX + origin);
    await this.state.update(
      ORIGINS_KEY,
      this.origins().filter((known) => known !== origin),
    );
    this.changed.fire(origin);
    await this.updateContext();
  }

  /** Origins that have a key. */
  origins(): string[] {
    return this.state.get<string[]>(ORIGINS_KEY, []);
  }

  dispose(): void {
    this.readsAhead.clear();
    this.subscription.dispose();
    this.changed.dispose();
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', HAS_API_KEY_CONTEXT, this.origins().length > 0);
  }
}
