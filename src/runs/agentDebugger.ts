// The agent debugger in VS Code (debug type `agent-workflow`): the adapter runs inline, in the
// extension host, and loads with its own bundle on the first debug session (debugAdapterCode.ts);
// F5 on an agent file works without a launch.json, asking for the inputs and secrets as Run
// Locally does. Only the registrations are made at activation.
import * as vscode from 'vscode';
import { AGENT_DEBUG_TYPE, debugThisFile } from './agentDebugConfig';
import type { AgentDebuggerDeps } from './agentDebugConfig';

export function registerAgentDebugger(context: vscode.ExtensionContext, deps: AgentDebuggerDeps): void {
  const code = () => import('./debugAdapterCode');
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(AGENT_DEBUG_TYPE, {
      createDebugAdapterDescriptor: async (session) => (await code()).inlineAdapter(session, deps),
    }),
    vscode.debug.registerDebugConfigurationProvider(AGENT_DEBUG_TYPE, {
      resolveDebugConfiguration: async (folder, configuration) => (await code()).completeConfiguration(folder, configuration),
      resolveDebugConfigurationWithSubstitutedVariables: async (folder, configuration) =>
        (await code()).askForWhatIsMissing(folder, configuration, deps),
    }),
    vscode.debug.registerDebugConfigurationProvider(
      AGENT_DEBUG_TYPE,
      { provideDebugConfigurations: () => [debugThisFile()] },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
  );
}
