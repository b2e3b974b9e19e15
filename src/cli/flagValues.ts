// The values of command line flags that are not plain text, in one place for every command: whole
// numbers in a range, numbers greater than 0 and NAME=VALUE pairs. A bad value is a usage error
// that names the flag, says what it takes and repeats what was given.
import type { InputHints } from '../core/inputs/inputValues';
import { CliError, ExitCode } from './io';

/** How an input problem says to give an input on the command line (run, run --local, send): the flags. */
export const INPUT_FLAG_HINTS: InputHints = {
  value: (name) => `give --input ${name}=VALUE`,
  file: (name) => `give --file ${name}=PATH`,
};

/** A whole number from min to max, written as digits only (no sign, exponent or hexadecimal). */
export function integer(value: string, flag: string, min: number, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number < min || number > max)
    throw new CliError(`${flag} takes a whole number from ${min} to ${max}, not "${value}".`, ExitCode.usage);
  return number;
}

/** A finite number greater than 0; `what` says what it counts ("a number of seconds"). */
export function positiveNumber(value: string, flag: string, what = 'a number'): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0)
    throw new CliError(`${flag} takes ${what} greater than 0, not "${value}".`, ExitCode.usage);
  return number;
}

/**
 * Repeated NAME=VALUE arguments (`form` is how the help writes them, e.g. "NAME=PATH"). A missing
 * name or "=", a name given twice or, when `valueRequired`, an empty value is a usage error. A Map:
 * names such as "constructor" or "__proto__" are names like any other.
 */
export function pairs(values: readonly string[], flag: string, form: string, valueRequired = false): Map<string, string> {
  const result = new Map<string, string>();
  for (const value of values) {
    const equals = value.indexOf('=');
    if (equals <= 0 || (valueRequired && equals === value.length - 1))
      throw new CliError(`${flag} takes ${form}, not "${value}".`, ExitCode.usage);
    const name = value.slice(0, equals);
    if (result.has(name)) throw new CliError(`${flag} ${name} is given twice.`, ExitCode.usage);
    result.set(name, value.slice(equals + 1));
  }
  return result;
}
