// What an assistant's call is confirmed with before it runs, without any protocol: the agent file,
// and where requests go (a local run: the hosts its API nodes call; a deployed one: the service's
// origin, account and environment). VS Code's language model tools show these as their
// confirmation messages; the words name facts only, never an input's or a secret's value.
import type { AgentModel } from '../document/model';
import { urlHost } from '../graph/workflowGraph';
import { fileText } from './agentTools';

/** A confirmation: a short title and the message under it (Markdown-free text). */
export interface ToolConfirmation {
  readonly title: string;
  readonly message: string;
}

/** Where a run's requests go. */
export type RunDestination =
  | { readonly kind: 'local'; readonly hosts: readonly string[] }
  | {
      readonly kind: 'deployed';
      readonly origin: string;
      readonly account: string;
      readonly environment?: string;
      readonly protected?: boolean;
    };

/** The most hosts a confirmation names; the others are counted. */
const MAX_HOSTS_SHOWN = 8;

/** The hosts an agent's API nodes call, as written (a host that is an expression shows as one). */
export function calledHosts(model: Pick<AgentModel, 'nodes'>): string[] {
  const hosts = new Set<string>();
  for (const node of model.nodes.values()) {
    const host = node.url ? urlHost(node.url.value) : undefined;
    if (host !== undefined) hosts.add(fileText(host, 120));
  }
  return [...hosts].sort();
}

function hostsText(hosts: readonly string[]): string {
  if (hosts.length === 0) return 'no external host (the agent has no API node with a fixed URL)';
  const shown = hosts.slice(0, MAX_HOSTS_SHOWN).join(', ');
  return hosts.length > MAX_HOSTS_SHOWN ? `${shown} and ${hosts.length - MAX_HOSTS_SHOWN} more` : shown;
}

function destinationText(destination: RunDestination): string {
  if (destination.kind === 'local') return `on this machine; its API nodes call ${hostsText(destination.hosts)}`;
  return `on ${destination.origin}, account ${destination.account}${destination.environment !== undefined ? `, environment "${destination.environment}"${destination.protected ? ' (protected)' : ''}` : ''}`;
}

/** Running an agent file with the given inputs' names. */
export function runConfirmation(agentPath: string, inputNames: readonly string[], destination: RunDestination): ToolConfirmation {
  const file = JSON.stringify(fileText(agentPath, 200));
  const inputs = inputNames.length ? `the inputs ${inputNames.map((name) => JSON.stringify(fileText(name, 80))).join(', ')}` : 'no inputs';
  const secrets =
    destination.kind === 'local'
      ? " Its secrets come from VS Code's secret storage."
      : " The API key of that service comes from VS Code's secret storage.";
  return {
    title: destination.kind === 'local' ? 'Run the agent on this machine?' : `Run the agent on ${destination.origin}?`,
    message: `Runs ${file} with ${inputs} ${destinationText(destination)}.${secrets}`,
  };
}

/** Sending one API node's request. */
export function sendConfirmation(agentPath: string, node: string, method: string | undefined, host: string | undefined): ToolConfirmation {
  return {
    title: "Send the API node's request?",
    message: `Sends the request of node ${JSON.stringify(fileText(node, 80))} of ${JSON.stringify(fileText(agentPath, 200))}${method ? ` (${fileText(method, 16)})` : ''} to ${host !== undefined ? fileText(host, 120) : 'the URL the node builds'}, with the secrets it uses from VS Code's secret storage.`,
  };
}

/** Running an agent test file's cases on this machine (API nodes answered by mocks). */
export function testsConfirmation(testPath: string, grep: string | undefined): ToolConfirmation {
  return {
    title: 'Run the agent tests?',
    message: `Runs the cases of ${JSON.stringify(fileText(testPath, 200))}${grep !== undefined ? ` whose name contains ${JSON.stringify(fileText(grep, 80))}` : ''} on this machine; API nodes are answered by the cases' mocks, and cases marked deployed: true are not run.`,
  };
}
