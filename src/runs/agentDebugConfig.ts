// What the agent debugger's registration (agentDebugger.ts, at activation) and its lazily loaded
// code (debugAdapterCode.ts) share: the debug type, F5's configuration, the services they use.
import type * as vscode from 'vscode';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';
import type { FileAllowances } from './fileAllowances';
import type { InputMemory } from './inputPrompts';

export const AGENT_DEBUG_TYPE = 'agent-workflow';

export interface AgentDebuggerDeps {
  readonly logger: vscode.LogOutputChannel;
  readonly workflowSecrets: WorkflowSecrets;
  readonly inputMemory: InputMemory;
  readonly fileAllowances: FileAllowances;
}

/** The configuration of F5 on an agent file. */
export function debugThisFile(): vscode.DebugConfiguration {
  return { type: AGENT_DEBUG_TYPE, request: 'launch', name: 'Debug Agent', program: '${file}' };
}
