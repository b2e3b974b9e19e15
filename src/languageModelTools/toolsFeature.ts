// The language model tools' code, a bundle of its own (esbuild.mjs lazyModules) loaded on the first
// call of any of them (registerLanguageModelTools.ts): one object per tool, each answering its own
// refusals and failures as an error result, never a crash.
import type { RunDeps } from '../runs/runDeps';
import { executionStatusTool } from './executionStatus';
import { listAgentsTool } from './listAgents';
import { runAgentTool } from './runAgent';
import { runTestsTool } from './runTests';
import { sendNodeTool } from './sendNode';
import { validateTool } from './validateFile';
import { callRedactor, failureAnswer } from './toolCalls';
import { LANGUAGE_MODEL_TOOLS } from './toolNames';
import type { AgentTool } from './toolNames';

/** A tool whose refusals (bad arguments, a blocked run) are its answer. */
function answering(tool: AgentTool): AgentTool {
  return {
    ...(tool.prepare ? { prepare: (args) => tool.prepare!(args) } : {}),
    invoke: async (args, signal) => {
      try {
        return await tool.invoke(args, signal);
      } catch (error) {
        return failureAnswer(error, callRedactor());
      }
    },
  };
}

export function createLanguageModelTools(deps: RunDeps): ReadonlyMap<string, AgentTool> {
  return new Map<string, AgentTool>([
    [LANGUAGE_MODEL_TOOLS.listAgents, answering(listAgentsTool)],
    [LANGUAGE_MODEL_TOOLS.validate, answering(validateTool)],
    [LANGUAGE_MODEL_TOOLS.runAgent, answering(runAgentTool(deps))],
    [LANGUAGE_MODEL_TOOLS.sendNode, answering(sendNodeTool(deps))],
    [LANGUAGE_MODEL_TOOLS.runTests, answering(runTestsTool)],
    [LANGUAGE_MODEL_TOOLS.executionStatus, answering(executionStatusTool(deps))],
  ]);
}
