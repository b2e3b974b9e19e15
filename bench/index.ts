// `npm run bench`: every benchmark, each reporting against a reference measured in the same run.
//   npm run bench                 all
//   npm run bench -- validation   only the named ones (validation, multipart, polling, server,
//                                 flood, agent-tests, cli, activation, web-activation, batch,
//                                 exchange-view, exchange-view-editor,
//                                 exchange-recording, graph, openapi, send, fuzz,
//                                 redaction, debug, compare, lsp, mcp, pretty-json)
import { runActivationBenchmark } from './activation';
import { runBatchBenchmark } from './batch';
import { runAgentTestsBenchmark } from './agentTests';
import { runCliBenchmark } from './cli';
import { runCompareBenchmark } from './compare';
import { runDebugBenchmark } from './debug';
import { runGraphBenchmark } from './graph';
import { runLspBenchmark } from './lsp';
import { runMcpBenchmark } from './mcp';
import { runExchangeRecordingBenchmark } from './exchangeRecording';
import { runExchangeViewBenchmark } from './exchangeView';
import { runExchangeViewEditorBenchmark } from './exchangeViewEditor';
import { runFuzzBenchmark } from './fuzz';
import { runMultipartBenchmark } from './multipart';
import { runOpenApiBenchmark } from './openApi';
import { runPollingBenchmark } from './polling';
import { runPrettyJsonBenchmark } from './prettyJson';
import { runRedactionBenchmark } from './redaction';
import { runSendBenchmark } from './send';
import { runServerBenchmark } from './server';
import { runServerFloodBenchmark } from './serverFlood';
import { runValidationBenchmark } from './validate';

const benchmarks: Record<string, () => boolean | Promise<boolean>> = {
  validation: runValidationBenchmark,
  multipart: runMultipartBenchmark,
  polling: () => runPollingBenchmark(),
  server: runServerBenchmark,
  flood: runServerFloodBenchmark,
  'agent-tests': runAgentTestsBenchmark,
  cli: runCliBenchmark,
  activation: () => runActivationBenchmark(),
  'web-activation': () => runActivationBenchmark({ web: true }),
  batch: runBatchBenchmark,
  graph: runGraphBenchmark,
  openapi: runOpenApiBenchmark,
  'exchange-view': runExchangeViewBenchmark,
  'exchange-view-editor': runExchangeViewEditorBenchmark,
  send: runSendBenchmark,
  'exchange-recording': runExchangeRecordingBenchmark,
  fuzz: runFuzzBenchmark,
  redaction: runRedactionBenchmark,
  debug: runDebugBenchmark,
  compare: runCompareBenchmark,
  lsp: runLspBenchmark,
  mcp: runMcpBenchmark,
  'pretty-json': runPrettyJsonBenchmark,
};

void (async () => {
  const wanted = process.argv.slice(2);
  const names = wanted.length ? wanted : Object.keys(benchmarks);
  const results: Array<{ name: string; ok: boolean }> = [];
  for (const name of names) {
    const run = benchmarks[name];
    if (!run) {
      console.error(`unknown benchmark "${name}"; choose from ${Object.keys(benchmarks).join(', ')}`);
      process.exitCode = 2;
      return;
    }
    results.push({ name, ok: await run() });
    console.log('');
  }
  for (const result of results) console.log(`${result.ok ? 'met' : 'MISSED'}: ${result.name} target`);
  process.exitCode = results.every((result) => result.ok) ? 0 : 1;
})();
