// The one check of the inputs given for a run against the agent's declarations: known names,
// types, allowed values, required inputs and defaults, files (of an accepted type) for file inputs.
// Every way to run uses it: a request to the agent service (prepareInputs: the command line's
// --input/--file, the extension's prompts) and the workflow engine (engine/inputs.ts: the local
// server, `run --local`, Run Locally, agent tests). Only how a message says to give an input differs.
import { extname } from 'node:path';
import type { AgentModel, InputDeclaration } from '../document/model';
import { closestMatch, listWords } from '../document/suggest';
import type { NamedFile } from './fileAccess';
import { mediaTypeOf } from './mediaTypes';

/** A value an input can have once converted to its type. */
export type InputValue = string | number | boolean;

/**
 * Inputs as given, before any check: values by input name and files for file inputs. Values are
 * as typed (text is converted to the input's type) or, from a request's JSON, anything; files are
 * paths, or (File) what the local server received.
 */
export interface GivenInputs<Value = InputValue, File = string> {
  readonly values?: Readonly<Record<string, Value>>;
  readonly files?: Readonly<Record<string, File>>;
}

/** A file for a file input, by path: a part of a multipart request, named as the input. */
export interface FilePart {
  /** The input name: the part's name. */
  readonly field: string;
  readonly path: string;
  /** Its media type as its content tells it (fileAccess.ts); by the path's extension when absent. */
  readonly type?: string;
}

/** Inputs ready for a request to the agent service. */
export interface PreparedInputs {
  readonly inputs: Readonly<Record<string, InputValue>>;
  readonly files: readonly FilePart[];
}

/**
 * How a message tells the user to give an input, as an instruction (e.g. "give --input NAME=VALUE"),
 * for where the inputs come from. The last two default to the first two followed by "instead".
 */
export interface InputHints {
  /** An input still needs a value. */
  readonly value: (name: string) => string;
  /** A file input still needs a file. */
  readonly file: (name: string) => string;
  /** A value was given for a file input. */
  readonly fileNotValue?: (name: string) => string;
  /** A file was given for an input that takes a value. */
  readonly valueNotFile?: (name: string) => string;
}

const NEUTRAL_HINTS: InputHints = { value: (name) => `give a value for "${name}"`, file: (name) => `give a file for "${name}"` };

export class InputError extends Error {
  /** The input each problem is about, by the problem's index (undefined: no one input's). */
  readonly inputs: readonly (string | undefined)[];

  constructor(
    readonly problems: readonly string[],
    inputs: readonly (string | undefined)[] = [],
  ) {
    super(problems.join('\n'));
    this.name = 'InputError';
    this.inputs = problems.map((_, index) => inputs[index]);
  }
}

/** What the messages and the accept check need to know of a given file. */
export interface FileFacts {
  /** As shown in a message: a path, or a received file's name. */
  readonly shown: string;
  readonly name: string;
  readonly type: string;
  /** False when the content contradicts the name's extension: extensions in `accept` do not match then. */
  readonly extensionTrusted?: boolean;
}

/**
 * One declared input, checked: a value (given and converted, or its default), a file, or absent
 * (optional, given nothing, no default).
 */
export type CheckedInput<File> =
  | { readonly name: string; readonly kind: 'value'; readonly value: unknown }
  | { readonly name: string; readonly kind: 'file'; readonly file: File }
  | { readonly name: string; readonly kind: 'absent' };

/**
 * Checks given inputs against the declarations in three passes (values, files, then every
 * declaration for required inputs and defaults) and throws one InputError naming every problem.
 * A value of null or undefined counts as not given. The result is in the order of the passes.
 */
export function checkInputs<File>(
  model: AgentModel,
  given: GivenInputs<unknown, File>,
  hints: InputHints,
  factsOf: (file: File) => FileFacts,
): CheckedInput<File>[] {
  const problems: string[] = [];
  const problemInputs: string[] = [];
  // Every problem is one input's: which, for callers that show it elsewhere (a data file's column).
  const report = (name: string, problem: string): void => {
    problems.push(problem);
    problemInputs.push(name);
  };
  const checked: CheckedInput<File>[] = [];
  const givenValues = given.values ?? {};
  const givenFiles = given.files ?? {};
  const declared = model.inputs;
  const names = [...declared.keys()];
  const unknown = (name: string): string => {
    const suggestion = closestMatch(name, names);
    return `The agent has no input "${name}".${suggestion ? ` Did you mean "${suggestion}"?` : names.length ? ` Its inputs are ${listWords(names, 'and')}.` : ' It takes no inputs.'}`;
  };

  for (const [name, raw] of Object.entries(givenValues)) {
    const input = declared.get(name);
    if (!input) {
      report(name, unknown(name));
    } else if (input.type === 'file') {
      report(name, `Input "${name}" is a file input: ${hints.fileNotValue?.(name) ?? `${hints.file(name)} instead of a value`}.`);
    } else if (raw === null || raw === undefined) {
      // Same as not giving it: the default applies.
    } else if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      report(name, `Input "${name}" must be ${expected(input)}, not ${Array.isArray(raw) ? 'a list' : 'an object'}.`);
    } else {
      const converted = convert(input, raw);
      if (converted.ok) checked.push({ name, kind: 'value', value: converted.value });
      else report(name, converted.problem);
    }
  }

  for (const [name, file] of Object.entries(givenFiles)) {
    const input = declared.get(name);
    if (!input) {
      report(name, unknown(name));
    } else if (input.type !== 'file') {
      report(
        name,
        `Input "${name}" is a ${input.type ?? 'value'} input, not a file: ${hints.valueNotFile?.(name) ?? `${hints.value(name)} instead`}.`,
      );
    } else {
      const facts = factsOf(file);
      if (input.accept && !acceptsFile(input.accept, facts.name, facts.type, facts.extensionTrusted ?? true)) {
        report(name, `The file for input "${name}" (${facts.shown}) is not of an accepted type: ${input.accept.join(', ')}.`);
      } else {
        checked.push({ name, kind: 'file', file });
      }
    }
  }

  for (const input of declared.values()) {
    const givenAtAll =
      input.type === 'file'
        ? Object.hasOwn(givenFiles, input.name)
        : Object.hasOwn(givenValues, input.name) && givenValues[input.name] !== null && givenValues[input.name] !== undefined;
    if (givenAtAll) continue; // used, or already reported as a problem
    if (input.default !== undefined && input.type !== 'file') checked.push({ name: input.name, kind: 'value', value: input.default });
    else if (input.required)
      report(
        input.name,
        `Input "${input.name}" is required: ${input.type === 'file' ? hints.file(input.name) : hints.value(input.name)}.${input.description ? ` (${input.description})` : ''}`,
      );
    else checked.push({ name: input.name, kind: 'absent' });
  }
  if (problems.length) throw new InputError(problems, problemInputs);
  return checked;
}

/**
 * The inputs of a request to the agent service, with file inputs given by path, or as a file a data
 * or test file may name (fileAccess.ts: its real path, typed by its content).
 */
export function prepareInputs(
  model: AgentModel,
  given: GivenInputs<InputValue, string | NamedFile>,
  hints: InputHints = NEUTRAL_HINTS,
): PreparedInputs {
  // Input names such as "constructor" are valid: no inherited property may pass for a value.
  const inputs: Record<string, InputValue> = Object.create(null) as Record<string, InputValue>;
  const files: FilePart[] = [];
  const factsOf = (file: string | NamedFile): FileFacts =>
    typeof file === 'string'
      ? { shown: file, name: file, type: mediaTypeOf(file) }
      : { shown: file.shown, name: file.shown, type: file.type, extensionTrusted: file.extensionTrusted };
  for (const input of checkInputs(model, given, hints, factsOf)) {
    if (input.kind === 'value') inputs[input.name] = input.value as InputValue;
    else if (input.kind === 'file')
      files.push(
        typeof input.file === 'string'
          ? { field: input.name, path: input.file }
          : { field: input.name, path: input.file.path, type: input.file.type },
      );
  }
  return { inputs: { ...inputs }, files };
}

function expected(input: InputDeclaration): string {
  return input.type === 'number' ? 'a number' : input.type === 'boolean' ? 'true or false' : 'text';
}

const DECIMAL_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export type Converted = { readonly ok: true; readonly value: InputValue } | { readonly ok: false; readonly problem: string };

/** Converts a given value to the input's type and checks it against the allowed values. */
export function convert(input: InputDeclaration, raw: InputValue): Converted {
  const fail = (problem: string): Converted => ({ ok: false, problem });
  let value: InputValue = raw;
  switch (input.type) {
    case 'number': {
      // Text must be a decimal JSON number: Number() alone would also read "0x10", "0b1" or "" as numbers.
      const number = typeof raw === 'number' ? raw : typeof raw === 'string' && DECIMAL_NUMBER.test(raw.trim()) ? Number(raw) : Number.NaN;
      if (!Number.isFinite(number)) return fail(`Input "${input.name}" must be a number, not ${JSON.stringify(raw)}.`);
      value = number;
      break;
    }
    case 'boolean': {
      if (typeof raw === 'boolean') value = raw;
      else if (/^(true|yes|1)$/i.test(String(raw))) value = true;
      else if (/^(false|no|0)$/i.test(String(raw))) value = false;
      else return fail(`Input "${input.name}" must be true or false, not ${JSON.stringify(raw)}.`);
      break;
    }
    default:
      value = String(raw);
  }
  if (input.enum && !input.enum.includes(value)) {
    return fail(`Input "${input.name}" must be one of ${input.enum.map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(raw)}.`);
  }
  return { ok: true, value };
}

/** Whether a file path matches an accept list of media types (image/*) and extensions (.pdf). */
export function accepts(accept: readonly string[], path: string): boolean {
  return acceptsFile(accept, path, mediaTypeOf(path));
}

/**
 * Whether a file matches an accept list: extensions (.pdf) by its name (unless its content
 * contradicts it), media types (image/png, image/*) by its type.
 */
export function acceptsFile(accept: readonly string[], name: string, type: string, extensionTrusted = true): boolean {
  const extension = extensionTrusted ? extname(name).toLowerCase() : undefined;
  const media = type.split(';')[0]!.trim().toLowerCase();
  return accept.some((entry) => {
    const lower = entry.toLowerCase();
    if (lower.startsWith('.')) return lower === extension;
    if (lower.endsWith('/*')) return media.startsWith(lower.slice(0, -1));
    return lower === media;
  });
}
