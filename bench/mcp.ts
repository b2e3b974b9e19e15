// The MCP server of `agent-workflows mcp` as an assistant meets it, each figure against a reference
// measured in the same run:
//  1. a tool call that runs an agent on this machine (10 API nodes against an API on 127.0.0.1):
//     the server in this process, reached by the SDK's client over its in-memory transport, against
//     `run --local` of the same file through the command line in this process (the same engine),
//     measured in alternation. Target: at most 1.1x.
//  2. a folder of 500 agent files (past the 40-agent bound: the generic pair): from a started and
//     initialized server (dist/cli.js, over stdio) to its first tools/list answer, and to its first
//     and second list_agents answers. Target: each under 300 ms. Beside it, the first tools/list of
//     a folder of 5 agent files, in alternation (new processes each).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { runCli } from '../src/cli/main';
import { createAgentServer } from '../src/mcp/agentServer';
import { findRepoRoot, makeTempDir, removeDir } from '../test/host/common';
import { table } from './support';

const CALL_TARGET_RATIO = 1.1;
const LIST_TARGET_MS = 300;
const CALL_RUNS = 31;
const LIST_RUNS = 5;
const NODES = 10;
const MANY_AGENTS = 500;
const FEW_AGENTS = 5;

const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function runMcpBenchmark(): Promise<boolean> {
  const scratch = makeTempDir('agent-workflows-bench-mcp-');
  try {
    const call = await callAgainstRunLocal(scratch);
    const list = await toolListOfManyAgents(scratch);
    return call && list;
  } finally {
    removeDir(scratch);
  }
}

/** An agent of `nodes` API nodes in a chain, each calling `url`, and a few inputs and outputs. */
function chainAgent(name: string, url: string, nodes: number): string {
  const lines = [
    'version: 1',
    `name: ${name}`,
    `description: Calls an API ${nodes} times, each call after the one before.`,
    'inputs:',
    '  city: { type: string, required: true, description: The city }',
    '  units: { type: string, enum: [metric, imperial], default: metric }',
    'outputs:',
    `  last: { from: "{{ nodes.n${nodes - 1}.body.path }}" }`,
    'nodes:',
  ];
  for (let i = 0; i < nodes; i++) {
    lines.push(`  n${i}:`, '    type: api', '    method: GET');
    lines.push(`    url: ${url}/n${i}?city={{ inputs.city }}${i > 0 ? `&after={{ nodes.n${i - 1}.body.method }}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

async function callAgainstRunLocal(scratch: string): Promise<boolean> {
  const api = createServer((_request, response) => {
    const url = new URL(_request.url ?? '/', 'http://localhost');
    const answer = JSON.stringify({ method: _request.method, path: url.pathname });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)) });
    response.end(answer);
  });
  api.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const folder = join(scratch, 'call');
  mkdirSync(folder);
  const file = join(folder, 'chain.agent.yaml');
  writeFileSync(file, chainAgent('Chain', url, NODES));

  const served = createAgentServer({
    root: folder,
    env: {},
    allowedEnvironments: [],
    callTimeoutMs: 60_000,
    watch: false,
    log: () => undefined,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'agent-workflows-bench', version: '1' });
  await served.server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const throughMcp = async (): Promise<number> => {
      const started = process.hrtime.bigint();
      const result = (await client.callTool({ name: 'chain', arguments: { inputs: { city: 'Oslo' } } })) as CallToolResult;
      const ms = elapsedMs(started);
      if (result.isError || (result.structuredContent as { last?: string }).last !== `/n${NODES - 1}`)
        throw new Error(`the tool call failed: ${JSON.stringify(result)}`);
      return ms;
    };
    const runLocal = async (): Promise<number> => {
      let stdout = '';
      const started = process.hrtime.bigint();
      const code = await runCli(['run', '--local', file, '--input', 'city=Oslo', '--json'], {
        stdout: (text) => (stdout += text),
        stderr: () => undefined,
        cwd: folder,
        env: {},
      });
      const ms = elapsedMs(started);
      if (code !== 0 || !stdout.includes(`/n${NODES - 1}`)) throw new Error(`run --local failed (${code}): ${stdout}`);
      return ms;
    };
    for (let i = 0; i < 3; i++) {
      await throughMcp();
      await runLocal();
    }
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < CALL_RUNS; i++) {
      times[0].push(await throughMcp());
      times[1].push(await runLocal());
    }
    const [mcp, reference] = [median(times[0]), median(times[1])];
    const ratio = mcp / reference;
    console.log(
      `MCP server: a tool call running a ${NODES}-node agent on this machine (median of ${CALL_RUNS} alternating runs, in this process; target: ratio <= ${CALL_TARGET_RATIO}x)`,
    );
    console.log(
      table([
        ['tools/call (SDK client, in-memory transport)', 'run --local (command line in process)', 'ratio'],
        [`${mcp.toFixed(2)} ms`, `${reference.toFixed(2)} ms`, `${ratio.toFixed(2)}x`],
      ]),
    );
    console.log('');
    return ratio <= CALL_TARGET_RATIO;
  } finally {
    await client.close();
    served.close();
    await new Promise<void>((resolve) => {
      api.close(() => resolve());
      api.closeAllConnections();
    });
  }
}

/** A folder of `count` small agent files, a few to a sub-folder. */
function agentFolder(scratch: string, name: string, count: number): string {
  const folder = join(scratch, name);
  for (let i = 0; i < count; i++) {
    const sub = join(folder, `group-${Math.floor(i / 20)}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `agent-${i}.agent.yaml`), chainAgent(`Agent ${i}`, 'https://api.example.com', 3));
  }
  return folder;
}

interface ListTimes {
  readonly toolsList: number;
  readonly tools: number;
  readonly firstListAgents?: number;
  readonly secondListAgents?: number;
}

/** A new server process on `folder`, initialized; then its first tools/list, and list_agents twice when offered. */
async function listTimes(cli: string, folder: string): Promise<ListTimes> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', folder],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'agent-workflows-bench', version: '1' });
  await client.connect(transport);
  try {
    let started = process.hrtime.bigint();
    const { tools } = await client.listTools();
    const toolsList = elapsedMs(started);
    if (!tools.some((tool) => tool.name === 'list_agents')) return { toolsList, tools: tools.length };
    const listAgents = async (): Promise<number> => {
      started = process.hrtime.bigint();
      const result = (await client.callTool({ name: 'list_agents', arguments: {} })) as CallToolResult;
      const ms = elapsedMs(started);
      if (result.isError || !(result.structuredContent as { total?: number }).total)
        throw new Error(`list_agents failed: ${JSON.stringify(result).slice(0, 500)}`);
      return ms;
    };
    const firstListAgents = await listAgents();
    return { toolsList, tools: tools.length, firstListAgents, secondListAgents: await listAgents() };
  } finally {
    await client.close();
  }
}

async function toolListOfManyAgents(scratch: string): Promise<boolean> {
  const cli = join(findRepoRoot(), 'dist', 'cli.js');
  const many = agentFolder(scratch, 'many', MANY_AGENTS);
  const few = agentFolder(scratch, 'few', FEW_AGENTS);
  const manyTimes: ListTimes[] = [];
  const fewTimes: ListTimes[] = [];
  for (let i = 0; i < LIST_RUNS; i++) {
    manyTimes.push(await listTimes(cli, many));
    fewTimes.push(await listTimes(cli, few));
  }
  const toolsList = median(manyTimes.map((times) => times.toolsList));
  const reference = median(fewTimes.map((times) => times.toolsList));
  const firstListAgents = median(manyTimes.map((times) => times.firstListAgents ?? Number.NaN));
  const secondListAgents = median(manyTimes.map((times) => times.secondListAgents ?? Number.NaN));
  const genericPair = manyTimes.every((times) => times.firstListAgents !== undefined);
  console.log(
    `MCP server: a folder of ${MANY_AGENTS} agent files (new process each, initialized; median of ${LIST_RUNS} alternating starts; target: each under ${LIST_TARGET_MS} ms)`,
  );
  console.log(
    table([
      ['answer', `${MANY_AGENTS} files`, `reference: first tools/list of ${FEW_AGENTS} files`, 'ratio', 'target'],
      [
        'first tools/list',
        `${toolsList.toFixed(1)} ms`,
        `${reference.toFixed(1)} ms`,
        `${(toolsList / reference).toFixed(2)}x`,
        `< ${LIST_TARGET_MS} ms`,
      ],
      [
        'first list_agents',
        `${firstListAgents.toFixed(1)} ms`,
        '',
        `${(firstListAgents / reference).toFixed(2)}x`,
        `< ${LIST_TARGET_MS} ms`,
      ],
      [
        'second list_agents',
        `${secondListAgents.toFixed(1)} ms`,
        '',
        `${(secondListAgents / reference).toFixed(2)}x`,
        `< ${LIST_TARGET_MS} ms`,
      ],
    ]),
  );
  console.log(
    `(${manyTimes[0]!.tools} tools offered for ${MANY_AGENTS} files: ${genericPair ? 'the generic pair' : 'NOT the generic pair'})`,
  );
  console.log('');
  return genericPair && toolsList < LIST_TARGET_MS && firstListAgents < LIST_TARGET_MS && secondListAgents < LIST_TARGET_MS;
}
