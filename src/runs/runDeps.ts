// What the run commands share, built once in the composition root.
import type * as vscode from 'vscode';
import type { WorkspaceEnvironments } from '../environments/workspaceEnvironments';
import type { ApiKeyStore } from '../secrets/apiKeyStore';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';
import type { ExecutionRunner } from './executionRunner';
import type { ExecutionHistory } from './executionHistory';
import type { InputMemory } from './inputPrompts';
import type { LocalServerHost } from './localServerHost';
import type { ResultsChannel } from './resultsChannel';

export interface RunDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly keys: ApiKeyStore;
  readonly workflowSecrets: WorkflowSecrets;
  readonly store: ExecutionHistory;
  readonly results: ResultsChannel;
  readonly runner: ExecutionRunner;
  readonly inputMemory: InputMemory;
  readonly localServer: LocalServerHost;
  readonly environments: WorkspaceEnvironments;
}
