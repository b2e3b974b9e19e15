// What every tool call of the MCP server shares: its context (folder, secrets' source, limits,
// cancellation, progress), the error a bad argument raises, and the shape of a failed call's result.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Redactor } from '../core/redaction';
import { checkNamedFiles } from '../core/inputs/fileAccess';
import type { FileRefusal, NamedFile } from '../core/inputs/fileAccess';

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

/** A call the server refuses, with why and what to do: an isError result, never a protocol error. */
export class ToolCallError extends Error {
  constructor(
    message: string,
    /** Facts for the structured value of the failure (e.g. the node it failed at). */
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'ToolCallError';
  }
}

export function errorResult(message: string, details?: Readonly<Record<string, unknown>>): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    ...(details ? { structuredContent: { error: message, ...details } } : {}),
  };
}

/** The arguments' value of a name as an object, or a ToolCallError. */
export function objectArgument(args: Readonly<Record<string, unknown>>, name: string, required = false): Record<string, unknown> {
  const value = args[name];
  if (value === undefined || value === null) {
    if (required) throw new ToolCallError(`"${name}" is missing: give it as an object.`);
    return {};
  }
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ToolCallError(`"${name}" must be an object, not ${Array.isArray(value) ? 'an array' : typeof value}.`);
  return value as Record<string, unknown>;
}

/** The arguments' value of a name as text, or a ToolCallError. */
export function textArgument(args: Readonly<Record<string, unknown>>, name: string, what: string): string;
export function textArgument(args: Readonly<Record<string, unknown>>, name: string, what: string, optional: true): string | undefined;
export function textArgument(args: Readonly<Record<string, unknown>>, name: string, what: string, optional = false): string | undefined {
  const value = args[name];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new ToolCallError(`"${name}" is missing or not text: give ${what}.`);
  return value;
}

/** Only the argument names the tool takes. */
export function knownArguments(args: Readonly<Record<string, unknown>>, names: readonly string[]): void {
  const unknown = Object.keys(args).filter((name) => !names.includes(name));
  if (unknown.length)
    throw new ToolCallError(
      `Unknown ${unknown.length === 1 ? 'argument' : 'arguments'} ${unknown.map((name) => JSON.stringify(name)).join(', ')}: this tool takes ${names.map((name) => JSON.stringify(name)).join(', ')}.`,
    );
}

/** Why a path named in a tool's arguments is not read, in words. */
export function refusalText(refusal: FileRefusal, what: string): string {
  switch (refusal.code) {
    case 'absolute-path':
    case 'outside-folder':
      return `${what} ${JSON.stringify(refusal.given)} is outside the served folder ${refusal.folder}: give a path inside it, relative to it.`;
    case 'link-outside':
      return `${what} ${JSON.stringify(refusal.given)} is a link to ${refusal.realPath ?? 'a file'} outside the served folder: only files inside it are read.`;
    case 'not-found':
      return `${what} ${JSON.stringify(refusal.given)} does not exist in the served folder.`;
    default:
      return `${what} ${JSON.stringify(refusal.given)} is not a regular file.`;
  }
}

/** A file named in the arguments, inside the served folder (inputs/fileAccess.ts), or a ToolCallError. */
export async function fileInFolder(given: string, root: string, what: string): Promise<NamedFile> {
  const checked = await checkNamedFiles({ file: given }, { folder: root });
  if (!checked.ok) throw new ToolCallError(refusalText(checked.refused[0]!.refusal, what));
  return checked.files.file!;
}
