// Registers this extension's language model tools (contributes.languageModelTools) at activation:
// cheap objects whose first call loads the tools' code (toolsFeature.ts, a lazy bundle). Copilot's
// agent mode calls them, and chat references them with "#". In Restricted Mode only the tools that
// read and check files answer; the others say the workspace must be trusted and run nothing.
import * as vscode from 'vscode';
import { errorDetail, errorMessage } from '../core/errors';
import { loadOnce } from '../core/loadOnce';
import type { RunDeps } from '../runs/runDeps';
import { LANGUAGE_MODEL_TOOLS, TOOLS_IN_RESTRICTED_MODE } from './toolNames';
import type { AgentTool, ToolAnswer, ToolPreparation } from './toolNames';

export interface LanguageModelToolsDeps {
  readonly logger: vscode.LogOutputChannel;
  /** What runs share, made when the commands' code loads. */
  readonly runDeps: () => Promise<RunDeps>;
}

/** The tools as the integration tests reach them: the words a call is confirmed with. */
export interface LanguageModelToolsApi {
  prepare(name: string, input: Readonly<Record<string, unknown>>): Promise<ToolPreparation | undefined>;
}

type ToolInput = Record<string, unknown>;

/** Why a tool does not run in Restricted Mode. */
export function untrustedAnswer(name: string): ToolAnswer {
  return {
    text: `${name} runs nothing in Restricted Mode: an agent file of an untrusted workspace could send your keys and secrets anywhere. Trust the workspace (Manage Workspace Trust) first; validating and listing agents work without it.`,
    isError: true,
  };
}

function toolResult(answer: ToolAnswer): vscode.LanguageModelToolResult {
  const parts = [new vscode.LanguageModelTextPart(answer.isError ? `Error: ${answer.text}` : answer.text)];
  if (answer.value !== undefined) parts.push(new vscode.LanguageModelTextPart(JSON.stringify(answer.value)));
  return new vscode.LanguageModelToolResult(parts);
}

function inputObject(input: unknown): ToolInput {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as ToolInput) : {};
}

export function registerLanguageModelTools(context: vscode.ExtensionContext, deps: LanguageModelToolsDeps): LanguageModelToolsApi {
  const tools = loadOnce(async (): Promise<ReadonlyMap<string, AgentTool>> => {
    const [feature, runDeps] = await Promise.all([import('./toolsFeature'), deps.runDeps()]);
    return feature.createLanguageModelTools(runDeps);
  });
  const prepare = async (name: string, input: ToolInput): Promise<ToolPreparation | undefined> => {
    if (!TOOLS_IN_RESTRICTED_MODE.has(name) && !vscode.workspace.isTrusted) return undefined;
    return (await tools()).get(name)?.prepare?.(input);
  };
  // An older host without the API (the extension still works; its tools are absent).
  if (typeof vscode.lm?.registerTool !== 'function') return { prepare };
  for (const name of Object.values(LANGUAGE_MODEL_TOOLS)) {
    const tool: vscode.LanguageModelTool<ToolInput> = {
      prepareInvocation: async (options) => {
        try {
          const prepared = await prepare(name, inputObject(options.input));
          if (!prepared) return undefined;
          return {
            invocationMessage: prepared.invocationMessage,
            ...(prepared.confirmation
              ? {
                  confirmationMessages: {
                    title: prepared.confirmation.title,
                    message: new vscode.MarkdownString().appendText(prepared.confirmation.message),
                  },
                }
              : {}),
          };
        } catch (error) {
          // A call that cannot be prepared is still confirmed: its invoke says what is wrong.
          deps.logger.warn(`Preparing ${name} failed: ${errorMessage(error)}`);
          return { confirmationMessages: { title: 'Run this Agent Workflows tool?', message: `${name}: ${errorMessage(error)}` } };
        }
      },
      invoke: async (options, token) => {
        if (!TOOLS_IN_RESTRICTED_MODE.has(name) && !vscode.workspace.isTrusted) return toolResult(untrustedAnswer(name));
        const controller = new AbortController();
        const cancel = token.onCancellationRequested(() => controller.abort());
        try {
          const implementation = (await tools()).get(name);
          if (!implementation) return toolResult({ text: `Unknown tool ${name}.`, isError: true });
          return toolResult(await implementation.invoke(inputObject(options.input), controller.signal));
        } catch (error) {
          // Each tool answers its own errors (redacted); this is what escaped it, kept to the message.
          deps.logger.error(`${name} failed: ${errorDetail(error)}`);
          return toolResult({ text: `${name} failed: ${errorMessage(error)}`, isError: true });
        } finally {
          cancel.dispose();
        }
      },
    };
    context.subscriptions.push(vscode.lm.registerTool(name, tool));
  }
  return { prepare };
}
