// Starts code-server (VS Code server + web workbench + Node extension host, installed from npm by
// scripts/install-test-host.sh) and a headless Debian Chromium to drive it, both fully isolated
// from the user's own configuration. See docs/testing.md and the recipe it links.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { findRepoRoot, makeTempDir, removeDir } from './common';

export const CODE_SERVER_VERSION = process.env.CODE_SERVER_VERSION || '4.100.3';
export const CHROMIUM_PATH = process.env.AGENT_WORKFLOWS_CHROMIUM || '/usr/bin/chromium';

/** The code-server executable: $AGENT_WORKFLOWS_CODE_SERVER, or the one in .vscode-test/. */
export function codeServerPath(): string {
  const path =
    process.env.AGENT_WORKFLOWS_CODE_SERVER ||
    join(findRepoRoot(), '.vscode-test', `code-server-${CODE_SERVER_VERSION}`, 'node_modules', '.bin', 'code-server');
  if (!existsSync(path)) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} is not installed (looked for ${path}); run: bash scripts/install-test-host.sh`);
  }
  return path;
}

export interface CodeServerOptions {
  /** Leave Workspace Trust on (for tests of restricted mode); off by default. */
  workspaceTrust?: boolean;
  /** User settings, merged over the harness defaults. */
  settings?: Record<string, unknown>;
  /** Extra environment of the server; the extension host inherits it. */
  env?: Record<string, string | undefined>;
  /** An existing extensions folder (e.g. with a VSIX installed); by default a fresh empty one. */
  extensionsDir?: string;
  /** Append the server's stdout and stderr to this file. */
  logFile?: string;
  /** How long to wait for /healthz; default 60 s. */
  startTimeoutMs?: number;
  /** Aborting during start-up stops the server and rejects; once started, call stop(). */
  signal?: AbortSignal;
}

export interface CodeServer {
  /** http://127.0.0.1:PORT/ */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly userDataDir: string;
  /** vscode-remote://127.0.0.1:PORT/<absPath>: how the workbench must be given server paths. */
  remoteUri(absPath: string): string;
  /** The workbench URL opening folder, with the given development payload. */
  workbenchUrl(folder: string, payload?: [string, string][]): string;
  /** The workbench on a .code-workspace file (its folders may be URIs of any file system). */
  workspaceFileUrl(file: string): string;
  /** Kills the whole process group and removes the temporary folders. */
  stop(): Promise<void>;
}

const DEFAULT_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  // Both spawn processes from the extension host the tests measure (a spawn held it for 200-350 ms
  // on a loaded machine): the Git extension when a file opens, and port forwarding's scan of every
  // process's sockets every few seconds. No test uses either.
  'git.enabled': false,
  'remote.autoForwardPorts': false,
};

// Variables that would make code-server talk to another VS Code or change its port or password.
const INHERITED_ENV_TO_DROP = /^(VSCODE_.*|ELECTRON_RUN_AS_NODE|PORT|PASSWORD|HASHED_PASSWORD)$/;

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const executable = codeServerPath();
  // The port is free when chosen but may be taken before code-server binds it: then try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(executable, await freePort(), options);
    } catch (error) {
      if (!(error instanceof PortInUse) || attempt === 3) throw error;
    }
  }
}

class PortInUse extends Error {}

async function startOnce(executable: string, port: number, options: CodeServerOptions): Promise<CodeServer> {
  options.signal?.throwIfAborted();
  const root = makeTempDir('agent-workflows-code-server-');
  const dirs = {
    userData: join(root, 'user-data'),
    extensions: options.extensionsDir ?? join(root, 'extensions'),
    tmp: join(root, 'tmp'),
    xdgConfig: join(root, 'xdg', 'config'),
    xdgData: join(root, 'xdg', 'data'),
    xdgCache: join(root, 'xdg', 'cache'),
    xdgState: join(root, 'xdg', 'state'),
    xdgRuntime: join(root, 'xdg', 'runtime'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  mkdirSync(join(dirs.userData, 'User'));
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...options.settings }, null, 2));
  const config = join(root, 'config.yaml');
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  const args = [
    '--config',
    config,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
  ];
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) if (!INHERITED_ENV_TO_DROP.test(key)) env[key] = value;
  Object.assign(env, {
    EXTENSIONS_GALLERY: '{}',
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CACHE_HOME: dirs.xdgCache,
    XDG_STATE_HOME: dirs.xdgState,
    XDG_RUNTIME_DIR: dirs.xdgRuntime,
    // Tests in the extension host read logs and settings there (e.g. to check no key leaked).
    AGENT_WORKFLOWS_TEST_USER_DATA: dirs.userData,
    ...options.env,
  });

  const child = spawn(executable, args, { detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = signal ? `signal ${signal}` : `code ${code}`;
  });
  child.once('error', (error) => {
    exited = `error ${error.message}`;
  });
  const pid = child.pid;
  if (pid === undefined) {
    removeDir(root);
    throw new Error(`could not start ${executable}`);
  }
  // Last resort if this process ends without stop(): no code-server may outlive it.
  const killOnExit = (): void => {
    signalGroup(pid, 'SIGKILL');
  };
  process.once('exit', killOnExit);

  if (options.logFile) mkdirSync(dirname(options.logFile), { recursive: true });
  const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  const tail: string[] = [];
  const onOutput = (chunk: Buffer): void => {
    log?.write(chunk);
    tail.push(...chunk.toString().split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 40));
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      try {
        await killGroup(pid);
        process.off('exit', killOnExit);
      } finally {
        child.stdout.destroy();
        child.stderr.destroy();
        await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
        removeDir(root);
      }
    })());

  const url = `http://127.0.0.1:${port}/`;
  try {
    const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
    while (!(await healthy(url))) {
      options.signal?.throwIfAborted();
      if (exited !== undefined) {
        const output = tail.join('\n');
        if (/EADDRINUSE/.test(output)) throw new PortInUse(`port ${port} is in use`);
        throw new Error(`code-server exited (${exited}) before it was ready:\n${output}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`code-server did not answer ${url}healthz within the time limit:\n${tail.join('\n')}`);
      }
      await delay(100);
    }
    options.signal?.throwIfAborted();
  } catch (error) {
    await stop();
    throw error;
  }

  const authority = `127.0.0.1:${port}`;
  return {
    url,
    port,
    pid,
    userDataDir: dirs.userData,
    remoteUri: (absPath) => `vscode-remote://${authority}${encodeURI(absPath)}`,
    workbenchUrl(folder, payload) {
      const query = new URLSearchParams({ folder });
      if (payload) query.set('payload', JSON.stringify(payload));
      return `${url}?${query.toString()}`;
    },
    workspaceFileUrl(file) {
      return `${url}?${new URLSearchParams({ workspace: file }).toString()}`;
    },
    stop,
  };
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(`${url}healthz`, { agent: false, timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM to the process group, SIGKILL after graceMs; resolves when no process of it is left. */
async function killGroup(pid: number, graceMs = 5_000): Promise<void> {
  if (!signalGroup(pid, 'SIGTERM') || (await groupGone(pid, graceMs))) return;
  signalGroup(pid, 'SIGKILL');
  if (!(await groupGone(pid, 5_000))) throw new Error(`processes of group ${pid} survived SIGKILL`);
}

async function groupGone(pid: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (signalGroup(pid, 0)) {
    if (Date.now() > deadline) return false;
    await delay(50);
  }
  return true;
}

export interface BrowserOptions {
  headless?: boolean;
  viewport?: { width: number; height: number };
}

export interface BrowserSession {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** Debian's Chromium through playwright-core, with a throw-away profile and configuration. */
export async function launchBrowser(options: BrowserOptions = {}): Promise<BrowserSession> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}; install the Debian package 'chromium'`);
  }
  const root = makeTempDir('agent-workflows-chromium-');
  const profile = join(root, 'profile');
  const xdgConfig = join(root, 'config');
  const xdgCache = join(root, 'cache');
  for (const dir of [profile, xdgConfig, xdgCache]) mkdirSync(dir, { recursive: true });
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: options.headless ?? true,
      viewport: options.viewport ?? { width: 1280, height: 800 },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
      env: { ...process.env, XDG_CONFIG_HOME: xdgConfig, XDG_CACHE_HOME: xdgCache },
      // The runners clean up on signals themselves (playwright's handlers would exit first).
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 60_000,
    });
  } catch (error) {
    removeDir(root);
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  let closing: Promise<void> | undefined;
  return {
    context,
    page,
    close: () =>
      (closing ??= (async () => {
        try {
          await context.close();
        } finally {
          removeDir(root);
        }
      })()),
  };
}
