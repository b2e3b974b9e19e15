// Multipart upload of a 1 GiB sparse file to a local server that parses the form and hashes what
// it receives, side by side with `curl -F` to the same server in the same run. Targets: at least
// 0.9x curl's throughput, and under 64 MiB growth of the client's resident memory. Both uploads
// must deliver the same bytes (size and SHA-256 of the file part), or the timing means nothing.
// The server and the client (bench/uploadClient.ts) each run in a process of their own, so the
// client's memory is measured alone. curl runs asynchronously: a blocked event loop would let the
// server close the client's kept-alive connection unnoticed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { getStatus } from '../src/core/service/agentClient';
import type { AgentTarget } from '../src/core/service/target';
import type { Received } from './hashServer';
import { table } from './support';

const SIZE = 1024 * 1024 * 1024;
const MIB = 1024 * 1024;

async function startHashServer(): Promise<{ port: number; stop(): void }> {
  const child = spawn(process.execPath, [join(__dirname, 'hashServer.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the hash server exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  return { port: Number(line), stop: () => child.kill('SIGTERM') };
}

/** Runs a program to its end without blocking the event loop; status is null when it could not start. */
function runProgram(command: string, args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) => resolve({ status: null, stdout, stderr: error.message }));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** curl -F to the same endpoint; its answer (the execution id) is parsed like the client's. */
async function curlUpload(target: AgentTarget, file: string): Promise<{ seconds: number; executionId?: string; problem?: string }> {
  const started = process.hrtime.bigint();
  const result = await runProgram('curl', [
    '-sS',
    '--max-time',
    '600',
    '-H',
    `Authorization: Bearer ${target.apiKey}`,
    '-F',
    'payload={"inputs":{},"stream":false};type=application/json',
    '-F',
    `document=@${file}`,
    `${target.baseUrl}/api/${target.account}/agent/${target.agent}/execute/multipart`,
  ]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const answer = JSON.parse(result.stdout) as { executionId?: unknown };
    if (result.status === 0 && typeof answer.executionId === 'string') return { seconds, executionId: answer.executionId };
  } catch {
    // Reported below.
  }
  return { seconds, problem: `curl exited ${result.status}: ${result.stderr || result.stdout}`.trim() };
}

/** The client in its own process (see uploadClient.ts). */
async function clientUpload(
  target: AgentTarget,
  file: string,
): Promise<{ executionId: string; seconds: number; baselineMiB: number; growthMiB: number }> {
  const child = spawn(process.execPath, ['--expose-gc', join(__dirname, 'uploadClient.js'), target.baseUrl, file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`the upload client failed (exit ${code}): ${stdout}`);
  return JSON.parse(stdout) as { executionId: string; seconds: number; baselineMiB: number; growthMiB: number };
}

async function received(target: AgentTarget, executionId: string): Promise<Received> {
  return (await getStatus(target, executionId)).outputs as Received;
}

/** Uploads each way in turn, alternating who goes first so neither gets a warmer server or cache. */
const ROUNDS = 3;

export async function runMultipartBenchmark(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-workflows-bench-'));
  const file = join(dir, 'big.bin');
  const small = join(dir, 'warm-up.bin');
  writeFileSync(file, '');
  truncateSync(file, SIZE); // sparse: no disk space, reads as zeros
  writeFileSync(small, '');
  truncateSync(small, 16 * MIB);
  const server = await startHashServer();
  const target: AgentTarget = { baseUrl: `http://127.0.0.1:${server.port}`, account: 'bench', agent: 'upload', apiKey: 'bench-key' };
  try {
    const curlAvailable = (await runProgram('curl', ['--version'])).status === 0;
    const problems: string[] = [];
    const curlSeconds: number[] = [];
    const ourSeconds: number[] = [];
    let growth = 0;
    let baselineMiB = 0;
    const hashes = new Set<string>();

    const check = async (who: string, executionId: string, expectedPayload?: unknown): Promise<void> => {
      const got = await received(target, executionId);
      const document = got.files.document;
      if (document?.bytes !== SIZE) problems.push(`${who}: the server received ${document?.bytes ?? 'no'} file bytes, not ${SIZE}`);
      if (got.bodyBytes !== got.contentLength) problems.push(`${who}: ${got.contentLength} bytes were announced but ${got.bodyBytes} sent`);
      if (expectedPayload !== undefined && JSON.stringify(JSON.parse(got.payload)) !== JSON.stringify(expectedPayload))
        problems.push(`${who}: the payload part arrived as ${got.payload}`);
      if (document) hashes.add(document.sha256);
    };
    const runCurl = async (): Promise<void> => {
      const curl = await curlUpload(target, file);
      if (curl.problem || !curl.executionId) problems.push(curl.problem ?? 'curl gave no execution id');
      else {
        curlSeconds.push(curl.seconds);
        await check('curl', curl.executionId);
      }
    };
    const runClient = async (): Promise<void> => {
      const ours = await clientUpload(target, file);
      ourSeconds.push(ours.seconds);
      growth = Math.max(growth, ours.growthMiB);
      baselineMiB = ours.baselineMiB;
      await check('agent-workflows', ours.executionId, { inputs: { note: 'benchmark "upload" ✓' }, stream: false });
    };

    // Warm the server (JIT, busboy) with a small upload each way; not measured.
    if (curlAvailable) await curlUpload(target, small);
    await clientUpload(target, small);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [runCurl, runClient] : [runClient, runCurl];
      for (const upload of order) if (upload !== runCurl || curlAvailable) await upload();
    }
    if (hashes.size > 1) problems.push(`the file part arrived with ${hashes.size} different SHA-256 sums: ${[...hashes].join(', ')}`);

    // Best of the rounds for each: the least disturbed by whatever else the machine was doing.
    const best = (values: number[]): number => Math.min(...values);
    const rate = (seconds: number): number => SIZE / MIB / seconds;
    const ratio = curlSeconds.length && ourSeconds.length ? rate(best(ourSeconds)) / rate(best(curlSeconds)) : undefined;
    const hash = `${[...hashes][0]?.slice(0, 16) ?? '?'}…`;
    const times = (values: number[]): string => values.map((value) => value.toFixed(2)).join(' / ');
    const rows = [['client', 'best time', 'throughput', 'vs curl', 'RSS growth', `all ${ROUNDS} times (s)`, 'file SHA-256']];
    if (curlSeconds.length)
      rows.push([
        'curl -F',
        `${best(curlSeconds).toFixed(2)} s`,
        `${rate(best(curlSeconds)).toFixed(0)} MiB/s`,
        '1.00x',
        '(own process)',
        times(curlSeconds),
        hash,
      ]);
    if (ourSeconds.length) {
      rows.push([
        'agent-workflows',
        `${best(ourSeconds).toFixed(2)} s`,
        `${rate(best(ourSeconds)).toFixed(0)} MiB/s`,
        ratio ? `${ratio.toFixed(2)}x` : 'n/a',
        `${growth.toFixed(1)} MiB (from ${baselineMiB.toFixed(0)})`,
        times(ourSeconds),
        hash,
      ]);
    }
    console.log(
      `Multipart upload of a 1 GiB sparse file, parsed and hashed by the server; best of ${ROUNDS}, alternating who goes first (targets: >= 0.90x curl, < 64 MiB RSS growth)`,
    );
    console.log(table(rows));
    if (!curlAvailable) console.log('curl is not installed: the throughput ratio could not be measured.');
    for (const problem of problems) console.log(`PROBLEM: ${problem}`);
    return problems.length === 0 && ourSeconds.length === ROUNDS && (ratio === undefined || ratio >= 0.9) && growth < 64;
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
