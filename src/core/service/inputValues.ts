// Checks and converts the inputs given for a run against the agent's declarations: names, types,
// allowed values, required inputs and defaults, files for file inputs. Shared by the command line
// (--input/--file) and the extension's prompts.
import { extname } from 'node:path';
import type { AgentModel, InputDeclaration } from '../document/model';
import { closestMatch, listWords } from '../document/suggest';
import type { InputValues } from './agentClient';
import { mediaTypeOf } from './multipartBody';
import type { FilePart } from './multipartBody';

export interface GivenInputs {
  /** Values as typed (strings are converted to the input's type) or already typed. */
  readonly values?: Readonly<Record<string, string | number | boolean>>;
  /** File paths for file inputs. */
  readonly files?: Readonly<Record<string, string>>;
}

export interface PreparedInputs {
  readonly inputs: InputValues;
  readonly files: readonly FilePart[];
}

/** How to tell the user to give a value or a file (e.g. "--input NAME=VALUE"). */
export interface InputHints {
  readonly value: (name: string) => string;
  readonly file: (name: string) => string;
}

const NEUTRAL_HINTS: InputHints = { value: (name) => `a value for "${name}"`, file: (name) => `a file for "${name}"` };

export class InputError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'InputError';
  }
}

export function prepareInputs(model: AgentModel, given: GivenInputs, hints: InputHints = NEUTRAL_HINTS): PreparedInputs {
  const problems: string[] = [];
  const inputs: Record<string, string | number | boolean> = {};
  const files: FilePart[] = [];
  const declared = model.inputs;
  const names = [...declared.keys()];
  const unknown = (name: string): string => {
    const suggestion = closestMatch(name, names);
    return `The agent has no input "${name}".${suggestion ? ` Did you mean "${suggestion}"?` : names.length ? ` Its inputs are ${listWords(names, 'and')}.` : ' It takes no inputs.'}`;
  };

  for (const [name, raw] of Object.entries(given.values ?? {})) {
    const input = declared.get(name);
    if (!input) {
      problems.push(unknown(name));
      continue;
    }
    if (input.type === 'file') {
      problems.push(`Input "${name}" is a file input: give ${hints.file(name)} instead of a value.`);
      continue;
    }
    const converted = convert(input, raw);
    if (converted.ok) inputs[name] = converted.value;
    else problems.push(converted.problem);
  }

  for (const [name, path] of Object.entries(given.files ?? {})) {
    const input = declared.get(name);
    if (!input) {
      problems.push(unknown(name));
      continue;
    }
    if (input.type !== 'file') {
      problems.push(`Input "${name}" is a ${input.type ?? 'value'} input, not a file: give ${hints.value(name)} instead.`);
      continue;
    }
    if (input.accept && !accepts(input.accept, path)) {
      problems.push(`The file for input "${name}" (${path}) is not of an accepted type: ${input.accept.join(', ')}.`);
      continue;
    }
    files.push({ field: name, path });
  }

  for (const input of declared.values()) {
    const provided = input.type === 'file' ? given.files?.[input.name] !== undefined : given.values?.[input.name] !== undefined;
    if (provided) continue;
    if (input.default !== undefined && input.type !== 'file') {
      inputs[input.name] = input.default as string | number | boolean;
    } else if (input.required) {
      problems.push(`Input "${input.name}" is required: give ${input.type === 'file' ? hints.file(input.name) : hints.value(input.name)}.${input.description ? ` (${input.description})` : ''}`);
    }
  }
  if (problems.length) throw new InputError(problems);
  return { inputs, files };
}

const DECIMAL_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export type Converted = { readonly ok: true; readonly value: string | number | boolean } | { readonly ok: false; readonly problem: string };

/** Converts a given value to the input's type and checks it against the allowed values. */
export function convert(input: InputDeclaration, raw: string | number | boolean): Converted {
  const fail = (problem: string): Converted => ({ ok: false, problem });
  let value: string | number | boolean = raw;
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

/** Whether a file matches an accept list: extensions (.pdf) by its name, media types (image/png, image/*) by its type. */
export function acceptsFile(accept: readonly string[], name: string, type: string): boolean {
  const extension = extname(name).toLowerCase();
  const media = type.split(';')[0]!.trim().toLowerCase();
  return accept.some((entry) => {
    const lower = entry.toLowerCase();
    if (lower.startsWith('.')) return lower === extension;
    if (lower.endsWith('/*')) return media.startsWith(lower.slice(0, -1));
    return lower === media;
  });
}
