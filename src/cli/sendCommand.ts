// `agent-workflows send <file> <node-id>`: Send Request on one API node from the command line. The
// request is built and sent by the engine's own code (core/exchange/sendNode.ts) with the values
// given: --input, --file, --node for upstream results, secrets from AGENT_SECRET_<NAME>. The body
// goes to stdout (with -i the status line and headers first, like curl -i; with --json the whole
// exchange), what happened to stderr. A template node is rendered instead.
import { resolve } from 'node:path';
import { loadAgent } from '../core/engine/agentPlan';
import type { NodeResult } from '../core/engine/evaluate';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import { envSecretResolver, SECRET_ENV_PREFIX } from '../core/engine/secrets';
import { errorMessage } from '../core/errors';
import type { Exchange, RecordedBody } from '../core/exchange/exchange';
import { bodyMismatch } from '../core/exchange/recordExchange';
import { findNode, MissingValuesError, modelForNode, renderTemplateNode, sendNode, UnknownNodeError } from '../core/exchange/sendNode';
import type { SendOutcome } from '../core/exchange/sendNode';
import { formatBytes, formatDuration } from '../core/executions/executionRecord';
import { InputError } from '../core/inputs/inputValues';
import { parseJson } from '../core/json';
import { readTextFile } from '../core/document/readTextFile';
import { MAX_ANSWER_BYTES } from '../core/limits';
import { readRunnableAgentFile } from './agentFiles';
import { INPUT_FLAG_HINTS, pairs, positiveNumber } from './flagValues';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';

export interface SendFlags {
  readonly input: readonly string[];
  readonly file: readonly string[];
  readonly node: readonly string[];
  readonly json?: boolean;
  readonly include?: boolean;
  readonly timeout?: string;
  readonly env?: string;
  readonly envsFile?: string;
}

export async function sendCommand(path: string, nodeId: string, flags: SendFlags, io: CliIo): Promise<number> {
  if (flags.env !== undefined || flags.envsFile !== undefined)
    throw new CliError(
      `${flags.env !== undefined ? '--env' : '--envs-file'} does not apply to send: it calls the node's own URL from this machine, and environments only say where the agent is deployed (run, status, test --deployed, batch).`,
      ExitCode.usage,
    );
  const timeoutMs = flags.timeout === undefined ? 30_000 : positiveNumber(flags.timeout, '--timeout', 'a number of seconds') * 1000;
  const read = await readRunnableAgentFile(path, io);
  const agent = loadAgent(read.text, path);
  let node;
  try {
    node = findNode(agent, nodeId);
  } catch (error) {
    if (error instanceof UnknownNodeError)
      throw new CliError(`${path} has no node "${nodeId}". Its nodes: ${error.known.join(', ') || '(none)'}.`, ExitCode.usage);
    throw error;
  }
  const upstream = await upstreamResults(flags.node, agent.model.nodes, io.cwd);
  let inputs;
  try {
    const values = Object.fromEntries(pairs(flags.input, '--input', 'NAME=VALUE'));
    const files = Object.fromEntries([...pairs(flags.file, '--file', 'NAME=PATH')].map(([name, file]) => [name, resolve(io.cwd, file)]));
    inputs = resolveInputs(modelForNode(agent, nodeId), { values, files: await filesFromPaths(files) }, INPUT_FLAG_HINTS);
  } catch (error) {
    if (error instanceof InputError) throw new CliError(error.problems.join('\n'), ExitCode.usage);
    throw error;
  }
  const values = { inputs, nodes: upstream, secrets: envSecretResolver(io.env) };
  try {
    if (node.kind === 'template') {
      const rendered = await renderTemplateNode(agent, nodeId, values);
      if ('failure' in rendered) {
        io.stderr(`agent-workflows: ${rendered.failure.message}\n`);
        return ExitCode.problems;
      }
      io.stdout(flags.json ? `${JSON.stringify({ node: nodeId, text: rendered.text })}\n` : withNewline(rendered.text));
      return ExitCode.ok;
    }
    const outcome = await sendNode(agent, nodeId, {
      ...values,
      timeoutMs,
      ...(io.interrupt ? { signal: io.interrupt } : {}),
    });
    return printOutcome(outcome, flags, io);
  } catch (error) {
    if (error instanceof MissingValuesError) throw new CliError(missingValues(error), ExitCode.usage);
    throw error;
  }
}

/** What to give for each missing value, flag by flag. */
function missingValues(error: MissingValuesError): string {
  const lines = [`Nothing was sent: node "${error.node}" needs values that were not given.`];
  for (const name of error.secrets) lines.push(`Secret "${name}" is not set: set the environment variable ${SECRET_ENV_PREFIX}${name}.`);
  for (const name of error.nodes)
    lines.push(`It uses the result of node "${name}": give it with --node ${name}=JSON or --node ${name}=@file.json.`);
  for (const reason of error.unreadable) lines.push(reason);
  return lines.join('\n');
}

/**
 * --node ID=JSON|@file.json: an upstream node's result. `{"body": …, "status": …, "headers": …}`
 * (only those keys, body among them) is the whole result; any other JSON is its body.
 */
async function upstreamResults(
  given: readonly string[],
  nodes: ReadonlyMap<string, unknown>,
  cwd: string,
): Promise<Map<string, NodeResult>> {
  const results = new Map<string, NodeResult>();
  for (const [id, value] of pairs(given, '--node', 'ID=JSON or ID=@file.json', true)) {
    if (!nodes.has(id))
      throw new CliError(`--node ${id}: the agent has no node "${id}". Its nodes: ${[...nodes.keys()].join(', ')}.`, ExitCode.usage);
    let text = value;
    if (value.startsWith('@')) {
      // A node's result is at most an answer's size: a bigger file (or /dev/zero) is not one.
      const read = await readTextFile(resolve(cwd, value.slice(1)), { kind: 'text', maxBytes: MAX_ANSWER_BYTES });
      if ('error' in read) throw new CliError(`--node ${id}: ${value.slice(1)}: ${read.error}`, ExitCode.usage);
      text = read.text;
    }
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch (error) {
      throw new CliError(
        `--node ${id} takes JSON (or @file.json): ${errorMessage(error)}. Quote it for the shell, e.g. --node ${id}='{"id": 1}'.`,
        ExitCode.usage,
      );
    }
    results.set(id, asNodeResult(parsed));
  }
  return results;
}

function asNodeResult(value: unknown): NodeResult {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, 'body')) {
    const keys = Object.keys(value);
    const { body, status, headers } = value as { body: unknown; status?: unknown; headers?: unknown };
    const plainHeaders =
      headers !== null &&
      typeof headers === 'object' &&
      !Array.isArray(headers) &&
      Object.values(headers).every((item) => typeof item === 'string');
    if (
      keys.every((key) => key === 'body' || key === 'status' || key === 'headers') &&
      (status === undefined || typeof status === 'number') &&
      (headers === undefined || plainHeaders)
    ) {
      return {
        body,
        ...(typeof status === 'number' ? { status } : {}),
        ...(plainHeaders
          ? {
              headers: Object.fromEntries(
                Object.entries(headers as Record<string, string>).map(([name, item]) => [name.toLowerCase(), item]),
              ),
            }
          : {}),
      };
    }
  }
  return { body: value, status: 200, headers: {} };
}

function printOutcome(outcome: SendOutcome, flags: SendFlags, io: CliIo): number {
  const { exchange } = outcome;
  const response = exchange.response;
  if (flags.json) io.stdout(`${JSON.stringify(exchange)}\n`);
  for (const redirect of exchange.redirects)
    io.stderr(
      `redirected (${redirect.status}) to ${redirect.to}${redirect.droppedHeaders.length ? `; not sent there: ${redirect.droppedHeaders.join(', ')}` : ''}\n`,
    );
  if (response) {
    io.stderr(`${summaryLine(exchange)}\n`);
    const mismatch = bodyMismatch(response);
    if (mismatch === 'not-json') io.stderr(`note: Content-Type says ${response.contentType}, but the body is not JSON: shown as text.\n`);
    else if (mismatch === 'not-text')
      io.stderr(
        `note: Content-Type says ${response.contentType}, but the body is not text in its charset: not printed (--json has its Base64).\n`,
      );
    else if (mismatch === 'text-not-binary')
      io.stderr(`note: Content-Type says ${response.contentType}, but the body is text: shown as text.\n`);
    if (outcome.truncated) io.stderr(`note: ${cutNote(response.body)}\n`);
    if (!flags.json) {
      if (flags.include) {
        io.stdout(`HTTP/1.1 ${response.status}${response.statusText ? ` ${response.statusText}` : ''}\n`);
        for (const header of response.headers) io.stdout(`${header.name}: ${header.value}\n`);
        io.stdout('\n');
      }
      printBody(response.body, response.contentType, io);
    }
  }
  if (outcome.failure) {
    if (outcome.failure.kind !== 'status') io.stderr(`agent-workflows: ${outcome.failure.message}\n`);
    switch (outcome.failure.kind) {
      case 'status':
      case 'response':
      case 'expression':
        return ExitCode.problems;
      case 'timeout':
        return ExitCode.timeout;
      case 'aborted':
        return io.interrupt?.aborted ? ExitCode.interrupted : ExitCode.network;
      default:
        return ExitCode.network;
    }
  }
  return ExitCode.ok;
}

/** "GET https://api.example.com/x → 200 OK in 120 ms (first byte 80 ms), 1.2 KB". */
function summaryLine(exchange: Exchange): string {
  const response = exchange.response!;
  const { timing } = exchange;
  const size = bodySize(response.body);
  const status = `${exchange.request.method} ${exchange.request.url} → ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const time = `in ${formatDuration(timing.totalMs)}${timing.firstByteMs !== undefined ? ` (first byte ${formatDuration(timing.firstByteMs)})` : ''}`;
  return `${status} ${time}, ${size}${response.contentEncoding ? ` (${response.contentEncoding}, decoded)` : ''}`;
}

function bodySize(body: RecordedBody): string {
  if (body.kind === 'empty') return 'no body';
  if (body.kind === 'file') return formatBytes(body.size);
  return body.truncated && body.sizeUnknown ? `more than ${formatBytes(body.size)}` : formatBytes(body.size);
}

function cutNote(body: RecordedBody): string {
  if (body.kind !== 'text' && body.kind !== 'binary') return 'the body was cut.';
  const kept = body.kind === 'text' ? Buffer.byteLength(body.text) : Buffer.from(body.base64, 'base64').length;
  return `the body is ${body.sizeUnknown ? `more than ${formatBytes(body.size)}` : formatBytes(body.size)}: only its first ${formatBytes(kept)} were read.`;
}

function printBody(body: RecordedBody, contentType: string | undefined, io: CliIo): void {
  if (body.kind === 'text') io.stdout(withNewline(body.text));
  else if (body.kind === 'binary')
    io.stderr(`(a binary body of ${formatBytes(body.size)}${contentType ? `, ${contentType}` : ''}: not printed; --json has its Base64)\n`);
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
