// The environments of the workspace (agent-workflows.yaml, see docs/environments.md) as the runs
// and the status bar see them: the file nearest an agent file (walking up to its workspace folder),
// read from its editor when open, checked by the core (loaded on first use with the language core),
// and the environment chosen in the picker for that file, kept in the workspace's state. A file with
// errors is never used: its last valid version is not kept.
import * as vscode from 'vscode';
import { RunBlocked } from '../commandErrors';
import { COMMANDS } from '../commandIds';
import { affects, environmentSettings } from '../config';
import type { EnvironmentsFileResult } from '../core/environments/environmentsFile';
import type { SelectedEnvironment } from '../core/environments/selectEnvironment';
import type { EnvironmentChecks } from '../core/validation/validate';
import { displayOrigin, ENVIRONMENTS_FILE_NAME } from '../core/environments/environmentsFileName';
import { errorMessage } from '../core/errors';
import { loadLanguageCore } from '../language/loadLanguageCore';
import { currentText, openDocument } from '../workspaceFiles';

const CHOSEN_KEY = 'agentWorkflows.chosenEnvironments';
/** Environments files whose checked text is kept (a workspace has one or a few). */
const MAX_PARSED_FILES = 32;
/** Folders whose environments file (or none) is remembered. */
const MAX_LOCATED_FOLDERS = 512;

/** What the environments file nearest an agent file says. */
export interface EnvironmentsLookup {
  /** The environments file, when there is one. */
  readonly fileUri?: vscode.Uri;
  readonly result?: EnvironmentsFileResult;
}

/** The environment a run uses, with the file that declares it. */
export interface ActiveEnvironment extends SelectedEnvironment {
  readonly fileUri: vscode.Uri;
}

export class WorkspaceEnvironments implements vscode.Disposable {
  private readonly parsed = new Map<string, { readonly text: string; readonly result: EnvironmentsFileResult }>();
  /**
   * The environments file of each folder agent files were looked up from (null: none): validation,
   * the code lens and the status bar ask on every edit, and the answer changes only when an
   * environments file is created or deleted.
   */
  private readonly located = new Map<string, vscode.Uri | null>();
  /** Protected environments the user said not to ask about again in this window. */
  private readonly confirmed = new Set<string>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when an environments file, the chosen environment or the setting changes. */
  readonly onDidChange = this.changed.event;
  private readonly fileChanged = new vscode.EventEmitter<vscode.Uri>();
  /** Fires when an environments file is created, changed or deleted on disk. */
  readonly onDidChangeFile = this.fileChanged.event;
  private readonly contentChanged = new vscode.EventEmitter<void>();
  /**
   * Fires when the text of an environments file changes (edited, closed, or changed on disk), not on
   * a picker choice or a setting: the environment names agent files are checked against can only
   * change then.
   */
  readonly onDidChangeContent = this.contentChanged.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly state: vscode.Memento) {
    const watcher = vscode.workspace.createFileSystemWatcher(`**/${ENVIRONMENTS_FILE_NAME}`);
    const forget = (uri: vscode.Uri): void => {
      this.parsed.delete(uri.toString());
      this.changed.fire();
      this.contentChanged.fire();
    };
    const onDisk = (uri: vscode.Uri): void => {
      forget(uri);
      this.fileChanged.fire(uri);
    };
    this.subscriptions.push(
      this.changed,
      this.fileChanged,
      this.contentChanged,
      watcher,
      watcher.onDidCreate((uri) => (this.located.clear(), onDisk(uri))),
      watcher.onDidChange(onDisk),
      watcher.onDidDelete((uri) => (this.located.clear(), onDisk(uri))),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (isEnvironmentsFile(event.document.uri)) forget(event.document.uri);
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (isEnvironmentsFile(document.uri)) forget(document.uri);
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affects(event, 'environment')) this.changed.fire();
      }),
    );
  }

  /** The environments file nearest `uri`: its folder, then each parent up to its workspace folder. */
  async fileFor(uri: vscode.Uri): Promise<vscode.Uri | undefined> {
    const start = vscode.Uri.joinPath(uri, '..');
    const key = start.toString();
    const known = this.located.get(key);
    if (known !== undefined) return known ?? undefined;
    const found = await this.search(start);
    if (this.located.size >= MAX_LOCATED_FOLDERS) this.located.clear();
    this.located.set(key, found ?? null);
    return found;
  }

  private async search(start: vscode.Uri): Promise<vscode.Uri | undefined> {
    const folder = vscode.workspace.getWorkspaceFolder(start);
    let dir = start;
    for (let depth = 0; depth < 64; depth++) {
      const candidate = vscode.Uri.joinPath(dir, ENVIRONMENTS_FILE_NAME);
      try {
        if ((await vscode.workspace.fs.stat(candidate)).type & vscode.FileType.File) return candidate;
      } catch {
        // Not here: look further up.
      }
      const parent = vscode.Uri.joinPath(dir, '..');
      if (!folder || dir.toString() === folder.uri.toString() || parent.path === dir.path) return undefined;
      dir = parent;
    }
    return undefined;
  }

  /** The environments file of `uri` (an agent file, or the environments file itself), checked. */
  async lookup(uri: vscode.Uri): Promise<EnvironmentsLookup> {
    const fileUri = isEnvironmentsFile(uri) ? uri : await this.fileFor(uri);
    if (!fileUri) return {};
    const result = await this.read(fileUri);
    return result ? { fileUri, result } : {};
  }

  /** The environment of an agent's environments file whose base URL has this origin, if any. */
  async withOrigin(agentUri: vscode.Uri, origin: string): Promise<string | undefined> {
    const { result } = await this.lookup(agentUri);
    for (const environment of result?.file?.environments.values() ?? []) {
      try {
        if (new URL(environment.baseUrl).origin === origin) return environment.name;
      } catch {
        // An invalid base URL is the environments file's own problem, reported there.
      }
    }
    return undefined;
  }

  /**
   * Checks an environments file's text (`text` when the caller has it, else the editor's when open,
   * else the disk's); undefined when it is gone.
   */
  async read(fileUri: vscode.Uri, text?: string): Promise<EnvironmentsFileResult | undefined> {
    const key = fileUri.toString();
    const cached = this.parsed.get(key);
    // The entry is dropped when its document changes or closes, and when the watcher sees the file
    // change on disk; the watcher covers the workspace folders only, so a closed file outside them
    // is read again to compare.
    if (cached && text === undefined && (openDocument(fileUri) || vscode.workspace.getWorkspaceFolder(fileUri))) return cached.result;
    text ??= await currentText(fileUri);
    if (text === undefined) return undefined;
    if (cached?.text === text) return cached.result;
    const result = (await loadLanguageCore()).parseEnvironmentsFile(text);
    this.parsed.delete(key);
    // The oldest entry goes first (a Map keeps insertion order).
    if (this.parsed.size >= MAX_PARSED_FILES) this.parsed.delete(this.parsed.keys().next().value!);
    this.parsed.set(key, { text, result });
    return result;
  }

  /** What the environments file of an agent file says, for its overrides' checks; undefined without a valid file. */
  async checksFor(agentUri: vscode.Uri): Promise<EnvironmentChecks | undefined> {
    const { result } = await this.lookup(agentUri);
    return result?.file ? (await loadLanguageCore()).environmentChecks(result.file) : undefined;
  }

  /** The name chosen in the picker for an environments file (this workspace only). */
  chosen(fileUri: vscode.Uri): string | undefined {
    return this.state.get<Record<string, string>>(CHOSEN_KEY, {})[fileUri.toString()];
  }

  async choose(fileUri: vscode.Uri, name: string | undefined): Promise<void> {
    const all = { ...this.state.get<Record<string, string>>(CHOSEN_KEY, {}) };
    if (name === undefined) delete all[fileUri.toString()];
    else all[fileUri.toString()] = name;
    await this.state.update(CHOSEN_KEY, all);
    this.changed.fire();
  }

  /**
   * The environment a run of `agentUri` uses: `requested` (Run Again's), else the one chosen in the
   * picker, else the `agentWorkflows.environment` setting, else the file's default; undefined when
   * there is no environments file and none is asked for. A file with errors, or a name it does not
   * declare, stops the run with a message that says how to fix it.
   */
  async active(agentUri: vscode.Uri, requested?: string): Promise<ActiveEnvironment | undefined> {
    const { fileUri, result } = await this.lookup(agentUri);
    const setting = environmentSettings(agentUri).environment;
    // Nothing to choose from and nothing asked for: the common case, without loading the core.
    if (!fileUri && !requested && !setting) return undefined;
    if (fileUri && result && !result.file) {
      const errors = result.problems.filter((problem) => problem.severity === 'error');
      const first = errors[0];
      throw new RunBlocked(
        `${vscode.workspace.asRelativePath(fileUri)} has ${errors.length} ${errors.length === 1 ? 'error' : 'errors'}, so no environment can be used until ${errors.length === 1 ? 'it is' : 'they are'} fixed${first ? `: line ${first.range.line}: ${first.message}` : '.'}`,
        [{ title: 'Open Environments File', run: () => vscode.window.showTextDocument(fileUri) }],
      );
    }
    const core = await loadLanguageCore();
    try {
      const selected = core.selectEnvironment(
        result?.file,
        { flag: requested ?? (fileUri ? this.chosen(fileUri) : undefined), setting },
        {
          ...(fileUri ? { fileName: vscode.workspace.asRelativePath(fileUri) } : {}),
          where: `${ENVIRONMENTS_FILE_NAME} in the agent file's folder or a parent, up to the workspace folder`,
        },
      );
      return selected && fileUri ? { ...selected, fileUri } : undefined;
    } catch (error) {
      const actions = fileUri
        ? [
            { title: 'Select Environment', run: () => vscode.commands.executeCommand(COMMANDS.selectEnvironment, agentUri) },
            { title: 'Open Environments File', run: () => vscode.window.showTextDocument(fileUri) },
          ]
        : [
            {
              title: 'Open Settings',
              run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentWorkflows.environment'),
            },
          ];
      throw new RunBlocked(errorMessage(error), actions);
    }
  }

  /**
   * Asks before a run on a protected environment (modal), naming it with the origin and account the
   * run goes to (`target`: the agent file's override included), unless the user said not to ask
   * again in this window for that environment there; false when the user did not confirm.
   */
  async confirmRun(
    environment: ActiveEnvironment,
    target: { readonly baseUrl: string; readonly account: string },
    what: string,
  ): Promise<boolean> {
    if (!environment.declaration.protected) return true;
    const origin = displayOrigin(target.baseUrl);
    const key = `${environment.fileUri.toString()}#${environment.name}#${origin}#${target.account}`;
    if (this.confirmed.has(key)) return true;
    const run = `Run on ${environment.name}`;
    const always = `Run on ${environment.name}, Don't Ask Again in This Window`;
    const declared = environment.declaration;
    const file = vscode.workspace.asRelativePath(environment.fileUri);
    // Said when the agent file's override (allowed by allowAgentOverride) sends the run elsewhere.
    const moved =
      origin !== displayOrigin(declared.baseUrl) || target.account !== declared.account
        ? ` (the agent file's deployment.environments.${environment.name}; ${file} names ${displayOrigin(declared.baseUrl)}, account ${declared.account})`
        : '';
    const choice = await vscode.window.showWarningMessage(
      `${what} on the protected environment "${environment.name}"?`,
      {
        modal: true,
        detail: `It runs on ${origin}, account ${target.account}${moved}. "${environment.name}" is marked protected in ${file}.`,
      },
      run,
      always,
    );
    if (choice === always) this.confirmed.add(key);
    return choice === run || choice === always;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}

export function isEnvironmentsFile(uri: vscode.Uri): boolean {
  return uri.path.endsWith(`/${ENVIRONMENTS_FILE_NAME}`);
}
