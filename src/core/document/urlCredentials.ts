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

/**
 * Where the authority (user info and host) of an http(s) URL written from `from` (just past "//")
 * ends: at the first "/", "\", "?" or "#", as WHATWG URL (and so undici, which sends the request)
 * reads a special scheme's URL: a backslash is a path separator there. Every reading of a URL's
 * user info or host by hand uses this, so that validation, its quick fixes and the graph read the
 * URL the engine sends. The text should have its expressions masked.
 */
export function authorityEnd(url: string, from: number): number {
  for (let i = from; i < url.length; i++) {
    const code = url.charCodeAt(i);
    if (code === 0x2f /* / */ || code === 0x5c /* \ */ || code === 0x3f /* ? */ || code === 0x23 /* # */) return i;
  }
  return url.length;
}
