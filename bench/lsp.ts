// The language server (`agent-workflows lsp --stdio`, dist/cli.js) as an editor meets it, through a
// real client over its standard input and output:
//  1. diagnostics of the validation benchmark's 2,000-node agent: from didOpen to the
//     publishDiagnostics that answers it, against validateAgentText of the same text in this
//     process, measured in alternation. Target: at most 1.2x.
//  2. start to first diagnostics of a small file: from spawning the process to the first
//     publishDiagnostics (initialize, initialized, didOpen in between). Target: under 300 ms. Beside
//     it, `node -e 0` in alternation: on a loaded machine a bare Node.js start alone can take that.
//  3. memory with 500 open documents (each a 100-node agent): what the server holds after 100, 200
//     and 500 (its agentWorkflows/serverStatus, after a collection). Target: the texts kept stay
//     within the store's bounds, and the heap at 500 grows by less than the texts past the bound.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { validateAgentText } from '../src/core/validation/validate';
import { MAX_KEPT_DOCUMENTS } from '../src/lsp/documentStore';
import type { ServerStatus } from '../src/lsp/languageServer';
import { findRepoRoot, makeTempDir, removeDir } from '../test/host/common';
import { spawnLanguageServer } from '../test/support/lspClient';
import { table } from './support';
import { generateAgent } from './validate';

const DIAGNOSTICS_TARGET_RATIO = 1.2;
const FIRST_DIAGNOSTICS_TARGET_MS = 300;
const RUNS = 11;
const STARTS = 7;
const OPEN_DOCUMENTS = 500;

const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

export async function runLspBenchmark(): Promise<boolean> {
  const repoRoot = findRepoRoot();
  const scratch = makeTempDir('agent-workflows-bench-lsp-');
  try {
    const diagnostics = await diagnosticsAgainstInProcess(scratch);
    const start = await startToFirstDiagnostics(scratch, repoRoot);
    const memory = await memoryWithOpenDocuments(scratch);
    return diagnostics && start && memory;
  } finally {
    removeDir(scratch);
  }
}

async function diagnosticsAgainstInProcess(scratch: string): Promise<boolean> {
  const text = generateAgent(2000);
  const server = spawnLanguageServer(scratch);
  try {
    await server.initialize({ rootUri: pathToFileURL(scratch).href });
    let n = 0;
    /** One didOpen of the text under a new name, to its diagnostics; closed after. */
    const throughServer = async (): Promise<number> => {
      const uri = pathToFileURL(join(scratch, `large-${n++}.agent.yaml`)).href;
      const started = process.hrtime.bigint();
      await server.open(uri, text);
      const { diagnostics } = await server.diagnostics(uri);
      const ms = elapsedMs(started);
      if (diagnostics.length > 0) throw new Error(`the generated agent has problems: ${JSON.stringify(diagnostics[0])}`);
      await server.close(uri);
      return ms;
    };
    const inProcess = (): number => {
      const started = process.hrtime.bigint();
      validateAgentText(text);
      return elapsedMs(started);
    };
    for (let i = 0; i < 2; i++) {
      await throughServer();
      inProcess();
    }
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < RUNS; i++) {
      times[0].push(await throughServer());
      times[1].push(inProcess());
    }
    const [server_, reference] = [median(times[0]), median(times[1])];
    const ratio = server_ / reference;
    console.log(
      `Language server: diagnostics of the 2,000-node agent (${(text.length / 1024).toFixed(0)} KB; median of ${RUNS} alternating runs; target: ratio <= ${DIAGNOSTICS_TARGET_RATIO}x)`,
    );
    console.log(
      table([
        ['didOpen to publishDiagnostics', 'validateAgentText in process', 'ratio'],
        [`${server_.toFixed(1)} ms`, `${reference.toFixed(1)} ms`, `${ratio.toFixed(2)}x`],
      ]),
    );
    console.log('');
    return ratio <= DIAGNOSTICS_TARGET_RATIO;
  } finally {
    await shutDown(server);
  }
}

async function startToFirstDiagnostics(scratch: string, repoRoot: string): Promise<boolean> {
  const text = generateAgent(5).replace('method: POST', 'method: POSTT');
  const times: number[] = [];
  // The machine's own start of a Node.js process, in alternation: what no server can go below.
  const bareNode: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const bare = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    bareNode.push(elapsedMs(bare));
    const started = process.hrtime.bigint();
    const server = spawnLanguageServer(repoRoot);
    try {
      await server.initialize();
      const uri = pathToFileURL(join(scratch, 'small.agent.yaml')).href;
      await server.open(uri, text);
      const { diagnostics } = await server.diagnostics(uri);
      times.push(elapsedMs(started));
      if (!diagnostics.some((diagnostic) => diagnostic.code === 'unknown-http-method'))
        throw new Error('the small file got no unknown-http-method');
    } finally {
      await shutDown(server);
    }
  }
  const result = median(times);
  console.log(
    `Language server: start to first diagnostics of a small file (new process each; median of ${STARTS}; target: under ${FIRST_DIAGNOSTICS_TARGET_MS} ms)`,
  );
  console.log(
    table([
      ['', 'median', 'fastest', 'slowest'],
      [
        'spawn to first diagnostics',
        `${result.toFixed(0)} ms`,
        `${Math.min(...times).toFixed(0)} ms`,
        `${Math.max(...times).toFixed(0)} ms`,
      ],
      [
        'reference: node -e 0 to its exit',
        `${median(bareNode).toFixed(0)} ms`,
        `${Math.min(...bareNode).toFixed(0)} ms`,
        `${Math.max(...bareNode).toFixed(0)} ms`,
      ],
    ]),
  );
  console.log('');
  return result < FIRST_DIAGNOSTICS_TARGET_MS;
}

async function memoryWithOpenDocuments(scratch: string): Promise<boolean> {
  const server = spawnLanguageServer(scratch, ['--expose-gc']);
  try {
    await server.initialize();
    const rows = [['open documents', 'texts kept', 'characters kept', 'let go', 'heap used', 'rss']];
    const statuses = new Map<number, ServerStatus>();
    let textLength = 0;
    for (let i = 1; i <= OPEN_DOCUMENTS; i++) {
      // Each text differs (its name), as real files do.
      const text = generateAgent(100).replace('name: Generated agent', `name: Generated agent ${i}`);
      textLength = text.length;
      const uri = pathToFileURL(join(scratch, `open-${i}.agent.yaml`)).href;
      await server.open(uri, text);
      if (i % 100 === 0 || i === MAX_KEPT_DOCUMENTS) {
        await server.diagnostics(uri);
        const status = (await server.connection.sendRequest('agentWorkflows/serverStatus')) as ServerStatus;
        statuses.set(i, status);
        rows.push([
          String(status.openDocuments),
          String(status.keptDocuments),
          `${(status.keptCharacters / 1e6).toFixed(1)} M`,
          String(status.evictions),
          megabytes(status.heapUsedBytes),
          megabytes(status.rssBytes),
        ]);
      }
    }
    const atBound = statuses.get(MAX_KEPT_DOCUMENTS)!;
    const atEnd = statuses.get(OPEN_DOCUMENTS)!;
    // The texts past the bound, as the heap would hold them (UTF-16 or one byte a character: at least their length).
    const pastBound = (OPEN_DOCUMENTS - MAX_KEPT_DOCUMENTS) * textLength;
    const growth = atEnd.heapUsedBytes - atBound.heapUsedBytes;
    const ok = atEnd.keptDocuments <= MAX_KEPT_DOCUMENTS && growth < pastBound;
    console.log(
      `Language server: memory with ${OPEN_DOCUMENTS} open documents of ${(textLength / 1024).toFixed(0)} KB (after a collection; target: at most ${MAX_KEPT_DOCUMENTS} texts kept, and the heap grows from ${MAX_KEPT_DOCUMENTS} to ${OPEN_DOCUMENTS} documents by less than the ${megabytes(pastBound)} of texts past the bound)`,
    );
    console.log(table(rows));
    console.log(`heap growth from ${MAX_KEPT_DOCUMENTS} to ${OPEN_DOCUMENTS} documents: ${megabytes(growth)}`);
    return ok;
  } finally {
    await shutDown(server);
  }
}

async function shutDown(server: ReturnType<typeof spawnLanguageServer>): Promise<void> {
  try {
    await server.connection.sendRequest('shutdown');
    await server.connection.sendNotification('exit');
    await server.exited;
  } finally {
    server.dispose();
  }
}
