// Where `{{ secrets.NAME }}` values come from, and the redaction that keeps them out of everything
// an execution reports (trace, errors, outputs).

/** Looks a secret up by name; undefined when it is not set. */
export type SecretResolver = (name: string) => Promise<string | undefined>;

export const SECRET_ENV_PREFIX = 'AGENT_SECRET_';

/** Secrets from the environment: `{{ secrets.NAME }}` is AGENT_SECRET_NAME (the name as written). */
export function envSecretResolver(env: Readonly<Record<string, string | undefined>> = process.env): SecretResolver {
  // Read at each lookup, so a variable set after the server started is seen by the next run.
  return async (name) => {
    const value = env[`${SECRET_ENV_PREFIX}${name}`];
    return value === undefined || value === '' ? undefined : value;
  };
}

/** How to provide a secret from the environment, for messages. */
export function envSecretHint(name: string): string {
  return `set the environment variable ${SECRET_ENV_PREFIX}${name} where the server or command runs`;
}

export const REDACTED = '[redacted]';

/**
 * Replaces secret values in text and in values. Each secret is also looked for in the forms it takes
 * once placed in a URL or a JSON string, since that is how it may come back in an error or a body.
 */
export class Redactor {
  private needles: string[] = [];

  add(secret: string): void {
    if (secret === '') return;
    const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
    for (const form of forms) if (form !== '' && !this.needles.includes(form)) this.needles.push(form);
    // Longest first, so a secret that contains another is replaced whole.
    this.needles.sort((a, b) => b.length - a.length);
  }

  get empty(): boolean {
    return this.needles.length === 0;
  }

  text(value: string): string {
    let result = value;
    for (const needle of this.needles) if (result.includes(needle)) result = result.split(needle).join(REDACTED);
    return result;
  }

  /** A plain copy of a value (files as { name, size, type }) with every string and object key redacted. */
  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === 'object') {
      const plain = typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
      if (plain !== value) return this.value(plain);
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.value(item)]));
    }
    return value;
  }
}
