// `agent-workflows dap`: the agent debugger (core/debug/) over stdio, for editors other than VS Code
// (nvim-dap, Emacs dap-mode, …): the Debug Adapter Protocol on stdin and stdout, so nothing else is
// written to stdout. Secrets the launch configuration does not give come from AGENT_SECRET_<NAME>.
// Messages are read by dapFraming.ts, not by the library's reader (see there why): a message it
// skips is said to the client (an output event) and on stderr, and the session goes on.
import { PassThrough } from 'node:stream';
import { OutputEvent } from '@vscode/debugadapter';
import { AgentDebugSession } from '../core/debug/agentDebugSession';
import { envSecretHint, envSecretResolver } from '../core/engine/secrets';
import { errorDetail } from '../core/errors';
import { DebugMessageReader } from './dapFraming';
import { ExitCode } from './io';
import type { CliIo } from './io';

export interface DapStreams {
  readonly input: NodeJS.ReadableStream & { destroy?: () => void };
  readonly output: NodeJS.WritableStream;
}

/** Serves one debug session; resolves when the client disconnects or closes the connection. */
export function dapCommand(io: CliIo, streams: DapStreams = { input: process.stdin, output: process.stdout }): Promise<number> {
  return new Promise((resolve) => {
    // The session's own reader gets no bytes: it is told only that the input closed.
    const closed = new PassThrough();
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
    const tell = (text: string): void => {
      io.stderr(`agent-workflows dap: ${text}\n`);
      session.sendEvent(new OutputEvent(`${text}\n`, 'stderr'));
    };
    const reader = new DebugMessageReader(
      (message) => {
        try {
          session.handleMessage(message as unknown as Parameters<AgentDebugSession['handleMessage']>[0]);
        } catch (error) {
          tell(`The debugger failed on a ${String(message.type)}: ${errorDetail(error)}`);
        }
      },
      (problem) => tell(problem),
    );
    let inputEnded = false;
    const ended = (): void => {
      if (inputEnded) return;
      inputEnded = true;
      const unfinished = reader.unfinished();
      if (unfinished) io.stderr(`agent-workflows dap: ${unfinished}\n`);
      closed.destroy();
    };
    streams.input.on('data', (chunk: Buffer | string) => reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    streams.input.once('end', ended);
    streams.input.once('close', ended);
    streams.input.once('error', (error: unknown) => {
      io.stderr(`agent-workflows dap: reading standard input failed: ${errorDetail(error)}\n`);
      closed.destroy();
    });
    session.start(closed, streams.output);
  });
}
