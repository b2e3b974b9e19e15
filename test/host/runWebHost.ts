// Runs the integration suite (out/test/integration/index.js) in a real VS Code extension host:
// code-server serves the workbench, headless Chromium opens it with the extension development
// payload, and the workbench reports the suite's console output and exit code back to us.
//
//   node out/test/host/runWebHost.js [--suite integration|restricted] [--summary <file>]
//
// Expects `node esbuild.mjs --tests` to have built dist/ and out/. Writes to out/test-results/web-host/:
// code-server.log, host.log (everything the workbench logged, including the extension host's
// console), workbench-logs/, server-logs/ and, on a time-out, timeout.png.
// Environment: AGENT_WORKFLOWS_TEST_TIMEOUT (seconds, default 480), AGENT_WORKFLOWS_TEST_GREP (run
// only the matching tests). Exit code 0 only when tests ran and all passed.
import { cpSync, createWriteStream, existsSync, mkdirSync, writeFileSync, type WriteStream } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { format } from 'node:util';
import { CODE_SERVER_VERSION, launchBrowser, startCodeServer, type BrowserSession } from './codeServer';
import {
  Cleanup,
  abortOnSignals,
  argValue,
  exitSoon,
  findRepoRoot,
  hostResult,
  interruptedExitCode,
  makeTempDir,
  removeDir,
  secondsFromEnv,
} from './common';
import { SUMMARY_ENV, testSelectionEnv, testsNarrowed, addFailure, emptySummary, readSummary, writeSummary } from '../support/summary';

class TimedOut extends Error {}

interface LogFile {
  relativePath: string;
  contents: string;
}

// Workbench chatter that says nothing about the tests: kept in host.log, not printed.
const NOISE =
  /^(Ignoring fetching additional builtin extensions|Creating a socket|Resolv(ing|ed) connection token|\[Service Worker\]|ChatSessionStore:|Updating additional builtin extensions cache)/;

async function runWebHost(argv: readonly string[]): Promise<number> {
  const started = Date.now();
  const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const say = (message: string): void => console.log(`web host: ${message}`);

  const root = findRepoRoot();
  const summaryFile = argValue(argv, 'summary');
  const limitSeconds = secondsFromEnv('AGENT_WORKFLOWS_TEST_TIMEOUT', 480);
  // "integration" (a trusted workspace), or "restricted" (Workspace Trust on, the folder not trusted).
  const suiteName = argValue(argv, 'suite') ?? 'integration';
  if (suiteName !== 'integration' && suiteName !== 'restricted')
    throw new Error(`--suite must be integration or restricted, not ${suiteName}`);
  const restricted = suiteName === 'restricted';
  const testsIndex = join(root, 'out', 'test', suiteName, 'index.js');
  const results = join(root, 'out', 'test-results', restricted ? 'web-host-restricted' : 'web-host');
  removeDir(results);
  mkdirSync(results, { recursive: true });

  const abort = new AbortController();
  const removeSignalHandlers = abortOnSignals(abort);
  const timer = setTimeout(
    () => abort.abort(new TimedOut(`timed out after ${limitSeconds} s (AGENT_WORKFLOWS_TEST_TIMEOUT)`)),
    limitSeconds * 1000,
  );
  const cleanup = new Cleanup();
  const hostLog = createWriteStream(join(results, 'host.log'));
  cleanup.add('host log', () => new Promise((resolve) => hostLog.end(resolve)));
  let browser: BrowserSession | undefined;
  let result = emptySummary();

  try {
    for (const built of [testsIndex, join(root, 'dist', 'extension.js')]) {
      if (!existsSync(built)) throw new Error(`${built} is missing; build first: node esbuild.mjs --tests`);
    }
    const temp = makeTempDir('agent-workflows-web-host-');
    cleanup.add('temporary folder', () => removeDir(temp));
    const workspace = join(temp, 'workspace');
    cpSync(join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    const inHostSummary = join(temp, 'summary.json');

    const server = await startCodeServer({
      env: { [SUMMARY_ENV]: inHostSummary, ...testSelectionEnv() },
      ...(restricted
        ? {
            workspaceTrust: true,
            settings: { 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.untrustedFiles': 'open' },
          }
        : {}),
      logFile: join(results, 'code-server.log'),
      signal: abort.signal,
    });
    cleanup.add('code-server', () => server.stop());
    cleanup.add('copy of the server logs', () => {
      const logs = join(server.userDataDir, 'logs');
      if (existsSync(logs)) cpSync(logs, join(results, 'server-logs'), { recursive: true });
    });
    say(`code-server ${CODE_SERVER_VERSION} ready at ${server.url} after ${elapsed()}`);

    const session = await launchBrowser();
    browser = session;
    cleanup.add('browser', () => session.close());

    const payload: [string, string][] = [
      ['extensionDevelopmentPath', server.remoteUri(root)],
      ['extensionTestsPath', server.remoteUri(testsIndex)],
      ['enableProposedApi', ''],
      ['skipWelcome', 'true'],
    ];
    const exitCode = await runSuite(session, server.workbenchUrl(workspace, payload), {
      signal: abort.signal,
      hostLog,
      logsDir: join(results, 'workbench-logs'),
      onLoaded: () => say(`workbench loaded after ${elapsed()}; running the suite`),
    });
    result = hostResult('web host', readSummary(inHostSummary), exitCode);
  } catch (error) {
    if (error instanceof TimedOut && browser) {
      const screenshot = join(results, 'timeout.png');
      await browser.page
        .screenshot({ path: screenshot, timeout: 10_000 })
        .then(() => say(`screenshot of the workbench: ${screenshot}`))
        .catch((e: unknown) => say(`no screenshot: ${String(e)}`));
    }
    addFailure(result, 'web host', error instanceof Error ? error.message : error);
    if (!(error instanceof TimedOut) && interruptedExitCode(error) === undefined) console.error(error);
  } finally {
    clearTimeout(timer);
    await cleanup.run();
    removeSignalHandlers();
  }

  say(`${result.passed} passed, ${result.failed} failed, ${result.pending} pending; results after ${elapsed()}`);
  console.log(JSON.stringify(result, null, 2));
  if (summaryFile) writeSummary(summaryFile, result);
  say(`logs in ${results}`);
  return interruptedExitCode(abort.signal.reason) ?? (result.failed > 0 || (result.passed === 0 && !testsNarrowed()) ? 1 : 0);
}

interface SuiteOptions {
  signal: AbortSignal;
  hostLog: WriteStream;
  logsDir: string;
  onLoaded: () => void;
}

/** Opens the workbench at url and resolves with the extension host's exit code once the suite ends. */
function runSuite({ page, context }: BrowserSession, url: string, options: SuiteOptions): Promise<number> {
  const { signal, hostLog } = options;
  return new Promise<number>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.throwIfAborted();
    signal.addEventListener('abort', onAbort, { once: true });
    const settled =
      <T>(settle: (value: T) => void) =>
      (value: T): void => {
        signal.removeEventListener('abort', onAbort);
        settle(value);
      };
    const done = settled(resolve);
    const fail = settled(reject);
    page.on('crash', () => fail(new Error('the workbench page crashed')));
    context.on('close', () => fail(new Error('the browser closed before the suite finished')));
    page.on('pageerror', (error) => hostLog.write(`[page error] ${error.stack ?? error.message}\n`));

    const open = async (): Promise<void> => {
      // Both must exist before the workbench starts, and be exposed one after the other: two
      // concurrent exposeFunction calls leave one of them missing in the page (the exit one, here).
      await page.exposeFunction('codeAutomationLog', (level: string, args: unknown) => {
        const text = Array.isArray(args) ? format(...(args as unknown[])) : String(args);
        hostLog.write(`[${level}] ${text}\n`);
        if (NOISE.test(text)) return;
        for (const line of text.replace(/\n$/, '').split('\n')) console.log(`[host] ${line}`);
      });
      await page.exposeFunction('codeAutomationExit', (code: number, logs?: LogFile[]) => {
        saveLogs(options.logsDir, logs ?? []);
        done(code);
      });
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    };
    open().then(options.onLoaded, fail);
  });
}

function saveLogs(dir: string, logs: readonly LogFile[]): void {
  for (const { relativePath, contents } of logs) {
    const file = join(dir, relativePath);
    if (!file.startsWith(dir + sep)) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, contents);
  }
}

runWebHost(process.argv.slice(2)).then(exitSoon, (error: unknown) => {
  console.error(error);
  exitSoon(1);
});
