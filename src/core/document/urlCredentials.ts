// The query parameters that carry a credential in an API node's URL: one list for the API node
// rules (validation) and the graph's auth badges.

/** Query parameters that carry an API key. */
export const API_KEY_PARAMETERS: ReadonlySet<string> = new Set(['api_key', 'apikey', 'api-key']);

/** Other query parameters that carry a credential, with the suffix of the secret name to suggest. */
export const CREDENTIAL_PARAMETERS: ReadonlyMap<string, string> = new Map([
  ['access_token', 'TOKEN'],
  // GitLab's personal access token as a query parameter.
  ['private_token', 'TOKEN'],
  ['token', 'TOKEN'],
  ['key', 'API_KEY'],
  // OpenWeatherMap's API key.
  ['appid', 'API_KEY'],
]);

/** Whether a query parameter's name (any case) carries a credential. */
export function isCredentialParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return API_KEY_PARAMETERS.has(lower) || CREDENTIAL_PARAMETERS.has(lower);
}
