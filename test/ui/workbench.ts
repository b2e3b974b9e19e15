// A person's view of VS Code for UI tests: the extension packaged as a VSIX and installed into
// code-server like a user would, a workspace copy, and Chromium showing the workbench.
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { codeServerPath, launchBrowser, startCodeServer } from '../host/codeServer';
import type { BrowserSession, CodeServer } from '../host/codeServer';
import { findRepoRoot, makeTempDir, removeDir } from '../host/common';

export interface Workbench {
  readonly page: Page;
  readonly workspace: string;
  /** The size of the packaged extension that was installed. */
  readonly vsixBytes: number;
  /** code-server's process id (also its process group's: the extension host is in that group). */
  readonly serverPid: number;
  /** code-server's user data folder (its logs are there). */
  readonly userDataDir: string;
  close(): Promise<void>;
}

const repoRoot = findRepoRoot();

/** Runs a command to completion, failing with its output when it fails. */
function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/**
 * Packages the extension (production build) into a VSIX in dir; or takes the one `npm test` packaged
 * before its test build (AGENT_WORKFLOWS_UI_VSIX): packaging builds dist/ again for production,
 * which the unit tests beside the UI stage read.
 */
export async function packageExtension(dir: string): Promise<string> {
  const vsix = join(dir, 'agent-workflows.vsix');
  const packaged = process.env.AGENT_WORKFLOWS_UI_VSIX;
  if (packaged && existsSync(packaged)) {
    copyFileSync(packaged, vsix);
    return vsix;
  }
  await run(process.execPath, [join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--out', vsix]);
  return vsix;
}

/** Installs a VSIX into an extensions folder with code-server's own command line, isolated. */
export async function installExtension(vsix: string, extensionsDir: string): Promise<void> {
  const home = makeTempDir('agent-workflows-install-');
  try {
    const config = join(home, 'config.yaml');
    writeFileSync(config, 'auth: none\n');
    const env = {
      ...process.env,
      EXTENSIONS_GALLERY: '{}',
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      TMPDIR: home,
    };
    await run(
      codeServerPath(),
      [
        '--config',
        config,
        '--user-data-dir',
        join(home, 'user-data'),
        '--extensions-dir',
        extensionsDir,
        '--install-extension',
        vsix,
        '--force',
      ],
      { env },
    );
  } finally {
    removeDir(home);
  }
}

/** Starts code-server with the packaged extension installed and opens a copy of the fixture workspace. */
export interface WorkbenchOptions {
  readonly settings?: Record<string, unknown>;
  /** Files copied into the workspace before it opens, by their name there (file watching in the test host is not relied on). */
  readonly extraFiles?: Readonly<Record<string, string>>;
  /** Folders of other extensions, packaged and installed beside this one (in this workbench only). */
  readonly otherExtensions?: readonly string[];
  /** Opens a workspace whose one folder is this URI (a virtual file system's), not the workspace copy. */
  readonly folderUri?: string;
}

/** The extension packaged and installed once for the whole UI run, shared by every workbench. */
interface InstalledExtension {
  readonly extensionsDir: string;
  readonly vsixBytes: number;
}

/**
 * The one installation of the run. Each UI test file is bundled on its own, with its own copy of
 * this module, so it is kept on the process (they all run in one mocha process), not in a variable.
 */
const shared = globalThis as typeof globalThis & { agentWorkflowsUiExtension?: Promise<InstalledExtension> };

/**
 * Packages the extension (a production build) and installs it into an extensions folder, once per
 * process: each took 15-20 s, and every describe opened a workbench of its own. The workbenches run
 * one after the other, so they can share the folder; it goes when the process ends.
 */
function installedExtension(): Promise<InstalledExtension> {
  const installing = (shared.agentWorkflowsUiExtension ??= (async () => {
    const root = makeTempDir('agent-workflows-ui-extension-');
    process.once('exit', () => removeDir(root));
    const extensionsDir = join(root, 'extensions');
    mkdirSync(extensionsDir);
    const vsix = await packageExtension(root);
    await installExtension(vsix, extensionsDir);
    return { extensionsDir, vsixBytes: statSync(vsix).size };
  })());
  // A failed attempt is not kept: the next workbench tries again (and says why if it fails too).
  installing.catch(() => {
    if (shared.agentWorkflowsUiExtension === installing) delete shared.agentWorkflowsUiExtension;
  });
  return installing;
}

export async function openWorkbench(options: WorkbenchOptions = {}): Promise<Workbench> {
  const root = makeTempDir('agent-workflows-ui-');
  let server: CodeServer | undefined;
  let browser: BrowserSession | undefined;
  const close = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    removeDir(root);
  };
  try {
    const installed = await installedExtension();
    const { vsixBytes } = installed;
    let extensionsDir = installed.extensionsDir;
    if (options.otherExtensions?.length) {
      extensionsDir = join(root, 'extensions');
      cpSync(installed.extensionsDir, extensionsDir, { recursive: true });
      for (const [index, folder] of options.otherExtensions.entries()) {
        const vsix = join(root, `other-${index}.vsix`);
        await run(
          process.execPath,
          [
            join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce'),
            'package',
            '--no-dependencies',
            '--allow-missing-repository',
            '--out',
            vsix,
          ],
          { cwd: folder },
        );
        await installExtension(vsix, extensionsDir);
      }
    }
    const workspace = join(root, 'workspace');
    cpSync(join(repoRoot, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    for (const [name, source] of Object.entries(options.extraFiles ?? {})) cpSync(source, join(workspace, name));
    server = await startCodeServer({
      extensionsDir,
      settings: {
        'workbench.colorTheme': 'Default Dark Modern',
        'editor.minimap.enabled': false,
        'window.commandCenter': false,
        ...options.settings,
      },
      logFile: join(repoRoot, 'out', 'test-results', 'ui', 'code-server.log'),
    });
    browser = await launchBrowser({ viewport: { width: 1280, height: 760 } });
    const { page } = browser;
    if (options.folderUri !== undefined) {
      const workspaceFile = join(root, 'virtual.code-workspace');
      writeFileSync(workspaceFile, JSON.stringify({ folders: [{ uri: options.folderUri }] }));
      await page.goto(server.workspaceFileUrl(workspaceFile));
    } else {
      await page.goto(server.workbenchUrl(workspace));
    }
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-viewlet .monaco-list-row').first().waitFor({ timeout: 60_000 });
    return { page, workspace, vsixBytes, serverPid: server.pid, userDataDir: server.userDataDir, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs a command from the command palette, as a person would: F1, its title, Enter. */
export async function runCommand(page: Page, title: string): Promise<void> {
  // On a busy machine the palette sometimes opens before its command list is complete and keeps
  // showing "similar commands": close it and ask again.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    const found = await row.waitFor({ timeout: 15_000 }).then(
      () => true,
      (error: unknown) => {
        if (attempt >= 3) throw error;
        return false;
      },
    );
    if (found) break;
    await page.keyboard.press('Escape');
  }
  await page.keyboard.press('Enter');
}

/** The visible text of a part of the workbench, with non-breaking spaces made plain. */
export async function textOf(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().innerText()) ?? '').replace(/\u00a0/g, ' ');
}

/** Saves a picture of the workbench when a test failed (a picture says more than a timed-out selector). */
export async function screenshotIfFailed(
  test: Pick<Mocha.Test, 'state' | 'title'> | undefined,
  workbench: Workbench | undefined,
): Promise<void> {
  if (test?.state !== 'failed' || !workbench) return;
  const dir = join(repoRoot, 'out', 'test-results', 'ui');
  mkdirSync(dir, { recursive: true });
  await workbench.page.screenshot({ path: join(dir, `${test.title.replace(/\W+/g, '-')}.png`) }).catch(() => undefined);
}

/**
 * Takes a README screenshot of the workbench: out/screenshots/NAME, and docs/images/NAME too when
 * AGENT_WORKFLOWS_UPDATE_SCREENSHOTS is set (`npm run screenshots`).
 */
export async function takeScreenshot(page: Page, name: string): Promise<void> {
  const screenshots = join(repoRoot, 'out', 'screenshots');
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, name) });
  if (process.env.AGENT_WORKFLOWS_UPDATE_SCREENSHOTS) {
    mkdirSync(join(repoRoot, 'docs', 'images'), { recursive: true });
    copyFileSync(join(screenshots, name), join(repoRoot, 'docs', 'images', name));
  }
}

/** Opens a workspace file from the explorer, as a person would, and waits for its tab. */
export async function openFile(page: Page, name: string): Promise<void> {
  if (!(await page.locator('.explorer-viewlet').isVisible())) await runCommand(page, 'View: Show Explorer');
  await page.locator('.explorer-viewlet .monaco-list-row', { hasText: name }).first().click({ timeout: 30_000 });
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 15_000 });
}

/** Types an answer into the open input box and presses Enter. */
export async function answerInput(page: Page, text: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15_000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
}

/** Clicks the item of the open quick pick that shows `label`. */
export async function pickItem(page: Page, label: string): Promise<void> {
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
}
