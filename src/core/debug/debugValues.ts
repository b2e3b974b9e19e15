// The values a debug session shows, as the Debug Adapter Protocol's variables: an object or list is
// a reference expanded on demand (so a 100 MB body costs nothing until opened), a long string is
// cut and says its length, a big list is paged (indexedVariables), an object with many keys shows
// the first ones. Every string and key is redacted before it is cut. References are bounded.
import type { Redactor } from '../redaction';
import { FileValue } from '../engine/values';

export interface ShownVariable {
  readonly name: string;
  readonly value: string;
  readonly type?: string;
  readonly variablesReference: number;
  readonly indexedVariables?: number;
  readonly namedVariables?: number;
  /** The path the Debug Console evaluates to this value (`nodes.lookup.body.items[0]`). */
  readonly evaluateName?: string;
}

export const VALUE_LIMITS = {
  /** Characters of a string shown; the rest is cut and its length said. */
  stringChars: 1000,
  /** Items of a list shown at once when the client does not page. */
  pageItems: 100,
  /** Keys of an object listed. */
  objectKeys: 1000,
  /** References a session holds at most: past it, values are shown without expanding. */
  references: 100_000,
} as const;

/** What a reference expands to: a value's children, or a list the session makes (a scope). */
type Target =
  | { readonly kind: 'value'; readonly value: unknown; readonly path?: string }
  | { readonly kind: 'list'; readonly list: () => readonly ShownVariable[] };

export interface PageRequest {
  readonly filter?: 'indexed' | 'named';
  readonly start?: number;
  readonly count?: number;
}

export class VariableStore {
  private targets = new Map<number, Target>();
  private next = 1;

  constructor(private readonly maxReferences: number = VALUE_LIMITS.references) {}

  /** Forgets every reference (when the session goes on: references are valid while it is stopped). */
  clear(): void {
    this.targets = new Map();
  }

  /** A reference to a list the session makes; 0 when the store is full. */
  list(list: () => readonly ShownVariable[]): number {
    return this.add({ kind: 'list', list });
  }

  has(reference: number): boolean {
    return this.targets.has(reference);
  }

  /** The value a reference expands, when it is a value's. */
  valueOf(reference: number): { readonly value: unknown; readonly path?: string } | undefined {
    const target = this.targets.get(reference);
    return target?.kind === 'value' ? target : undefined;
  }

  /** The children of a reference; none for an unknown one (a reference from before the session went on). */
  children(reference: number, redactor: Redactor, page: PageRequest = {}): ShownVariable[] {
    const target = this.targets.get(reference);
    if (!target) return [];
    if (target.kind === 'list') return [...target.list()];
    const value = plain(target.value);
    const path = target.path;
    if (Array.isArray(value)) {
      if (page.filter === 'named') return [];
      const start = Math.max(0, Math.min(page.start ?? 0, value.length));
      const count = page.count ?? (page.start === undefined ? VALUE_LIMITS.pageItems : value.length - start);
      const end = Math.min(value.length, start + Math.max(0, count));
      const shown: ShownVariable[] = [];
      for (let index = start; index < end; index++)
        shown.push(this.show(`[${index}]`, value[index], path !== undefined ? `${path}[${index}]` : undefined, redactor));
      if (page.start === undefined && page.count === undefined && end < value.length)
        shown.push({ name: '…', value: `${value.length - end} more items`, variablesReference: 0 });
      return shown;
    }
    if (value !== null && typeof value === 'object') {
      if (page.filter === 'indexed') return [];
      const shown: ShownVariable[] = [];
      let listed = 0;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        if (listed === VALUE_LIMITS.objectKeys) {
          shown.push({ name: '…', value: `${Object.keys(value).length - listed} more keys`, variablesReference: 0 });
          break;
        }
        listed++;
        shown.push(this.show(redactor.text(key), (value as Record<string, unknown>)[key], childPath(path, key), redactor));
      }
      return shown;
    }
    return [];
  }

  /** One value as a variable: scalars as their text, objects and lists as a reference to expand. */
  show(name: string, raw: unknown, path: string | undefined, redactor: Redactor): ShownVariable {
    const value = plain(raw);
    const evaluateName = path !== undefined ? { evaluateName: path } : {};
    if (typeof value === 'string')
      return { name, value: shownString(value, redactor), type: 'string', variablesReference: 0, ...evaluateName };
    if (value === null || value === undefined) return { name, value: 'null', type: 'null', variablesReference: 0, ...evaluateName };
    if (typeof value !== 'object') return { name, value: String(value), type: typeof value, variablesReference: 0, ...evaluateName };
    if (Array.isArray(value)) {
      const reference = value.length ? this.add({ kind: 'value', value, ...(path !== undefined ? { path } : {}) }) : 0;
      return {
        name,
        value: `list (${value.length} ${value.length === 1 ? 'item' : 'items'})`,
        type: 'list',
        variablesReference: reference,
        ...(value.length > VALUE_LIMITS.pageItems && reference ? { indexedVariables: value.length } : {}),
        ...evaluateName,
      };
    }
    let keys = 0;
    for (const key in value) if (Object.hasOwn(value, key) && ++keys > VALUE_LIMITS.objectKeys) break;
    const reference = keys ? this.add({ kind: 'value', value, ...(path !== undefined ? { path } : {}) }) : 0;
    return {
      name,
      value:
        keys === 0
          ? '{}'
          : `{…} (${keys > VALUE_LIMITS.objectKeys ? `over ${VALUE_LIMITS.objectKeys}` : keys} ${keys === 1 ? 'key' : 'keys'})`,
      type: 'object',
      variablesReference: reference,
      ...evaluateName,
    };
  }

  private add(target: Target): number {
    if (this.targets.size >= this.maxReferences) return 0;
    const reference = this.next++;
    this.targets.set(reference, target);
    return reference;
  }
}

/** A file input as expressions see it ({ name, size, type }); anything else as it is. */
function plain(value: unknown): unknown {
  return value instanceof FileValue ? value.toJSON() : value;
}

/** Characters of a long string redacted before the cut (a secret cut in two would not be found). */
const REDACTION_WINDOW = 64 * 1024;

/** A string as JSON text, redacted, cut past VALUE_LIMITS.stringChars with its whole length said. */
export function shownString(value: string, redactor: Redactor): string {
  if (value.length <= VALUE_LIMITS.stringChars) return JSON.stringify(redactor.text(value));
  const start = redactor.excerpt(value.slice(0, REDACTION_WINDOW), VALUE_LIMITS.stringChars, { more: value.length > REDACTION_WINDOW });
  return `${JSON.stringify(start)} (${value.length.toLocaleString('en-US')} characters)`;
}

/** `path.key`, or `path["odd key"]` when the key is not a plain name. */
export function childPath(path: string | undefined, key: string): string | undefined {
  if (path === undefined) return undefined;
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
