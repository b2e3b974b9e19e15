// The name of the environments file (docs/environments.md) and how an environment's origin is shown,
// in a module of its own so that the extension's activation code can use them without the YAML parser.
export const ENVIRONMENTS_FILE_NAME = 'agent-workflows.yaml';

/** The origin of an environment's base URL, for lists and messages (the text itself when it does not parse). */
export function displayOrigin(baseUrl: string): string {
  return URL.canParse(baseUrl) ? new URL(baseUrl).origin : baseUrl;
}
