// The client side of the upload benchmark, in a process of its own so that its memory is measured
// alone, whatever ran before it: uploads the file given on the command line with
// startMultipartExecution and prints {executionId, seconds, baselineMiB, growthMiB} as JSON.
//   node --expose-gc out/bench/uploadClient.js <baseUrl> <file>
import { startMultipartExecution } from '../src/core/service/agentClient';

const MIB = 1024 * 1024;

void (async () => {
  const [baseUrl, file] = process.argv.slice(2);
  if (!baseUrl || !file) {
    process.stderr.write('usage: uploadClient.js <baseUrl> <file>\n');
    process.exitCode = 2;
    return;
  }
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = process.hrtime.bigint();
  try {
    const { executionId } = await startMultipartExecution(
      { baseUrl, account: 'bench', agent: 'upload', apiKey: 'bench-key' },
      { note: 'benchmark "upload" ✓' },
      [{ field: 'document', path: file }],
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    peak = Math.max(peak, process.memoryUsage().rss);
    process.stdout.write(`${JSON.stringify({ executionId, seconds, baselineMiB: baseline / MIB, growthMiB: (peak - baseline) / MIB })}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    clearInterval(sampler);
  }
})();
