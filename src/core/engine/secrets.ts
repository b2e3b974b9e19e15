// Where `{{ secrets.NAME }}` values come from. Keeping them out of what an execution reports is
// core/redaction.ts.

/** Looks a secret up by name; undefined when it is not set. */
export type SecretResolver = (name: string) => Promise<string | undefined>;

export const SECRET_ENV_PREFIX = 'AGENT_SECRET_';

/** Secrets from the environment: `{{ secrets.NAME }}` is AGENT_SECRET_NAME (the name as written). */
export function envSecretResolver(env: Readonly<Record<string, string | undefined>>): SecretResolver {
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
