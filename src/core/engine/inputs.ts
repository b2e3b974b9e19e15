// The inputs of one execution, checked by the one input check (../inputs/inputValues.ts), as the
// engine takes them: files received or read from disk become FileValues, optional inputs not given
// are null.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AgentModel } from '../document/model';
import { checkInputs, InputError } from '../inputs/inputValues';
import type { NamedFile } from '../inputs/fileAccess';
import type { GivenInputs, InputHints } from '../inputs/inputValues';
import { mediaTypeOf } from '../inputs/mediaTypes';
import { FileValue } from './values';

/** A file received for a file input: where its bytes are and what the sender said about it. */
export interface GivenFile {
  /** The file name as sent (no folders). */
  readonly name: string;
  readonly size: number;
  /** Its media type as sent, e.g. "image/png". */
  readonly type: string;
  readonly path: string;
  /** False when the content contradicts the name's extension (inputs/contentType.ts). */
  readonly extensionTrusted?: boolean;
}

/** Inputs ready for an execution: every declared input, null when not given and without a default. */
export interface ResolvedInputs {
  readonly values: Readonly<Record<string, unknown>>;
}

/** How the local server's answers say to give an input: in the JSON payload or as a file part. */
const REQUEST_HINTS: InputHints = {
  value: () => 'give it in "inputs"',
  file: (name) => `send a file part named "${name}"`,
  fileNotValue: (name) => `send the file as a part named "${name}" of a multipart request (…/execute/multipart), not as a value`,
  valueNotFile: () => 'send it in the "inputs" of the payload',
};

/** The inputs of one execution; `hints` say how to give an input where they come from (default: a request). */
export function resolveInputs(
  model: AgentModel,
  given: GivenInputs<unknown, GivenFile>,
  hints: InputHints = REQUEST_HINTS,
): ResolvedInputs {
  // Input names such as "constructor" are valid: no inherited property may pass for a value.
  const values: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const input of checkInputs(model, given, hints, (file) => ({
    shown: `${file.name}, ${file.type}`,
    name: file.name,
    type: file.type,
    ...(file.extensionTrusted === false ? { extensionTrusted: false } : {}),
  }))) {
    values[input.name] = input.kind === 'value' ? input.value : input.kind === 'file' ? new FileValue(input.file) : null;
  }
  return { values: { ...values } };
}

/**
 * The files given by path for a local run (the command line, Run Locally), described as an upload
 * would describe them: name, size and a media type from the extension (or, for a file a test file
 * names, checked by inputs/fileAccess.ts, as its content tells it). Every unreadable one is named
 * in one InputError.
 */
export async function filesFromPaths(paths: Readonly<Record<string, string | NamedFile>>): Promise<Record<string, GivenFile>> {
  const files: Record<string, GivenFile> = {};
  const problems: string[] = [];
  const problemInputs: string[] = [];
  for (const [name, file] of Object.entries(paths)) {
    const path = typeof file === 'string' ? file : file.path;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) {
      problems.push(`The file for input "${name}" cannot be read: ${path}.`);
      problemInputs.push(name);
    } else
      files[name] =
        typeof file === 'string'
          ? { name: basename(path), size: info.size, type: mediaTypeOf(path), path }
          : { name: basename(file.shown), size: info.size, type: file.type, path, extensionTrusted: file.extensionTrusted };
  }
  if (problems.length) throw new InputError(problems, problemInputs);
  return files;
}
