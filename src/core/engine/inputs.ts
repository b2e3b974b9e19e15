// The inputs of one execution, checked against the agent's declarations: known names, types,
// allowed values, required inputs, defaults, and files (with their accepted types) for file inputs.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AgentModel, InputDeclaration } from '../document/model';
import { acceptsFile, convert, InputError } from '../service/inputValues';
import { mediaTypeOf } from '../service/multipartBody';
import { closestMatch, listWords } from '../document/suggest';
import { FileValue } from './values';

/** A file received for a file input: where its bytes are and what the sender said about it. */
export interface GivenFile {
  /** The file name as sent (no folders). */
  readonly name: string;
  readonly size: number;
  /** Its media type as sent, e.g. "image/png". */
  readonly type: string;
  readonly path: string;
}

export interface GivenInputs {
  /** Values as received (JSON): strings, numbers and booleans; strings are converted to the input's type. */
  readonly values?: Readonly<Record<string, unknown>>;
  readonly files?: Readonly<Record<string, GivenFile>>;
}

/** Inputs ready for an execution: every declared input, null when not given and without a default. */
export interface ResolvedInputs {
  readonly values: Readonly<Record<string, unknown>>;
}

export { acceptsFile, InputError };

export function resolveInputs(model: AgentModel, given: GivenInputs): ResolvedInputs {
  const problems: string[] = [];
  // Input names such as "constructor" are valid: no inherited property may pass for a value.
  const values: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const givenValues = given.values ?? {};
  const givenFiles = given.files ?? {};
  const names = [...model.inputs.keys()];
  const unknown = (name: string): string => {
    const suggestion = closestMatch(name, names);
    return `The agent has no input "${name}".${suggestion ? ` Did you mean "${suggestion}"?` : names.length ? ` Its inputs are ${listWords(names, 'and')}.` : ' It takes no inputs.'}`;
  };

  for (const [name, raw] of Object.entries(givenValues)) {
    const input = model.inputs.get(name);
    if (!input) {
      problems.push(unknown(name));
    } else if (input.type === 'file') {
      problems.push(`Input "${name}" is a file input: send the file as a part named "${name}" of a multipart request (…/execute/multipart), not as a value.`);
    } else if (raw === null || raw === undefined) {
      // Same as not giving it: the default applies.
    } else if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      problems.push(`Input "${name}" must be ${expected(input)}, not ${Array.isArray(raw) ? 'a list' : 'an object'}.`);
    } else {
      const converted = convert(input, raw);
      if (converted.ok) values[name] = converted.value;
      else problems.push(converted.problem);
    }
  }

  for (const [name, file] of Object.entries(givenFiles)) {
    const input = model.inputs.get(name);
    if (!input) problems.push(unknown(name));
    else if (input.type !== 'file') problems.push(`Input "${name}" is a ${input.type ?? 'value'} input, not a file: send it in the "inputs" of the payload.`);
    else if (input.accept && !acceptsFile(input.accept, file.name, file.type)) {
      problems.push(`The file for input "${name}" (${file.name}, ${file.type}) is not of an accepted type: ${input.accept.join(', ')}.`);
    } else values[name] = new FileValue(file);
  }

  for (const input of model.inputs.values()) {
    if (Object.hasOwn(values, input.name)) continue;
    const givenAtAll = input.type === 'file' ? Object.hasOwn(givenFiles, input.name) : Object.hasOwn(givenValues, input.name) && givenValues[input.name] !== null && givenValues[input.name] !== undefined;
    if (givenAtAll) continue; // already reported as a problem
    if (input.default !== undefined && input.type !== 'file') values[input.name] = input.default;
    else if (input.required) problems.push(`Input "${input.name}" is required: ${input.type === 'file' ? `send a file part named "${input.name}"` : `give it in "inputs"`}.${input.description ? ` (${input.description})` : ''}`);
    else values[input.name] = null;
  }
  if (problems.length) throw new InputError(problems);
  return { values: { ...values } };
}

function expected(input: InputDeclaration): string {
  return input.type === 'number' ? 'a number' : input.type === 'boolean' ? 'true or false' : 'text';
}

/**
 * The files given by path for a local run (the command line, Run Locally), described as an upload
 * would describe them: name, size and a media type from the extension. Every unreadable one is
 * named in one InputError.
 */
export async function filesFromPaths(paths: Readonly<Record<string, string>>): Promise<Record<string, GivenFile>> {
  const files: Record<string, GivenFile> = {};
  const problems: string[] = [];
  for (const [name, path] of Object.entries(paths)) {
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) problems.push(`The file for input "${name}" cannot be read: ${path}.`);
    else files[name] = { name: basename(path), size: info.size, type: mediaTypeOf(path), path };
  }
  if (problems.length) throw new InputError(problems);
  return files;
}
