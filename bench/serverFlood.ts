// The flood of issue 9 against `agent-workflows serve` (the built command line): an agent `hello`
// whose template repeats its one input, 2,300 executions each given a 1 MB string, POSTed 8 at a
// time (a 429 is waited out as its Retry-After says). Before the store was bounded by bytes this
// took the server past 4 GB and killed it. Target: the server stays up and answering, its peak
// resident memory (VmHWM, read from /proc) under 1 GiB; the newest execution is still readable
// and the oldest answers 410 (removed to keep the memory bounded).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { peakRss, table, waitForReadyLine } from './support';

const EXECUTIONS = 2300;
const AT_ONCE = 8;
const INPUT_CHARS = 1_000_000;
const MAX_RSS_BYTES = 1024 * 1024 * 1024;

const helloAgent = `version: 1
name: Hello
inputs:
  who: { type: string, required: true }
nodes:
  greet:
    type: template
    text: "Hello {{ inputs.who }}"
outputs:
  greeting: { from: "{{ nodes.greet.body }}" }
`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runServerFloodBenchmark(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-workflows-bench-flood-'));
  const key = 'k';
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: AT_ONCE });
  let child: ChildProcess | undefined;
  try {
    writeFileSync(join(dir, 'hello.agent.yaml'), helloAgent);
    const server = spawn(process.execPath, [join(__dirname, '..', '..', 'dist', 'cli.js'), 'serve', dir, '--port', '0', '--api-key', key], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = server;
    let stderr = '';
    server.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const base = (
      await waitForReadyLine(server, /listening on (http:\/\/\S+)/, (code) => `serve exited (${code}) before listening: ${stderr}`)
    )[1]!;
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    let died: number | null | undefined;
    void exited.then((code) => (died = code));

    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const ids: string[] = [];
    const errors: string[] = [];
    let refused = 0;
    let next = 0;
    const began = Date.now();
    const worker = async (n: number): Promise<void> => {
      while (next < EXECUTIONS && died === undefined) {
        const index = next++;
        const body = JSON.stringify({ inputs: { who: `${n}-${index}-`.padEnd(INPUT_CHARS, 'x') }, stream: false });
        for (;;) {
          try {
            const answer = await request(`${base}/api/local/agent/hello/execute`, {
              method: 'POST',
              headers,
              body,
              dispatcher,
              headersTimeout: 30_000,
              bodyTimeout: 30_000,
            });
            const text = await answer.body.text();
            if (answer.statusCode === 429) {
              refused++;
              await sleep(Number(answer.headers['retry-after'] ?? 1) * 1000);
              continue;
            }
            if (answer.statusCode === 200) ids[index] = (JSON.parse(text) as { executionId: string }).executionId;
            else errors.push(`start ${index} answered ${answer.statusCode}: ${text.slice(0, 200)}`);
          } catch (error) {
            errors.push(`start ${index}: ${(error as Error).message}`);
          }
          break;
        }
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, (_, n) => worker(n)));
    const seconds = (Date.now() - began) / 1000;

    const read = async (id: string | undefined): Promise<number | string> => {
      if (!id) return 'no id';
      try {
        const answer = await request(`${base}/api/local/agent/${id}/status`, {
          headers,
          dispatcher,
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        await answer.body.text();
        return answer.statusCode;
      } catch (error) {
        return (error as Error).message;
      }
    };
    const newest = await read(ids[EXECUTIONS - 1]);
    const oldest = await read(ids[0]);
    const peak = died === undefined ? peakRss(server.pid!) : undefined;
    const started = ids.filter(Boolean).length;
    const up = died === undefined && newest === 200;
    const ok = up && errors.length === 0 && started === EXECUTIONS && peak !== undefined && peak < MAX_RSS_BYTES && oldest === 410;

    console.log(
      `Local agent server flood: ${EXECUTIONS} executions of an agent repeating a ${INPUT_CHARS / 1_000_000} MB input, ${AT_ONCE} POSTs at a time (429s waited out)`,
    );
    console.log(
      table([
        ['measure', 'result', 'target'],
        ['executions started', `${started}/${EXECUTIONS} in ${seconds.toFixed(1)} s`, `${EXECUTIONS}`],
        ['starts refused (429), then retried', String(refused), ''],
        ['errors', String(errors.length), '0'],
        ['server up and answering', died !== undefined ? `no: exited ${died}` : `yes (newest execution: ${newest})`, 'yes (200)'],
        ['oldest execution', String(oldest), '410 (removed to bound memory)'],
        [
          'server peak RSS',
          peak !== undefined ? `${(peak / (1024 * 1024)).toFixed(0)} MiB` : 'unknown',
          `< ${MAX_RSS_BYTES / (1024 * 1024)} MiB`,
        ],
      ]),
    );
    if (died !== undefined) console.log(`  server stderr: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    for (const error of errors.slice(0, 5)) console.log(`  error: ${error}`);
    if (errors.length > 5) console.log(`  … and ${errors.length - 5} more errors`);
    return ok;
  } finally {
    if (child && child.exitCode === null) {
      const stopped = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await stopped;
    }
    await dispatcher.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
