// What both composition roots register for writing agent, test and environments files (the desktop's
// src/extension.ts and the browser's src/extensionWeb.ts): validation as you type, completion, hover,
// quick fixes, navigation and the outline, the environments file's checks, test files' completion and
// hover. Only the language worker's thread differs between the hosts: the root says which.
import type * as vscode from 'vscode';
import { registerEnvironmentsLanguage } from './environments/environmentsLanguage';
import type { WorkspaceEnvironments } from './environments/workspaceEnvironments';
import { registerDiagnostics } from './language/agentDiagnostics';
import type { AgentDiagnostics } from './language/agentDiagnostics';
import { registerCodeActionProvider } from './language/codeActionProvider';
import type { FixableProblems } from './language/fixableProblems';
import { registerCompletionProvider } from './language/completionProvider';
import { registerHoverProvider } from './language/hoverProvider';
import { registerNavigationProviders } from './language/navigationProviders';
import { registerCursorNodeContext } from './language/nodeLocations';
import type { StartThread } from './language/validationWorkerClient';
import type { WorkspaceSecretNames } from './language/workspaceSecretNames';
import type { WorkflowSecrets } from './secrets/workflowSecrets';
import { registerTestFileLanguage } from './testing/testFileLanguage';

export interface AuthoringDeps {
  readonly logger: vscode.LogOutputChannel;
  /** docs/agent-yaml.md, where each problem code's link points. */
  readonly docsUri: vscode.Uri;
  readonly environments: WorkspaceEnvironments;
  readonly workflowSecrets: WorkflowSecrets;
  readonly workspaceSecretNames: WorkspaceSecretNames;
  /** The host's language worker thread (Node's worker_threads on the desktop, a Web Worker in the browser). */
  readonly startWorkerThread: StartThread;
  /**
   * The problems of open test and environments files that suggest a name, for their quick fixes: the
   * environments file's are kept here, test files' by whoever checks them in this host (the Test
   * Explorer on the desktop, webTestFileChecks in the browser).
   */
  readonly fixableProblems: FixableProblems;
}

export function registerAuthoringFeatures(context: vscode.ExtensionContext, deps: AuthoringDeps): AgentDiagnostics {
  const { logger, docsUri, environments, workflowSecrets, workspaceSecretNames, fixableProblems } = deps;
  const diagnostics = registerDiagnostics(context, {
    logger,
    docsUri,
    startWorkerThread: deps.startWorkerThread,
    environments: (uri) => environments.checksFor(uri),
  });
  // An agent's environment overrides are checked against the names of its environments file: checked
  // again when its text changes, debounced like an edit (each keystroke in it fires).
  context.subscriptions.push(environments.onDidChangeContent(() => diagnostics.scheduleOpenDocuments()));
  registerCompletionProvider(context, { workspaceSecretNames, workflowSecrets });
  registerHoverProvider(context);
  registerCodeActionProvider(context, { workflowSecrets, logger, diagnostics, fixableProblems });
  registerNavigationProviders(context, { diagnostics, logger, environments });
  registerCursorNodeContext(context);
  // The environments file's problem codes are documented with the agent file's.
  registerEnvironmentsLanguage(context, { environments, logger, docsUri, fixableProblems });
  registerTestFileLanguage(context, { logger });
  return diagnostics;
}
