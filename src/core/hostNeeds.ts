// What a feature needs of the host it runs in that VS Code for the Web's extension host (a web
// worker: no Node) does not give. The browser build registers each such command to say so; the
// editor words the need (src/commands/desktopOnly.ts).

/**
 * - `service`: calls the agent service (or another web address) through Node's HTTP client, with
 *   proxies, time limits and the redirect checks that keep API keys on their origin;
 * - `engine`: runs workflow nodes (Run Locally, Send Request), which call APIs through that client;
 * - `server`: starts the local agent server (an HTTP server);
 * - `disk`: reads files from the disk (data files, a folder's agent files, an OpenAPI document);
 * - `tests`: runs agent tests, which run the engine.
 */
export type HostNeed = 'service' | 'engine' | 'server' | 'disk' | 'tests';
