// What the run commands share, built once in the composition root.
import type * as vscode from 'vscode';
import type { WorkspaceEnvironments } from '../environments/workspaceEnvironments';
import type { ApiKeyStore } from '../secrets/apiKeyStore';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';
import type { NodeResultMemory } from '../core/nodeValues/nodeResultMemory';
import type { ExecutionRunner } from './executionRunner';
import type { ExecutionHistory } from './executionHistory';
import type { FileAllowances } from './fileAllowances';
import type { InputMemory } from './inputPrompts';
import type { LocalServerHost } from './localServerHost';
import type { PinStore } from './pinStore';
import type { ResultsChannel } from './resultsChannel';

export interface RunDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly keys: ApiKeyStore;
  readonly workflowSecrets: WorkflowSecrets;
  readonly store: ExecutionHistory;
  readonly results: ResultsChannel;
  readonly runner: ExecutionRunner;
  readonly inputMemory: InputMemory;
  /** Folders the user allowed named files to come from, for this workspace. */
  readonly fileAllowances: FileAllowances;
  readonly localServer: LocalServerHost;
  readonly environments: WorkspaceEnvironments;
  /** Pinned node results: Run Locally and Send Request use them instead of calling those nodes. */
  readonly pins: PinStore;
  /** The last result of each node in this window (not redacted, in memory only): Send Request's upstream values. */
  readonly nodeResults: NodeResultMemory;
}
