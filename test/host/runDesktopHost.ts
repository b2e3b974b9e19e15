// Runs the integration suite in desktop VS Code through @vscode/test-electron, which downloads
// VS Code into .vscode-test/ (so it needs access to update.code.visualstudio.com, and a display:
// use `xvfb-run -a npm run test:desktop` on a headless Linux machine).
//
//   node out/test/host/runDesktopHost.js [--summary <file>]
//
// Environment: VSCODE_TEST_VERSION (default 1.100.3, the VS Code inside code-server 4.100.3),
// AGENT_WORKFLOWS_TEST_GREP (run only matching tests).
import { runTests } from '@vscode/test-electron';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { argValue, exitSoon, findRepoRoot, hostResult, makeTempDir, removeDir } from './common';
import { SUMMARY_ENV, readSummary, testSelectionEnv, writeSummary } from '../support/summary';

async function runDesktopHost(argv: readonly string[]): Promise<number> {
  const root = findRepoRoot();
  const summaryFile = argValue(argv, 'summary');
  const temp = makeTempDir('agent-workflows-desktop-host-');
  try {
    return await runIn(root, temp, summaryFile);
  } finally {
    removeDir(temp);
  }
}

async function runIn(root: string, temp: string, summaryFile: string | undefined): Promise<number> {
  const workspace = join(temp, 'workspace');
  cpSync(join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
  const inHostSummary = join(temp, 'summary.json');
  const userDataDir = join(temp, 'user-data');
  const extensionsDir = join(temp, 'extensions');
  mkdirSync(userDataDir);
  mkdirSync(extensionsDir);

  let exitCode: number;
  let crash: unknown;
  try {
    exitCode = await runTests({
      version: process.env.VSCODE_TEST_VERSION || '1.100.3',
      extensionDevelopmentPath: root,
      extensionTestsPath: join(root, 'out', 'test', 'integration', 'index.js'),
      extensionTestsEnv: {
        [SUMMARY_ENV]: inHostSummary,
        ...testSelectionEnv(),
        AGENT_WORKFLOWS_TEST_USER_DATA: userDataDir,
      },
      launchArgs: [workspace, '--disable-extensions', '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir],
    });
  } catch (error) {
    // runTests rejects with TestRunFailedError on a non-zero exit, or when the download fails.
    exitCode = (error as { code?: number }).code ?? 1;
    crash = error;
  }

  const result = hostResult('desktop host', readSummary(inHostSummary), exitCode, crash);

  console.log(`desktop host: ${result.passed} passed, ${result.failed} failed, ${result.pending} pending`);
  console.log(JSON.stringify(result, null, 2));
  if (summaryFile) writeSummary(summaryFile, result);
  return result.failed > 0 || (result.passed === 0 && !process.env.AGENT_WORKFLOWS_TEST_GREP) ? 1 : 0;
}

runDesktopHost(process.argv.slice(2)).then(exitSoon, (error: unknown) => {
  console.error(error);
  exitSoon(1);
});
