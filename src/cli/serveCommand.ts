// `agent-workflows serve [dir]`: the local agent server for the agents of a folder, until Ctrl-C or
// SIGTERM. Prints where it listens, the key (when it made one), the agents and what happens.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ENGINE_DEFAULTS } from '../core/engine/engine';
import { envSecretHint, envSecretResolver, SECRET_ENV_PREFIX } from '../core/engine/secrets';
import type { ServedAgent } from '../core/server/agentDirectory';
import { DEFAULT_HOST, DEFAULT_PORT, startAgentServer } from '../core/server/agentServer';
import type { AgentServer, ServerEvent } from '../core/server/agentServer';
import { integer, positiveNumber } from './flagValues';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { API_KEY_ENV } from './serviceOptions';
import { isLoopbackHost } from '../core/http/hosts';
import { hostName } from '../core/server/allowedHosts';
import { MIN_REMOTE_API_KEY_LENGTH } from '../core/limits';

export interface ServeFlags {
  readonly port?: string;
  readonly host?: string;
  readonly allowHost?: readonly string[];
  readonly apiKey?: string;
  readonly concurrency?: string;
  readonly nodeTimeout?: string;
}

export async function serveCommand(dir: string | undefined, flags: ServeFlags, io: CliIo): Promise<number> {
  const directory = resolve(io.cwd, dir ?? '.');
  const info = await stat(directory).catch(() => undefined);
  if (!info?.isDirectory())
    throw new CliError(`${dir ?? '.'} is not a folder; give the folder that holds your *.agent.yaml files.`, ExitCode.usage);
  const port = integer(flags.port ?? String(DEFAULT_PORT), '--port', 0, 65535);
  const concurrency = integer(flags.concurrency ?? String(ENGINE_DEFAULTS.concurrency), '--concurrency', 1, 1000);
  const nodeTimeoutSeconds = positiveNumber(
    flags.nodeTimeout ?? String(ENGINE_DEFAULTS.nodeTimeoutMs / 1000),
    '--node-timeout',
    'a number of seconds',
  );
  const host = flags.host ?? DEFAULT_HOST;
  for (const name of flags.allowHost ?? []) {
    if (hostName(name) === undefined)
      throw new CliError(
        `--allow-host takes a host name or address, like agents.example.com or 192.168.1.5, not "${name}".`,
        ExitCode.usage,
      );
  }
  const envKey = io.env[API_KEY_ENV]?.trim();
  const apiKey = flags.apiKey ?? (envKey ? envKey : undefined);
  if (apiKey !== undefined && (apiKey === '' || /\s/.test(apiKey)))
    throw new CliError('--api-key must be one word without spaces.', ExitCode.usage);

  const log = batchedOutput(io);
  // Said before listening: a short key is the only thing between other machines and the agents.
  if (!isLoopbackHost(host) && apiKey !== undefined && apiKey.length < MIN_REMOTE_API_KEY_LENGTH) {
    log.stderr(
      `warning: the API key is ${apiKey.length} character${apiKey.length === 1 ? '' : 's'} long, short enough to guess from another machine. Use a key of at least ${MIN_REMOTE_API_KEY_LENGTH} characters, or leave out --api-key and ${API_KEY_ENV} to have one generated.\n`,
    );
  }
  let server: AgentServer;
  try {
    server = await startAgentServer({
      directory,
      host,
      port,
      ...(flags.allowHost?.length ? { allowedHosts: flags.allowHost } : {}),
      allowHostHint: 'start the server with --allow-host set to the name you use',
      ...(apiKey !== undefined ? { apiKey } : {}),
      secrets: envSecretResolver(io.env),
      secretHint: envSecretHint,
      engine: { concurrency, nodeTimeoutMs: Math.round(nodeTimeoutSeconds * 1000) },
      onEvent: (event) => report(log, event),
    });
  } catch (error) {
    throw new CliError((error as Error).message, ExitCode.usage);
  }

  const stopped = waitForStop(io);
  try {
    log.stdout(`Local agent server for ${directory}\n  listening on ${server.url}\n`);
    if (server.apiKeyGenerated) {
      log.stdout(
        `  API key (made for this session): ${server.apiKey}\n  Clients send "Authorization: Bearer <key>"; pass --api-key or set ${API_KEY_ENV} to choose the key.\n`,
      );
    } else {
      log.stdout(`  API key: from ${flags.apiKey !== undefined ? '--api-key' : API_KEY_ENV}\n`);
    }
    if (!isLoopbackHost(host)) {
      log.stderr(
        `warning: listening on ${host}, so other machines can reach this server. Every request needs the key, which travels unencrypted over http.\n`,
      );
    }
    printAgents(log, io.env, server);
    log.stdout(`Watching for changes. Press Ctrl-C to stop.\n`);
    await stopped.promise;
    log.stdout('Stopping: cancelling running executions…\n');
  } finally {
    stopped.dispose();
    await server.close();
  }
  log.stdout('Stopped.\n');
  log.flush();
  return ExitCode.ok;
}

function printAgents(io: Output, env: CliIo['env'], server: AgentServer): void {
  const agents = server.agents();
  if (agents.length === 0) {
    io.stdout('  No agent files yet; add a *.agent.yaml file to the folder and it is served at once.\n');
    return;
  }
  io.stdout('Agents (the path is the file name without .agent.yaml; the account is deployment.account or "local"):\n');
  for (const agent of agents) io.stdout(`${describeAgent(agent, server.url)}\n`);
  const missing = new Map<string, string[]>();
  for (const agent of agents) {
    for (const name of agent.loaded?.plan.secretNames ?? []) {
      if (env[`${SECRET_ENV_PREFIX}${name}`]) continue;
      missing.set(name, [...(missing.get(name) ?? []), `${agent.account}/${agent.agent}`]);
    }
  }
  if (missing.size > 0) {
    io.stdout(
      `Secrets are read from ${SECRET_ENV_PREFIX}<NAME> when an execution starts. Not set now: ${[...missing].map(([name, users]) => `${SECRET_ENV_PREFIX}${name} (${users.join(', ')})`).join(', ')}.\n`,
    );
  }
}

function describeAgent(agent: ServedAgent, url: string): string {
  if (agent.loaded)
    return `  ${agent.account}/${agent.agent}  ${agent.file}  POST ${url}/api/${encodeURIComponent(agent.account)}/agent/${encodeURIComponent(agent.agent)}/execute`;
  return `  ✗ ${agent.file} is not served: ${(agent.error ?? 'it cannot run').replace(/\n/g, '\n      ')}`;
}

/**
 * Event lines written once per turn of the event loop: under load, one line per execution would
 * otherwise be one write to the terminal or pipe each, and those are slow compared to the work.
 */
type Output = Pick<CliIo, 'stdout' | 'stderr'> & { flush(): void };

function batchedOutput(io: CliIo): Output {
  let out = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    const text = out;
    out = '';
    if (text) io.stdout(text);
  };
  return {
    stdout: (text) => {
      out += text;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    stderr: (text) => {
      flush();
      io.stderr(text);
    },
    flush,
  };
}

function report(io: Output, event: ServerEvent): void {
  switch (event.kind) {
    case 'agents-changed':
      for (const change of event.changes) {
        if (change.kind === 'removed') io.stdout(`removed ${change.agent.account}/${change.agent.agent} (${change.agent.file})\n`);
        else if (change.agent.loaded)
          io.stdout(
            `${change.kind === 'added' ? 'added' : 'reloaded'} ${change.agent.account}/${change.agent.agent} (${change.agent.file})\n`,
          );
        else io.stdout(`${describeAgent(change.agent, '').trimStart()}\n`);
      }
      return;
    case 'execution-ended': {
      const { execution } = event;
      const took = execution.durationMs !== undefined ? ` in ${Math.round(execution.durationMs)} ms` : '';
      io.stdout(
        `execution ${execution.executionId} ${execution.account}/${execution.agent} ${execution.status}${took}${execution.error ? `: ${execution.error}` : ''}\n`,
      );
      return;
    }
    case 'warning':
      io.stderr(`warning: ${event.message}\n`);
      return;
  }
}

/** Resolves on Ctrl-C (the command line's interrupt signal) or SIGTERM. */
function waitForStop(io: CliIo): { promise: Promise<void>; dispose: () => void } {
  let dispose = (): void => undefined;
  const promise = new Promise<void>((done) => {
    const onStop = (): void => done();
    if (io.interrupt?.aborted) done();
    io.interrupt?.addEventListener('abort', onStop, { once: true });
    process.once('SIGTERM', onStop);
    dispose = () => {
      io.interrupt?.removeEventListener('abort', onStop);
      process.off('SIGTERM', onStop);
    };
  });
  return { promise, dispose };
}
