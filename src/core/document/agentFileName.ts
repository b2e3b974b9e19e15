// Which files are agent files, by name: without the directory walk of agentFiles.ts (Node's file
// system), so that the browser build's test file checks can ask too.

/** An agent file's name: *.agent.yaml or *.agent.yml, in lower case as the docs write it. */
export const AGENT_FILE = /\.agent\.ya?ml$/;

/**
 * The same, in any case, for the editor: VS Code associates the agent language with a file whose
 * name differs only in case on case-insensitive file systems (Windows, macOS), so a command on
 * the active editor accepts Tickets.Agent.YAML too. The command line and the server use AGENT_FILE.
 */
export const AGENT_FILE_ANY_CASE = new RegExp(AGENT_FILE.source, 'i');
