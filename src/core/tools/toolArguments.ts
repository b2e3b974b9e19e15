// A tool call's arguments as an assistant gives them, without any protocol: the error a bad argument
// raises (an error result, never a crash), arguments read by kind, and files named in them kept
// inside the folder the tools serve (inputs/fileAccess.ts). The MCP server and VS Code's language
// model tools share them; `folder` words which folder that is.
import { checkNamedFiles } from '../inputs/fileAccess';
import type { FileRefusal, NamedFile } from '../inputs/fileAccess';
import type { NodeResult } from '../engine/evaluate';
import type { AgentModel } from '../document/model';

/** A call refused, with why and what to do: an error result, never a protocol error or a crash. */
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
export function refusalText(refusal: FileRefusal, what: string, folder = 'the served folder'): string {
  switch (refusal.code) {
    case 'absolute-path':
    case 'outside-folder':
      return `${what} ${JSON.stringify(refusal.given)} is outside ${folder} ${refusal.folder}: give a path inside it, relative to it.`;
    case 'link-outside':
      return `${what} ${JSON.stringify(refusal.given)} is a link to ${refusal.realPath ?? 'a file'} outside ${folder}: only files inside it are read.`;
    case 'not-found':
      return `${what} ${JSON.stringify(refusal.given)} does not exist in ${folder}.`;
    default:
      return `${what} ${JSON.stringify(refusal.given)} is not a regular file.`;
  }
}

/** A file named in the arguments, inside the tools' folder (inputs/fileAccess.ts), or a ToolCallError. */
export async function fileInFolder(given: string, root: string, what: string, folder?: string): Promise<NamedFile> {
  const checked = await checkNamedFiles({ file: given }, { folder: root });
  if (!checked.ok) throw new ToolCallError(refusalText(checked.refused[0]!.refusal, what, folder));
  return checked.files.file!;
}

/** An upstream node's result as given: {body, status?, headers?}, or any value as its body. */
export function nodeResultArgument(value: unknown): NodeResult {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, 'body')) {
    const { body, status, headers } = value as { body: unknown; status?: unknown; headers?: unknown };
    return {
      body,
      status: typeof status === 'number' ? status : 200,
      headers:
        headers !== null && typeof headers === 'object'
          ? Object.fromEntries(Object.entries(headers).map(([name, item]) => [name.toLowerCase(), String(item)]))
          : {},
    } as NodeResult;
  }
  return { body: value, status: 200, headers: {} } as NodeResult;
}

/**
 * A tool call's inputs as values and, for file inputs, files found by `fileOf` (inside the folder
 * the caller serves, whose name `folder` gives its messages): what resolveInputs then checks.
 */
export async function splitToolInputs(
  model: AgentModel,
  given: Readonly<Record<string, unknown>>,
  fileOf: (path: string, what: string) => Promise<NamedFile>,
  folder: string,
): Promise<{ values: Record<string, unknown>; files: Record<string, NamedFile> }> {
  const values: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const files: Record<string, NamedFile> = Object.create(null) as Record<string, NamedFile>;
  for (const [name, value] of Object.entries(given)) {
    const declaration = model.inputs.get(name);
    if (declaration?.type !== 'file') {
      if (value !== null && typeof value === 'object')
        throw new ToolCallError(
          `Input "${name}" must be ${declaration?.type === 'number' ? 'a number' : declaration?.type === 'boolean' ? 'true or false' : 'text'}, not ${Array.isArray(value) ? 'an array' : 'an object'}.`,
        );
      values[name] = value;
    } else {
      if (typeof value !== 'string')
        throw new ToolCallError(`Input "${name}" is a file: give the path of a file inside ${folder}, as text.`);
      files[name] = await fileOf(value, `The file of input "${name}"`);
    }
  }
  return { values, files };
}
