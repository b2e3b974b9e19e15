// `agent-workflows batch` (the built command line, in a process of its own) over datasets:
//  1. 2,000 rows against `agent-workflows serve` with an agent whose API node calls a 127.0.0.1 API
//     that answers after 1 s: total time against the ideal (rows x 1 s / concurrency; target
//     <= 1.15x), status requests per execution, and the batch process's peak RSS (VmHWM; < 200 MB).
//  2. 100,000 rows read from a .jsonl and a .csv file and checked against the declarations
//     (readDataRows + rowInputs, in this process): time and RSS growth (the file is never held).
//  3. A service that answers 429 (Retry-After: 1) above 30 requests a second: the share of 429 answers
//     after the first throttled second (target <= 1 %).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDataRows } from '../src/core/batch/dataRows';
import { rowInputs } from '../src/core/batch/rowInputs';
import { validateAgentText } from '../src/core/validation/validate';
import { startBatchService } from '../test/support/batchService';
import { peakRss, table, waitForReadyLine } from './support';

const ROWS = 2000;
const CONCURRENCY = 50;
const RATE = 200;
const NODE_DELAY_MS = 1000;
const READ_ROWS = 100_000;
const THROTTLE_ROWS = 400;
const THROTTLE_LIMIT_PER_SECOND = 30;

const slowAgent = (api: string) => `version: 1
name: Slow
inputs:
  n: { type: number, required: true }
nodes:
  call:
    type: api
    method: GET
    url: ${api}/item/{{ inputs.n }}?delay=${NODE_DELAY_MS}
    settings: ["Accept: application/json"]
outputs:
  path: { from: "{{ nodes.call.body.path }}" }
`;

const deployedAgent = (baseUrl: string) => `version: 1
name: Rows
deployment:
  baseUrl: ${baseUrl}
  account: acme
  agent: rows
inputs:
  n: { type: number, required: true }
  text: { type: string }
nodes:
  echo:
    type: template
    text: "{{ inputs.n }}"
outputs:
  n: { from: "{{ nodes.echo.body }}" }
`;

async function startProcess(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const match = await waitForReadyLine(child, ready, (code) => `${args.join(' ')} exited (${code}) before it was ready`);
  return { child, match };
}

/** Runs the built command line; returns its exit code, stderr, wall time and peak RSS (VmHWM, sampled until it exits). */
async function runBatchCli(
  args: string[],
  cwd: string,
  key: string,
): Promise<{ code: number | null; stderr: string; ms: number; peakRss: number }> {
  const began = Date.now();
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'dist', 'cli.js'), 'batch', ...args], {
    cwd,
    env: { ...process.env, AGENT_WORKFLOWS_API_KEY: key },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let peak = 0;
  const sample = setInterval(() => (peak = Math.max(peak, peakRss(child.pid!) ?? 0)), 100);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exit) => resolve(exit)));
  clearInterval(sample);
  return { code, stderr, ms: Date.now() - began, peakRss: peak };
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function againstLocalServer(dir: string): Promise<boolean> {
  const key = randomBytes(16).toString('hex');
  const children: ChildProcess[] = [];
  try {
    const echo = await startProcess([join(__dirname, 'echoServer.js')], /^(\d+)$/);
    children.push(echo.child);
    writeFileSync(join(dir, 'slow.agent.yaml'), slowAgent(`http://127.0.0.1:${echo.match[1]}`));
    const server = await startProcess(
      [join(__dirname, '..', '..', 'dist', 'cli.js'), 'serve', dir, '--port', '0', '--api-key', key],
      /listening on (http:\/\/\S+)/,
    );
    children.push(server.child);
    writeFileSync(join(dir, 'rows.jsonl'), Array.from({ length: ROWS }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n') + '\n');
    const run = await runBatchCli(
      [
        'slow.agent.yaml',
        '--data',
        'rows.jsonl',
        '--out',
        'out.jsonl',
        '--concurrency',
        String(CONCURRENCY),
        '--rate',
        String(RATE),
        '--base-url',
        server.match[1]!,
        '--account',
        'local',
        '--agent',
        'slow',
      ],
      dir,
      key,
    );
    const requests = Number(/(\d+) requests/.exec(run.stderr)?.[1] ?? Number.NaN);
    const finished = Number(/(\d+) finished/.exec(run.stderr)?.[1] ?? 0);
    const idealMs = (ROWS * NODE_DELAY_MS) / CONCURRENCY;
    const ratio = run.ms / idealMs;
    const perExecution = (requests - ROWS) / ROWS;
    console.log(`batch: ${ROWS} rows of ${NODE_DELAY_MS} ms against the local agent server, --concurrency ${CONCURRENCY} --rate ${RATE}`);
    console.log(
      table([
        ['', 'measured', 'target'],
        ['rows finished', String(finished), String(ROWS)],
        ['total', `${(run.ms / 1000).toFixed(1)} s`, ''],
        ['ideal (rows x 1 s / concurrency)', `${(idealMs / 1000).toFixed(1)} s`, ''],
        ['total / ideal', `${ratio.toFixed(3)}x`, '<= 1.15x'],
        ['status requests per execution', perExecution.toFixed(2), ''],
        ['peak RSS of the batch process', mb(run.peakRss), '< 200 MB'],
      ]),
    );
    if (run.code !== 0) console.log(run.stderr.slice(-2000));
    return run.code === 0 && finished === ROWS && ratio <= 1.15 && run.peakRss < 200 * 1024 * 1024;
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}

async function readManyRows(dir: string): Promise<boolean> {
  const model = validateAgentText(deployedAgent('http://127.0.0.1:9')).model!;
  const files = { jsonl: join(dir, 'many.jsonl'), csv: join(dir, 'many.csv') };
  await new Promise<void>((resolve) => {
    const out = createWriteStream(files.jsonl);
    for (let i = 1; i <= READ_ROWS; i++) out.write(`${JSON.stringify({ n: i, text: `row ${i} ${'x'.repeat(40)}` })}\n`);
    out.end(resolve);
  });
  await new Promise<void>((resolve) => {
    const out = createWriteStream(files.csv);
    out.write('n,text\n');
    for (let i = 1; i <= READ_ROWS; i++) out.write(`${i},"row ${i} ${'x'.repeat(40)}"\n`);
    out.end(resolve);
  });
  const rows: string[][] = [['', 'rows', 'time', 'RSS growth', 'target']];
  let ok = true;
  for (const [format, path] of Object.entries(files)) {
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const began = Date.now();
    let good = 0;
    for await (const data of readDataRows(path)) {
      if ('problem' in data) continue;
      const checked = await rowInputs(model, data, { baseDir: dir });
      if (!('problems' in checked)) good++;
      if (good % 1000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }
    const growth = peak - before;
    ok &&= good === READ_ROWS && growth < 100 * 1024 * 1024;
    rows.push([format, String(good), `${((Date.now() - began) / 1000).toFixed(2)} s`, mb(growth), '< 100 MB, every row']);
  }
  console.log(`batch: ${READ_ROWS} rows read and checked (files of ${mb(readFileSync(files.jsonl).length)})`);
  console.log(table(rows));
  return ok;
}

async function againstThrottlingService(dir: string): Promise<boolean> {
  const key = randomBytes(16).toString('hex');
  const accepted: number[] = [];
  const service = await startBatchService({
    apiKey: key,
    durationMs: () => NODE_DELAY_MS,
    outcome: (inputs) => ({ status: 'finished', outputs: { n: String(inputs.n) } }),
    // A service that allows 30 requests in any second and answers 429 (Retry-After: 1) beyond.
    throttle: () => {
      const now = Date.now();
      while (accepted.length && accepted[0]! <= now - 1000) accepted.shift();
      if (accepted.length >= THROTTLE_LIMIT_PER_SECOND) return { status: 429, retryAfterSeconds: 1 };
      accepted.push(now);
      return undefined;
    },
  });
  try {
    writeFileSync(join(dir, 'rows.agent.yaml'), deployedAgent(service.url));
    writeFileSync(join(dir, 'few.jsonl'), Array.from({ length: THROTTLE_ROWS }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n') + '\n');
    const run = await runBatchCli(['rows.agent.yaml', '--data', 'few.jsonl', '--concurrency', '100', '--rate', '100'], dir, key);
    const firstThrottled = service.log.find((entry) => entry.status === 429)?.at;
    const after = firstThrottled === undefined ? [] : service.log.filter((entry) => entry.at >= firstThrottled + 1000);
    const throttled = after.filter((entry) => entry.status === 429).length;
    const share = after.length ? throttled / after.length : 0;
    const starts = new Set(service.started.map((execution) => execution.inputs.n)).size;
    console.log(
      `batch: ${THROTTLE_ROWS} rows of ${NODE_DELAY_MS} ms, --rate 100, against a service allowing ${THROTTLE_LIMIT_PER_SECOND} requests a second`,
    );
    console.log(
      table([
        ['', 'measured', 'target'],
        ['rows started (each once)', `${starts} (${service.started.length} starts)`, String(THROTTLE_ROWS)],
        ['total', `${(run.ms / 1000).toFixed(1)} s`, ''],
        ['requests, all', String(service.log.length), ''],
        ['429 answers, all', String(service.log.filter((entry) => entry.status === 429).length), ''],
        ['429 share after the first throttled second', `${(share * 100).toFixed(2)} % (${throttled}/${after.length})`, '<= 1 %'],
      ]),
    );
    if (run.code !== 0) console.log(run.stderr.slice(-2000));
    return run.code === 0 && starts === THROTTLE_ROWS && service.started.length === THROTTLE_ROWS && share <= 0.01;
  } finally {
    await service.close();
  }
}

export async function runBatchBenchmark(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-workflows-bench-batch-'));
  try {
    const read = await readManyRows(dir);
    console.log('');
    const throttled = await againstThrottlingService(dir);
    console.log('');
    const local = await againstLocalServer(dir);
    return read && throttled && local;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
