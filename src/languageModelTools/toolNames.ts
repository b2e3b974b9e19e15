// The language model tools package.json contributes (contributes.languageModelTools), by job, and
// what a tool of this extension answers and asks before it runs, without VS Code's types: the
// registration (registerLanguageModelTools) and each tool's file share them.
import type { ToolConfirmation } from '../core/tools/toolConfirmations';

export const LANGUAGE_MODEL_TOOLS = {
  listAgents: 'agentWorkflows_listAgents',
  validate: 'agentWorkflows_validate',
  runAgent: 'agentWorkflows_runAgent',
  sendNode: 'agentWorkflows_sendNode',
  runTests: 'agentWorkflows_runTests',
  executionStatus: 'agentWorkflows_executionStatus',
} as const;

export type LanguageModelToolName = (typeof LANGUAGE_MODEL_TOOLS)[keyof typeof LANGUAGE_MODEL_TOOLS];

/** The tools that only read and check files: they work in Restricted Mode too. */
export const TOOLS_IN_RESTRICTED_MODE: ReadonlySet<string> = new Set([LANGUAGE_MODEL_TOOLS.listAgents, LANGUAGE_MODEL_TOOLS.validate]);

/** A tool's answer: a short text, the facts as a value (sent as JSON), and whether the call failed. */
export interface ToolAnswer {
  readonly text: string;
  readonly value?: unknown;
  readonly isError?: boolean;
}

/** What the user is asked before a call (a confirmation), and what the chat says while it runs. */
export interface ToolPreparation {
  readonly invocationMessage: string;
  readonly confirmation?: ToolConfirmation;
}

/** One tool's code, loaded on its first call (toolsFeature.ts). */
export interface AgentTool {
  prepare?(args: Readonly<Record<string, unknown>>): Promise<ToolPreparation | undefined>;
  invoke(args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<ToolAnswer>;
}
