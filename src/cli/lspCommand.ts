// `agent-workflows lsp --stdio`: the language server (src/lsp/) on standard input and output, for
// editors other than VS Code (docs/editors.md). Standard output carries the protocol only: the
// server's own messages go to the client's log (window/logMessage) or to standard error.
import { createConnection } from 'vscode-languageserver/node';
import { BoundedMessageWriter, ClientFlow, CountingMessageReader, MAX_UNREAD } from '../lsp/flowControl';
import { serveLanguage } from '../lsp/languageServer';
import { CliError, ExitCode } from './io';

export interface LspFlags {
  readonly stdio?: boolean;
}

export interface LspStreams {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

/**
 * Serves the protocol until the client sends `exit` (the process then ends with 0 after a
 * `shutdown`, else 1, as the protocol asks) or closes standard input (then 1 unless shut down), or
 * leaves more of the server's messages unread than MAX_UNREAD allows (then 1, said on stderr).
 */
export async function lspCommand(flags: LspFlags, streams: LspStreams = { input: process.stdin, output: process.stdout }): Promise<number> {
  if (!flags.stdio)
    throw new CliError(
      'the language server talks over standard input and output only: start it as `agent-workflows lsp --stdio` (see docs/editors.md).',
      ExitCode.usage,
    );
  // Anything a library prints with console.log would break the protocol on stdout.
  console.log = console.info = (...args: unknown[]) => console.error(...args);
  let stopClient!: () => void;
  let pausedBefore = false;
  const flow = new ClientFlow(streams.input, {
    onPause(backlog) {
      // Said once: a client that reads slowly pauses the server often.
      if (!pausedBefore)
        console.error(
          `agent-workflows lsp: the client has ${backlog.requests} requests unanswered and has not read the last ${backlog.messages} messages (${backlog.bytes} bytes) the server sent: the server reads no more requests until half of them are gone (said once).`,
        );
      pausedBefore = true;
    },
    onOverflow(backlog) {
      console.error(
        `agent-workflows lsp: the client has not read the last ${backlog.messages} messages (${backlog.bytes} bytes) the server sent, and the server holds at most ${MAX_UNREAD.messages} messages or ${MAX_UNREAD.bytes} bytes for it: it stops rather than hold more. A client must read the server's standard output; restart the language server.`,
      );
      stopClient();
    },
  });
  const connection = createConnection(new CountingMessageReader(streams.input, flow), new BoundedMessageWriter(streams.output, flow));
  const server = serveLanguage(connection);
  const closed = new Promise<void>((resolve) => {
    stopClient = resolve;
    streams.input.once('end', resolve);
    streams.input.once('close', resolve);
  });
  connection.listen();
  await closed;
  server.dispose();
  // Left undisposed past the bound: the requests still queued are answered into the writer, which drops them.
  if (!flow.overflowed) connection.dispose();
  const code = server.shutDown() && !flow.overflowed ? ExitCode.ok : ExitCode.problems;
  // The protocol library checks every 3 s that the client's process (initialize's processId) is
  // alive, on a timer that keeps the process running: with no client on the other end of the
  // streams, the server ends now. Unref'd: when nothing else runs, the process ends by itself first.
  if (streams.input === process.stdin) setTimeout(() => process.exit(code), 50).unref();
  return code;
}
