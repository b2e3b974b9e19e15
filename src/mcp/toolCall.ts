// What every tool call of the MCP server shares: its context (folder, secrets' source, limits,
// cancellation, progress), the error a bad argument raises, and the shape of a failed call's result.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Redactor } from '../core/redaction';

export interface CallContext {
  readonly root: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly allowedEnvironments: readonly string[];
  /** Aborted when the client cancels the call or its time limit runs out. */
  readonly signal: AbortSignal;
  readonly cancelled: () => boolean;
  readonly timedOut: () => boolean;
  readonly callTimeoutMs: number;
  /** Holds every secret and the key: what leaves the server goes through it. */
  readonly redactor: Redactor;
  /** A progress notification, when the client asked for them (a count goes up by itself). */
  readonly progress: (message: string, progress?: number, total?: number) => void;
  readonly log: (level: 'info' | 'warning', message: string) => void;
}

export function errorResult(message: string, details?: Readonly<Record<string, unknown>>): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    ...(details ? { structuredContent: { error: message, ...details } } : {}),
  };
}

export { fileInFolder, knownArguments, objectArgument, refusalText, textArgument, ToolCallError } from '../core/tools/toolArguments';
