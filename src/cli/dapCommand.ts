// `agent-workflows dap`: the agent debugger (core/debug/) over stdio, for editors other than VS Code
// (nvim-dap, Emacs dap-mode, …): the Debug Adapter Protocol on stdin and stdout, so nothing else is
// written to stdout. Secrets the launch configuration does not give come from AGENT_SECRET_<NAME>.
import { AgentDebugSession } from '../core/debug/agentDebugSession';
import { envSecretHint, envSecretResolver } from '../core/engine/secrets';
import { ExitCode } from './io';
import type { CliIo } from './io';

export interface DapStreams {
  readonly input: NodeJS.ReadableStream & { destroy?: () => void };
  readonly output: NodeJS.WritableStream;
}

/** Serves one debug session; resolves when the client disconnects or closes the connection. */
export function dapCommand(io: CliIo, streams: DapStreams = { input: process.stdin, output: process.stdout }): Promise<number> {
  return new Promise((resolve) => {
    const session = new AgentDebugSession({
      cwd: io.cwd,
      secrets: envSecretResolver(io.env),
      secretHint: envSecretHint,
      // Files of a launch configuration come from the folder the debugger was started in.
      allowHint: (refusal) =>
        refusal.allowFolder !== undefined ? `start "agent-workflows dap" in a folder that holds ${refusal.allowFolder}` : undefined,
      onShutdown: () => {
        // Nothing more is read: the process ends once the last answer is written.
        streams.input.destroy?.();
        resolve(ExitCode.ok);
      },
    });
    session.setRunAsServer(true);
    session.start(streams.input, streams.output);
  });
}
