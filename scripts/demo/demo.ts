// `npm run demo`: two example agents run end to end on this machine, with no account, key or
// internet, through the very pieces a real run uses: the local agent server (what
// `agent-workflows serve` starts) with the workflow engine inside it, and the service client and
// poller of the command line and the extension. The agents' API calls go to mock APIs on
// 127.0.0.1 (see mockApis.ts). Each step is printed; the demo exits 0 when both agents finished and
// every API call carried the expected credential, 1 otherwise (with the reason), and never runs for
// more than TIME_LIMIT_MS. Built to dist/demo.js by esbuild.mjs (not part of the extension package).
import { stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import { getStatus, startExecution, startMultipartExecution } from '../../src/core/service/agentClient';
import type { InputValues, StatusAnswer } from '../../src/core/service/agentClient';
import { mediaTypeOf } from '../../src/core/inputs/mediaTypes';
import { pollExecution } from '../../src/core/service/poller';
import { ServiceError } from '../../src/core/service/serviceError';
import type { AgentTarget } from '../../src/core/service/target';
import type { NodeTrace } from '../../src/core/engine/trace';
import { DEMO_SECRETS, describeCredential, startMockApis } from './mockApis';
import type { MockApis, MockCall } from './mockApis';

/** The whole demo, shutdown included, must end within this. */
const TIME_LIMIT_MS = 60_000;
/** Each mock API answers after this long, as over a network; it makes parallel nodes visible. */
const MOCK_LATENCY_MS = 250;
/** dist/demo.js → the repository's examples folder. */
const EXAMPLES_DIR = resolve(__dirname, '..', 'examples');
const RECEIPT_FILE = join(EXAMPLES_DIR, 'files', 'receipt.pdf');

/** A failure the demo explains itself (no stack trace needed). */
class DemoFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const say = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** The key's first characters only: enough to tell keys apart, useless to an onlooker. */
function maskKey(key: string): string {
  return `${key.slice(0, 4)}…${'•'.repeat(8)}`;
}

function indent(text: string, by: string): string {
  return text.split('\n').join(`\n${by}`);
}

async function main(): Promise<number> {
  const stop = new AbortController();
  const timer = setTimeout(() => {
    stop.abort(new DemoFailure(`the demo did not finish within ${TIME_LIMIT_MS / 1000} s`));
    // Aborting ends every request; should a step that takes no signal still hang, end anyway.
    setTimeout(() => {
      process.stderr.write(`\nDemo failed: it did not finish within ${TIME_LIMIT_MS / 1000} s and did not stop when asked.\n`);
      process.exit(1);
    }, 10_000).unref();
  }, TIME_LIMIT_MS);
  const onSignal = (): void => stop.abort(new DemoFailure('stopped by Ctrl-C', 130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let mocks: MockApis | undefined;
  let server: AgentServer | undefined;
  let failure: unknown;
  try {
    say('Agent Workflows demo: two example agents run end to end on this machine.');
    say('No account, API key or internet needed: every API the agents call is mocked on 127.0.0.1.');

    say();
    say('1. Mock APIs');
    mocks = await startMockApis({ latencyMs: MOCK_LATENCY_MS });
    say(`   ${mocks.url} answers for ${mocks.hosts.join(', ')}.`);
    say('   The agents keep their https:// URLs; the server routes every call they make here, so');
    say('   nothing leaves this machine. Each mock API checks its credential as the real one would.');

    say();
    say('2. Local agent server (what `agent-workflows serve examples` runs)');
    server = await startAgentServer({
      directory: EXAMPLES_DIR,
      host: '127.0.0.1',
      port: 0,
      // No apiKey: the server makes a random one for this session.
      secrets: async (name) => (DEMO_SECRETS as Readonly<Record<string, string>>)[name],
      secretHint: (name) => `the demo has no value for it: add ${name} to DEMO_SECRETS in scripts/demo/mockApis.ts`,
      engine: { dispatcher: mocks.dispatcher },
      watch: false,
      onEvent: (event) => {
        if (event.kind === 'execution-ended') {
          const { execution } = event;
          say(
            `   [server] execution ${execution.executionId} ${execution.account}/${execution.agent} ${execution.status}${execution.durationMs !== undefined ? ` in ${Math.round(execution.durationMs)} ms` : ''}`,
          );
        }
      },
    });
    const agents = server.agents();
    say(`   URL      ${server.url}`);
    say(`   API key  ${maskKey(server.apiKey)} (random, made for this session; clients send "Authorization: Bearer <key>")`);
    say(
      `   agents   ${agents.map((agent) => `${agent.account}/${agent.agent}`).join(', ')} (from ${relative(process.cwd(), EXAMPLES_DIR) || '.'})`,
    );
    say(`   secrets  made-up values for ${Object.keys(DEMO_SECRETS).join(', ')}`);
    const broken = agents.filter((agent) => agent.error !== undefined);
    if (broken.length)
      throw new DemoFailure(`example agents that cannot run:\n${broken.map((agent) => `  ${agent.file}: ${agent.error}`).join('\n')}`);

    const target = (agent: string): AgentTarget => ({
      baseUrl: server!.url,
      account: 'local',
      agent,
      apiKey: server!.apiKey,
      requestTimeoutMs: 10_000,
    });
    const signal = stop.signal;

    say();
    say('3. Customer 360 (examples/customer-360.agent.yaml): three lookups that do not depend on each other');
    const customer = target('customer-360');
    const customerInputs: InputValues = { customer_id: 'C-1042' };
    say(`   POST ${server.url}/api/local/agent/customer-360/execute  ${JSON.stringify({ inputs: customerInputs, stream: false })}`);
    const first = await startExecution(customer, customerInputs, { signal });
    say(`   execution id ${first.executionId}`);
    const customerRun = await watch(customer, first.executionId, signal);
    const lookups = customerRun.trace.filter((entry) => ['profile', 'invoices', 'tickets'].includes(entry.node));
    const overlapped =
      lookups.length === 3 &&
      Math.max(...lookups.map((entry) => Date.parse(entry.startedAt ?? ''))) <
        Math.min(...lookups.map((entry) => Date.parse(entry.endedAt ?? '')));
    if (overlapped)
      say(
        `   The three lookups ran in parallel: each took about ${MOCK_LATENCY_MS} ms, all three together ${Math.round(customerRun.durationMs)} ms.`,
      );
    const callsBefore = mocks.calls.length;
    printCalls(mocks.calls.slice(0, callsBefore));

    say();
    say('4. Receipt scanner (examples/receipt-scanner.agent.yaml): a file input, sent as multipart');
    const receipt = target('receipt-scanner');
    const receiptInputs: InputValues = { employee: 'E-314' };
    const size = (await stat(RECEIPT_FILE)).size;
    say(`   POST ${server.url}/api/local/agent/receipt-scanner/execute/multipart`);
    say(`        part "payload": ${JSON.stringify({ inputs: receiptInputs, stream: false })}`);
    say(
      `        part "receipt": ${relative(process.cwd(), RECEIPT_FILE)} (${size} bytes, ${mediaTypeOf(RECEIPT_FILE)}), streamed from disk`,
    );
    const second = await startMultipartExecution(receipt, receiptInputs, [{ field: 'receipt', path: RECEIPT_FILE }], { signal });
    say(`   execution id ${second.executionId}`);
    await watch(receipt, second.executionId, signal);
    printCalls(mocks.calls.slice(callsBefore));

    say();
    say('5. The server checks its key');
    try {
      await getStatus({ ...receipt, apiKey: 'not-the-key' }, second.executionId, { signal });
      throw new DemoFailure('the server answered a status request made with a wrong key');
    } catch (error) {
      if (!(error instanceof ServiceError) || error.kind !== 'auth') throw error;
      say(`   A status read with a wrong key is refused (${error.status ?? '?'} Unauthorized), as the cloud service would.`);
    }

    const refused = mocks.calls.filter((call) => call.credential === undefined || call.status >= 400);
    if (refused.length)
      throw new DemoFailure(
        `API calls that were refused:\n${refused.map((call) => `  ${call.method} https://${call.host}${call.path} answered ${call.status}`).join('\n')}`,
      );
    const callCount = mocks.calls.length;

    say();
    say('6. Shutting down');
    await server.close();
    server = undefined;
    say('   local agent server stopped');
    await mocks.close();
    mocks = undefined;
    say('   mock APIs stopped');

    say();
    say(`Demo finished: 2 agents ran through the local agent server; ${callCount} API calls, each with the expected credential.`);
    say('Next: check the examples with `node dist/cli.js validate examples`; examples/README.md says what each one shows.');
    return 0;
  } catch (error) {
    failure = error;
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server?.close().catch(() => undefined);
    await mocks?.close().catch(() => undefined);
  }
  // Said last, after the shutdown, so it is the line a reader sees. A cancelled request reports
  // only "cancelled"; the reason given to abort() says why.
  const reason: unknown = stop.signal.aborted && stop.signal.reason instanceof DemoFailure ? stop.signal.reason : failure;
  const message =
    reason instanceof DemoFailure || reason instanceof ServiceError
      ? reason.message
      : reason instanceof Error
        ? (reason.stack ?? reason.message)
        : String(reason);
  process.stderr.write(`\nDemo failed: ${message}\n`);
  return reason instanceof DemoFailure ? reason.exitCode : 1;
}

/** Polls an execution with the client's poller, printing each status read, then its trace and outputs. */
async function watch(
  target: AgentTarget,
  executionId: string,
  signal: AbortSignal,
): Promise<{ trace: readonly NodeTrace[]; durationMs: number }> {
  const outcome = await pollExecution(target, executionId, {
    signal,
    timeoutMs: 30_000,
    onUpdate: (answer, progress) => say(`   poll ${progress.requests} (${progress.elapsedMs} ms): ${answer.status}${nodeStates(answer)}`),
  });
  const body = outcome.answer.body;
  const trace = Array.isArray(body.trace) ? (body.trace as NodeTrace[]) : [];
  const durationMs = typeof body.durationMs === 'number' ? body.durationMs : 0;
  if (outcome.kind !== 'finished') {
    throw new DemoFailure(
      `execution ${executionId} ended "${outcome.status}": ${typeof body.error === 'string' ? body.error : JSON.stringify(body)}`,
    );
  }
  const startedAt = Date.parse(typeof body.startedAt === 'string' ? body.startedAt : '');
  say('   trace');
  for (const entry of trace) {
    const offset = entry.startedAt ? `+${Math.max(0, Date.parse(entry.startedAt) - startedAt)} ms` : '';
    const call = entry.type === 'api' ? `${entry.method ?? ''} ${entry.url ?? ''} → ${entry.httpStatus ?? '?'}` : 'template';
    say(
      `     ${entry.node.padEnd(10)} ${entry.status.padEnd(9)} started ${offset.padEnd(8)} took ${Math.round(entry.durationMs ?? 0)} ms  ${call}`,
    );
  }
  say(`   outputs ${indent(JSON.stringify(outcome.outputs, null, 2), '   ')}`);
  return { trace, durationMs };
}

/** " (profile running, invoices succeeded, …)" from a status answer's trace. */
function nodeStates(answer: StatusAnswer): string {
  const trace = answer.body.trace;
  if (!Array.isArray(trace) || trace.length === 0) return '';
  return `  (${(trace as NodeTrace[]).map((entry) => `${entry.node} ${entry.status}`).join(', ')})`;
}

function printCalls(calls: readonly MockCall[]): void {
  say('   what the mock APIs received (credentials shown by secret name, never by value)');
  const urls = calls.map((call) => `https://${call.host}${call.path}`);
  const width = Math.max(...urls.map((url) => url.length));
  calls.forEach((call, index) => {
    const sent = call.credential ? `${describeCredential(call.credential)} ✓` : 'no expected credential ✗';
    const body = call.body.length ? ` (sent ${call.body.length} bytes of ${String(call.headers['content-type'] ?? '').split(';')[0]})` : '';
    say(`     ${call.method.padEnd(4)} ${urls[index]!.padEnd(width)}  ${sent}  → ${call.status}${body}`);
  });
}

void main().then((code) => {
  process.exitCode = code;
  // Everything is closed by now; should anything still hold the process open, do not hang.
  setTimeout(() => {
    process.stderr.write('The demo left something open; exiting anyway.\n');
    process.exit(code);
  }, 5_000).unref();
});
