// The values expressions work with: JSON-like data, plus file inputs.

/**
 * A file given for a `file` input. In expressions it is `{ name, size, type }`
 * (`{{ inputs.doc.name }}`); where it was stored is not readable from expressions, so a workflow
 * cannot learn paths of the machine it runs on.
 */
export class FileValue {
  readonly name: string;
  readonly size: number;
  readonly type: string;
  readonly #path: string;

  constructor(info: { readonly name: string; readonly size: number; readonly type: string; readonly path: string }) {
    this.name = info.name;
    this.size = info.size;
    this.type = info.type;
    this.#path = info.path;
    Object.freeze(this);
  }

  /** Where the file's bytes are, for the engine only (a prototype getter, so not an expression field). */
  get localPath(): string {
    return this.#path;
  }

  toJSON(): { name: string; size: number; type: string } {
    return { name: this.name, size: this.size, type: this.type };
  }
}

/** A value as text inside a longer string: strings as they are, objects and lists as JSON, null as nothing. */
export function renderText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** What kind of value this is, for messages. */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'empty (null)';
  if (value instanceof FileValue) return 'a file';
  if (Array.isArray(value)) return `a list of ${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'text';
  return `a ${typeof value}`;
}
