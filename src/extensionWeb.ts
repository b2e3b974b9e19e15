// Composition root of the browser build (package.json `browser`: VS Code for the Web, vscode.dev and
// github.dev run it in a web worker, without Node). It registers what needs only the editor: the
// authoring features both roots share (src/authoringFeatures.ts) with the language worker as a Web
// Worker, and the workflow graph; the commands that need Node say why when invoked. Heavy code loads
// on first use, read from dist/web/lazy/ (src/webModules.ts).
import * as vscode from 'vscode';
import { registerAuthoringFeatures } from './authoringFeatures';
import { COMMANDS } from './commandIds';
import { registerDesktopOnlyCommands } from './commands/desktopOnly';
import { registerEnvironmentStatus } from './environments/environmentStatus';
import { WorkspaceEnvironments } from './environments/workspaceEnvironments';
import { FixableProblems } from './language/fixableProblems';
import { webWorkerThread } from './language/webWorkerThread';
import { registerCurlPaste } from './language/curlPasteProvider';
import { WorkspaceSecretNames } from './language/workspaceSecretNames';
import { registerLazyCommands } from './lazyCommands';
import { createLogger } from './logger';
import { ApiKeyStore } from './secrets/apiKeyStore';
import { WorkflowSecrets } from './secrets/workflowSecrets';
import { registerWebTestFileChecks } from './testing/webTestFileChecks';
import { installWebModules, readExtensionText } from './webModules';

/** What activate() returns in the browser: how the extension host runs it, for the browser test. */
export interface AgentWorkflowsWebApi {
  readonly host: { readonly uiKind: 'web' | 'desktop'; readonly inWebWorker: boolean; readonly hasNodeProcess: boolean };
}

export function activate(context: vscode.ExtensionContext): AgentWorkflowsWebApi {
  context.subscriptions.push(installWebModules(context.extensionUri));
  const logger = createLogger(context);
  const docsUri = vscode.Uri.joinPath(context.extensionUri, 'docs', 'agent-yaml.md');
  const workflowSecrets = new WorkflowSecrets(context.secrets, context.globalState);
  const workspaceSecretNames = new WorkspaceSecretNames(logger);
  const environments = new WorkspaceEnvironments(context.workspaceState);
  // A pasted curl command's API key is offered to secret storage, as on the desktop.
  const keys = new ApiKeyStore(context.secrets, context.globalState);
  context.subscriptions.push(workspaceSecretNames, environments, keys);

  const workerScript = vscode.Uri.joinPath(context.extensionUri, 'dist', 'web', 'validationWorker.js');
  const startWorkerThread = webWorkerThread(() => readExtensionText(workerScript));
  const fixableProblems = new FixableProblems();
  registerAuthoringFeatures(context, {
    logger,
    docsUri,
    environments,
    workflowSecrets,
    workspaceSecretNames,
    startWorkerThread,
    fixableProblems,
  });
  // The Test Explorer shows test files' problems on the desktop; here they are checked on their own.
  registerWebTestFileChecks(context, { logger, docsUri, startWorkerThread, fixableProblems });
  registerEnvironmentStatus(context, { environments, logger });
  // The graph's code (its layout, the panel) loads on the first Show Graph.
  registerLazyCommands(
    context,
    [COMMANDS.showGraph],
    () => import('./commands/showGraph'),
    (module) => module.registerShowGraph(context, { logger }),
    logger,
  );
  // cURL import (the command and Paste as API Node): its code loads on first use.
  const curlImport = {
    workflowSecrets,
    keys,
    environmentWithOrigin: (agent: vscode.Uri, origin: string) => environments.withOrigin(agent, origin),
  };
  registerLazyCommands(
    context,
    [COMMANDS.addApiNodeFromCurl],
    () => import('./commands/addApiNodeFromCurl'),
    (module) => module.registerAddApiNodeFromCurlCommand(context, { ...curlImport, logger }),
    logger,
  );
  registerCurlPaste(context, curlImport, logger);
  registerDesktopOnlyCommands(context);
  // The executions view lists runs, which are the desktop's: it says so rather than "no data provider"
  // (its id is EXECUTIONS_VIEW_ID, whose module holds the desktop's tree).
  const executions = vscode.window.createTreeView<vscode.TreeItem>('agentWorkflows.executions', {
    treeDataProvider: { getChildren: () => [], getTreeItem: (item) => item },
  });
  executions.message = 'Runs need the desktop VS Code: here you can write, check and draw agent files.';
  context.subscriptions.push(executions);
  const host = hostFacts();
  // The browser test reads this line: it says where the extension really runs.
  logger.info(
    `Agent Workflows ${String(context.extension.packageJSON.version)} activated (browser build, ${host.inWebWorker ? 'in a web worker' : 'not in a web worker'}, ${host.hasNodeProcess ? 'with' : 'without'} Node, UI ${host.uiKind}).`,
  );
  return { host };
}

/** Where the extension host runs this build, measured rather than assumed. */
function hostFacts(): AgentWorkflowsWebApi['host'] {
  const globals = globalThis as { importScripts?: unknown; process?: { versions?: { node?: unknown } } };
  return {
    uiKind: vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop',
    inWebWorker: typeof globals.importScripts === 'function',
    hasNodeProcess: typeof globals.process?.versions?.node === 'string',
  };
}

export function deactivate(): void {}
