// The agents a local server serves: every *.agent.yaml / *.agent.yml under a folder, reloaded when
// files change. An agent's path is its file name without the extension (tickets.agent.yaml →
// "tickets"); its account is the file's deployment.account, or "local".
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { AGENT_FILE, findFilesUnder } from '../document/agentFiles';
import { readTextFile } from '../document/readTextFile';
import { AgentFileError, loadAgent } from '../engine/agentPlan';
import type { LoadedAgent } from '../engine/agentPlan';

export const LOCAL_ACCOUNT = 'local';

export interface ServedAgent {
  readonly account: string;
  /** The agent path of the execute URL. */
  readonly agent: string;
  /** The file, relative to the served folder, with "/" separators. */
  readonly file: string;
  /** Present when the agent can run. */
  readonly loaded?: LoadedAgent;
  /** Why it cannot run: errors in the file, or another file with the same agent path. */
  readonly error?: string;
}

export interface DirectoryChange {
  readonly kind: 'added' | 'changed' | 'removed';
  readonly agent: ServedAgent;
}

export interface AgentDirectoryOptions {
  /** Reload on changes (default true). */
  readonly watch?: boolean;
  readonly onChange?: (changes: readonly DirectoryChange[]) => void;
  readonly onWarning?: (message: string) => void;
  /** How long to let a burst of file events settle before rescanning. */
  readonly debounceMs?: number;
  /** Rescan interval when the platform cannot watch a folder tree. */
  readonly pollIntervalMs?: number;
}

interface FileEntry {
  readonly stamp: string;
  readonly agent: ServedAgent;
}

export class AgentDirectory {
  private files = new Map<string, FileEntry>();
  private byPath = new Map<string, ServedAgent>();
  private watcher: FSWatcher | undefined;
  private poller: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  /** A scan asked for while one runs: starts when it ends, shared by everyone who asks meanwhile. */
  private queued: Promise<void> | undefined;
  private closed = false;

  private constructor(
    readonly directory: string,
    private readonly options: AgentDirectoryOptions,
  ) {}

  /** Scans the folder once and, unless told otherwise, keeps watching it. */
  static async open(directory: string, options: AgentDirectoryOptions = {}): Promise<AgentDirectory> {
    const served = new AgentDirectory(directory, options);
    await served.scan(false);
    if (options.watch !== false) served.startWatching();
    return served;
  }

  /** Every agent file found, in file order, including those that cannot run. */
  list(): ServedAgent[] {
    return [...this.files.values()].map((entry) => this.resolved(entry.agent));
  }

  find(account: string, agent: string): ServedAgent | undefined {
    return this.byPath.get(key(account, agent));
  }

  /** Scans for changes; resolves once a scan that started after this call has ended. */
  rescan(): Promise<void> {
    if (this.queued) return this.queued;
    if (this.scanning) {
      this.queued = this.scanning
        .catch(() => undefined)
        .then(() => {
          this.queued = undefined;
          return this.rescan();
        });
      return this.queued;
    }
    this.scanning = this.scan(true).finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    if (this.poller) clearInterval(this.poller);
    if (this.debounce) clearTimeout(this.debounce);
    await Promise.allSettled([this.scanning, this.queued]);
  }

  private startWatching(): void {
    try {
      this.watcher = watch(this.directory, { recursive: true }, () => this.scheduleRescan());
      this.watcher.on('error', (error) => {
        this.options.onWarning?.(
          `Watching ${this.directory} stopped (${error.message}); checking for changes every ${this.pollInterval() / 1000} s instead.`,
        );
        this.watcher?.close();
        this.watcher = undefined;
        this.startPolling();
      });
    } catch (error) {
      this.options.onWarning?.(
        `${this.directory} cannot be watched here (${(error as Error).message}); checking for changes every ${this.pollInterval() / 1000} s instead.`,
      );
      this.startPolling();
    }
  }

  private pollInterval(): number {
    return this.options.pollIntervalMs ?? 2000;
  }

  private startPolling(): void {
    if (this.closed || this.poller) return;
    this.poller = setInterval(() => this.scheduleRescan(), this.pollInterval());
    this.poller.unref();
  }

  private scheduleRescan(): void {
    if (this.closed) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.rescan().catch((error: unknown) => this.options.onWarning?.(`Rescanning ${this.directory} failed: ${(error as Error).message}`));
    }, this.options.debounceMs ?? 50);
  }

  private async scan(report: boolean): Promise<void> {
    const found = await findAgentFiles(this.directory, (skipped, reason) =>
      this.options.onWarning?.(`${skipped}: ${reason} Its agent files are not served.`),
    );
    const next = new Map<string, FileEntry>();
    const changes: DirectoryChange[] = [];
    for (const { path, stamp } of found) {
      if (this.closed) return;
      const file = relative(this.directory, path).split(sep).join('/');
      const previous = this.files.get(file);
      if (previous && previous.stamp === stamp) {
        next.set(file, previous);
        continue;
      }
      const entry = { stamp, agent: await readAgent(path, file) };
      next.set(file, entry);
      changes.push({ kind: previous ? 'changed' : 'added', agent: entry.agent });
    }
    for (const [file, entry] of this.files) if (!next.has(file)) changes.push({ kind: 'removed', agent: entry.agent });
    this.files = next;
    this.byPath = new Map();
    // Of two files with the same agent path, the one nearer the top of the folder is served.
    const depth = (file: string): number => file.split('/').length;
    const ordered = [...next.values()].sort(
      (a, b) => depth(a.agent.file) - depth(b.agent.file) || a.agent.file.localeCompare(b.agent.file),
    );
    for (const entry of ordered) {
      const path = key(entry.agent.account, entry.agent.agent);
      if (entry.agent.agent !== '' && !this.byPath.has(path)) this.byPath.set(path, entry.agent);
    }
    if (report && changes.length > 0)
      this.options.onChange?.(
        changes.map((change) => (change.kind === 'removed' ? change : { ...change, agent: this.resolved(change.agent) })),
      );
  }

  /** The agent as served: a file whose agent path another file already has cannot run. */
  private resolved(agent: ServedAgent): ServedAgent {
    if (agent.agent === '')
      return {
        ...agent,
        error: agent.error ?? 'The file name has nothing before ".agent.yaml", so the agent has no path. Rename the file.',
      };
    const owner = this.byPath.get(key(agent.account, agent.agent));
    if (owner && owner.file !== agent.file) {
      return {
        account: agent.account,
        agent: agent.agent,
        file: agent.file,
        error: `${owner.file} already serves ${agent.account}/${agent.agent}; rename one of the files (the agent path is the file name).`,
      };
    }
    return agent;
  }
}

function key(account: string, agent: string): string {
  return `${account}\u0000${agent}`;
}

async function readAgent(path: string, file: string): Promise<ServedAgent> {
  const agent = file.split('/').pop()!.replace(AGENT_FILE, '');
  // Only a regular file of at most MAX_FILE_BYTES is read (a symlink to /dev/zero or a FIFO is refused).
  const decoded = await readTextFile(path);
  if ('error' in decoded) return { account: LOCAL_ACCOUNT, agent, file, error: `${file}: ${decoded.error}` };
  try {
    const loaded = loadAgent(decoded.text, file);
    return { account: loaded.model.deployment?.account ?? LOCAL_ACCOUNT, agent, file, loaded };
  } catch (error) {
    if (!(error instanceof AgentFileError)) throw error;
    return { account: error.model?.deployment?.account ?? LOCAL_ACCOUNT, agent, file, error: error.message };
  }
}

/** Every agent file below the folder with a stamp that changes when the file does. */
async function findAgentFiles(
  directory: string,
  onSkipped: (directory: string, reason: string) => void,
): Promise<Array<{ path: string; stamp: string }>> {
  const found: Array<{ path: string; stamp: string }> = [];
  for (const path of await findFilesUnder(directory, AGENT_FILE, onSkipped)) {
    try {
      const info = await stat(path);
      found.push({ path, stamp: `${info.mtimeMs}:${info.ctimeMs}:${info.size}:${info.ino}` });
    } catch {
      // Removed between listing and stat: it is simply gone.
    }
  }
  return found;
}
