// Multipart upload of a 1 GiB sparse file to a local server that hashes what it receives, side by
// side with `curl -F` to the same server in the same run. Targets: at least 0.9x curl's
// throughput, and under 64 MiB growth of the client's resident memory.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startMultipartExecution } from '../src/core/service/agentClient';
import { table } from './support';

const SIZE = 1024 * 1024 * 1024;

async function startHashServer(): Promise<{ port: number; stop(): void }> {
  const child = spawn(process.execPath, [join(__dirname, 'hashServer.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  return { port: Number(line), stop: () => child.kill('SIGTERM') };
}

function curlUpload(port: number, file: string): { seconds: number; ok: boolean } {
  const started = process.hrtime.bigint();
  const result = spawnSync('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-H', 'Authorization: Bearer bench', '-F', 'payload={"inputs":{},"stream":false};type=application/json', '-F', `document=@${file}`, `http://127.0.0.1:${port}/api/bench/agent/upload/execute/multipart`], { encoding: 'utf8' });
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, ok: result.status === 0 && result.stdout === '200' };
}

export async function runMultipartBenchmark(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-workflows-bench-'));
  const file = join(dir, 'big.bin');
  writeFileSync(file, '');
  truncateSync(file, SIZE);
  const server = await startHashServer();
  try {
    const curlAvailable = spawnSync('curl', ['--version']).status === 0;
    const curl = curlAvailable ? curlUpload(server.port, file) : undefined;

    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = process.hrtime.bigint();
    await startMultipartExecution({ baseUrl: `http://127.0.0.1:${server.port}`, account: 'bench', agent: 'upload', apiKey: 'bench' }, {}, [{ field: 'document', path: file }]);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);

    const mib = SIZE / (1024 * 1024);
    const ours = mib / seconds;
    const growth = (peak - baseline) / (1024 * 1024);
    const rows = [['client', 'time', 'throughput', 'vs curl', 'RSS growth']];
    if (curl) rows.push(['curl -F', `${curl.seconds.toFixed(2)} s`, `${(mib / curl.seconds).toFixed(0)} MiB/s`, '1.00x', '(separate process)']);
    const ratio = curl ? ours / (mib / curl.seconds) : undefined;
    rows.push(['agent-workflows', `${seconds.toFixed(2)} s`, `${ours.toFixed(0)} MiB/s`, ratio ? `${ratio.toFixed(2)}x` : 'n/a', `${growth.toFixed(1)} MiB`]);
    console.log('Multipart upload of a 1 GiB sparse file (targets: >= 0.90x curl, < 64 MiB RSS growth)');
    console.log(table(rows));
    if (!curl) console.log('curl is not installed: the throughput ratio could not be measured.');
    else if (!curl.ok) console.log('curl failed: its time is not comparable.');
    return (ratio === undefined || ratio >= 0.9) && growth < 64 && (curl?.ok ?? true);
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
