// The agent debugger at the protocol level: the built command line's `agent-workflows dap` driven
// over stdio by @vscode/debugadapter-testsupport's DebugClient, against real HTTP servers on
// 127.0.0.1. Every wait is on an event of the protocol (or the server), never a fixed sleep.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { DebugMessageReader, MAX_DEBUG_HEADER_BYTES } from '../../src/cli/dapFraming';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { leakedPart } from '../support/echoedSecrets';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const TOKEN = 'debug-secret-token-123456';

/** The built `agent-workflows dap`, spoken to over its stdin and stdout. */
class CliDebugClient extends DebugClient {
  private child: ChildProcess | undefined;
  private readonly queues = new Map<string, DebugProtocol.Event[]>();
  private readonly waiters = new Map<string, ((event: DebugProtocol.Event) => void)[]>();
  stderr = '';
  /** Every byte the adapter wrote to stdout: each message, as the client read it. */
  stdout = '';

  constructor() {
    super(process.execPath, join(repoRoot, 'dist', 'cli.js'), 'agent-workflow');
    // Every event is kept until a test takes it: none is missed between two requests.
    for (const name of ['stopped', 'output', 'thread', 'terminated', 'exited', 'breakpoint'])
      this.on(name, (event: DebugProtocol.Event) => {
        const waiting = this.waiters.get(name)?.shift();
        if (waiting) waiting(event);
        else this.queues.set(name, [...(this.queues.get(name) ?? []), event]);
      });
  }

  startCli(cwd: string, env: Record<string, string> = {}): void {
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'dap'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child = child;
    this.connect(child.stdout, child.stdin);
  }

  /** The next event of that name (one that came already, or the next to come). */
  next<T extends DebugProtocol.Event>(name: string, timeoutMs = 8000): Promise<T> {
    const queued = this.queues.get(name)?.shift();
    if (queued) return Promise.resolve(queued as T);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${name}" event within ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
      const waiters = this.waiters.get(name) ?? [];
      waiters.push((event) => {
        clearTimeout(timer);
        resolve(event as T);
      });
      this.waiters.set(name, waiters);
    });
  }

  /** Output events until one matches. */
  async outputMatching(pattern: RegExp): Promise<string> {
    for (;;) {
      const event = await this.next<DebugProtocol.OutputEvent>('output');
      if (pattern.test(event.body.output)) return event.body.output;
    }
  }

  /** Bytes written to the adapter's stdin as they are, beside the client's own messages. */
  writeRaw(bytes: string | Buffer): Promise<void> {
    const stdin = this.child!.stdin!;
    return new Promise((resolve, reject) => stdin.write(bytes, (error) => (error ? reject(error) : resolve())));
  }

  /** The adapter process's peak resident memory (VmHWM), on Linux; undefined elsewhere. */
  peakResidentBytes(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.child!.pid}/status`, 'utf8');
      const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
      return kib === undefined ? undefined : Number(kib) * 1024;
    } catch {
      return undefined;
    }
  }

  /** Disconnects and waits for the process to end. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = child.exitCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await this.disconnectRequest({}).catch(() => undefined);
    if (child.exitCode === null) child.stdin?.end();
    await exited;
  }
}

describe('agent debugger (agent-workflows dap)', function () {
  this.timeout(20_000);
  let dir: TempDir;
  let server: TestServer;
  let client: CliDebugClient;
  /** A request the server holds without answering: it arrived, and its connection closed. */
  let hung: { arrived: Promise<void>; closed: Promise<void> };
  /** A request answered only when the test says: it arrived, and the answer to give. */
  let gated: { arrived: Promise<void>; answer: () => void };

  beforeEach(async () => {
    dir = makeTempDir();
    let arrive!: () => void;
    let close!: () => void;
    hung = { arrived: new Promise((resolve) => (arrive = resolve)), closed: new Promise((resolve) => (close = resolve)) };
    let gateArrived!: () => void;
    let gateOpen!: () => void;
    const opened = new Promise<void>((resolve) => (gateOpen = resolve));
    gated = { arrived: new Promise((resolve) => (gateArrived = resolve)), answer: gateOpen };
    server = await startServer(async (request, response, body) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.pathname === '/gate') {
        gateArrived();
        await opened;
        return json(response, 200, { gated: true });
      }
      if (url.pathname === '/hang') {
        request.socket.once('close', close);
        arrive();
        return;
      }
      if (url.pathname === '/missing') return json(response, 404, { error: 'no such thing' });
      json(response, 200, {
        path: url.pathname,
        auth: request.headers.authorization ?? null,
        body: body.length ? body.toString() : null,
        items: Array.from({ length: 250 }, (_, index) => ({ id: index })),
        long: 'x'.repeat(5000),
      });
    });
    client = new CliDebugClient();
    client.startCli(dir.path, { AGENT_SECRET_TOKEN: TOKEN });
  });

  afterEach(async () => {
    await client.close();
    await server.close();
    dir.remove();
  });

  function agent(name: string, yaml: string): string {
    return dir.write(name, yaml);
  }

  const LOOKUP = (url: string): string => `version: 1
name: Lookup
inputs:
  customer: { type: string }
nodes:
  lookup:
    type: api
    method: POST
    url: ${url}/customers/{{ inputs.customer }}
    settings:
      - "Authorization: Bearer {{ secrets.TOKEN }}"
    body: { id: "{{ inputs.customer }}" }
  greet:
    type: template
    text: "Found {{ nodes.lookup.body.path }}"
outputs:
  text: { from: "{{ nodes.greet.body }}" }
`;

  /** initialize, the breakpoints, configurationDone and launch, in the order VS Code sends them. */
  async function launch(args: Record<string, unknown>, breakpoints?: { path: string; lines: number[] }): Promise<void> {
    await client.initializeRequest({ adapterID: 'agent-workflow', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    const launched = client.launchRequest(args as DebugProtocol.LaunchRequestArguments);
    if (breakpoints)
      await client.setBreakpointsRequest({
        source: { path: breakpoints.path },
        breakpoints: breakpoints.lines.map((line) => ({ line })),
      });
    await client.configurationDoneRequest();
    await launched;
  }

  async function variablesOf(reference: number, extra: Partial<DebugProtocol.VariablesArguments> = {}): Promise<DebugProtocol.Variable[]> {
    return (await client.variablesRequest({ variablesReference: reference, ...extra })).body.variables;
  }

  async function scopeOf(frameId: number, name: string): Promise<DebugProtocol.Variable[]> {
    const scopes = (await client.scopesRequest({ frameId })).body.scopes;
    const scope = scopes.find((candidate) => candidate.name === name);
    assert.ok(scope, `a ${name} scope among ${scopes.map((candidate) => candidate.name).join(', ')}`);
    return variablesOf(scope.variablesReference);
  }

  it('refuses to launch an agent with errors, listing its problems', async () => {
    const program = agent(
      'broken.agent.yaml',
      'version: 1\nname: Broken\nnodes:\n  a:\n    type: template\n    text: "{{ inputs.nope }}"\n',
    );
    await client.initializeRequest();
    await assert.rejects(client.launchRequest({ program } as DebugProtocol.LaunchRequestArguments), /unknown-input/);
  });

  it('refuses to launch when a secret is missing, naming its variable', async () => {
    await client.close();
    client = new CliDebugClient();
    client.startCli(dir.path);
    const program = agent('lookup.agent.yaml', LOOKUP(server.url));
    await client.initializeRequest();
    await assert.rejects(
      client.launchRequest({ program, inputs: { customer: 'C1' } } as DebugProtocol.LaunchRequestArguments),
      /Secret "TOKEN" is not set: set the environment variable AGENT_SECRET_TOKEN/,
    );
  });

  it('binds a breakpoint on any line of a node to the node, and leaves a line outside every node unverified', async () => {
    const program = agent('lookup.agent.yaml', LOOKUP(server.url));
    await client.initializeRequest();
    const answer = await client.setBreakpointsRequest({
      source: { path: program },
      breakpoints: [{ line: 8 }, { line: 12 }, { line: 3 }, { line: 15 }, { line: 16 }],
    });
    const shown = answer.body.breakpoints.map((breakpoint) => [breakpoint.verified, breakpoint.line]);
    assert.deepEqual(shown, [
      [true, 6],
      [true, 6],
      [false, 3],
      [true, 13],
      [false, 16],
    ]);
    assert.match(answer.body.breakpoints[2]!.message ?? '', /Line 3 is not inside a node/);
  });

  it('stops before an API node with its request built, shows it, and sends the request as changed', async () => {
    const program = agent('lookup.agent.yaml', LOOKUP(server.url));
    await launch({ program, inputs: { customer: 'C1' } }, { path: program, lines: [7] });
    const stopped = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'breakpoint');
    assert.equal(server.requests.length, 0, 'nothing sent while held');
    const thread = stopped.body.threadId!;
    const threads = (await client.threadsRequest()).body.threads;
    assert.ok(threads.some((candidate) => candidate.id === thread && candidate.name.startsWith('lookup')));
    const stack = (await client.stackTraceRequest({ threadId: thread })).body.stackFrames;
    assert.equal(stack[0]!.line, 6);
    assert.match(stack[0]!.name, /^lookup \(before POST http:\/\/127\.0\.0\.1:\d+\/customers\/C1\)$/);

    const frame = stack[0]!.id;
    const inputs = await scopeOf(frame, 'Inputs');
    assert.deepEqual(
      inputs.map((variable) => [variable.name, variable.value]),
      [['customer', '"C1"']],
    );
    const secrets = await scopeOf(frame, 'Secrets');
    assert.deepEqual(
      secrets.map((variable) => [variable.name, variable.value]),
      [['TOKEN', '•••']],
    );
    const request = await scopeOf(frame, 'Request');
    const field = (name: string): DebugProtocol.Variable => request.find((variable) => variable.name === name)!;
    assert.equal(field('method').value, 'POST');
    assert.equal(field('url').value, JSON.stringify(`${server.url}/customers/C1`));
    const headers = await variablesOf(field('headers').variablesReference);
    assert.equal(headers.find((header) => header.name === 'Authorization')?.value, '"Bearer {{ secrets.TOKEN }}"');

    // Set Value: the URL, a header (its secret by reference) and the body, before it is sent.
    const scopes = (await client.scopesRequest({ frameId: frame })).body.scopes;
    const requestScope = scopes.find((scope) => scope.name === 'Request')!.variablesReference;
    await client.setVariableRequest({ variablesReference: requestScope, name: 'url', value: `${server.url}/customers/C2` });
    await client.setVariableRequest({
      variablesReference: field('headers').variablesReference,
      name: 'Authorization',
      value: 'Token {{ secrets.TOKEN }}',
    });
    await client.setVariableRequest({ variablesReference: requestScope, name: 'body', value: '{"id":"C2"}' });
    await assert.rejects(
      client.setVariableRequest({ variablesReference: requestScope, name: 'url', value: 'ftp://elsewhere/' }),
      /must be http:\/\/ or https:\/\//,
    );

    await client.continueRequest({ threadId: thread });
    await client.next('terminated');
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0]!.url, '/customers/C2');
    assert.equal(server.requests[0]!.headers.authorization, `Token ${TOKEN}`);
    assert.equal(server.requests[0]!.body.toString(), '{"id":"C2"}');
    const output = await client.outputMatching(/Outputs/);
    assert.match(output, /Found \/customers\/C2/);
    assert.ok(!output.includes(TOKEN));
  });

  it('prints long outputs cut as the results channel cuts them, saying how much more there was', async () => {
    const program = agent(
      'big.agent.yaml',
      `version: 1\nname: Big\nnodes:\n  lookup:\n    type: api\n    method: GET\n    url: ${server.url}/big\noutputs:\n  all: { from: "{{ nodes.lookup.body }}" }\n`,
    );
    await launch({ program });
    await client.next('terminated');
    const output = await client.outputMatching(/^Outputs: /);
    // The answer is about 12,000 characters pretty: 250 items and a string of 5,000.
    assert.ok(output.length < 4000 + 200, `${output.length} characters`);
    assert.match(output, /^Outputs: \{\n {2}"all": \{/);
    assert.match(output, /\n… \(\d+ more characters\)\n?$/);
  });

  it('steps: Step Into an API node stops with its answer, Step Over stops before the next node; values are paged and cut', async () => {
    const program = agent('lookup.agent.yaml', LOOKUP(server.url));
    await launch({ program, inputs: { customer: 'C1' }, stopOnEntry: true });
    const entry = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(entry.body.reason, 'entry');
    await client.stepInRequest({ threadId: entry.body.threadId! });
    const answered = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(answered.body.reason, 'step');
    assert.equal(answered.body.threadId, entry.body.threadId);
    assert.equal(server.requests.length, 1, 'the request was sent');
    const frame = (await client.stackTraceRequest({ threadId: answered.body.threadId! })).body.stackFrames[0]!;
    assert.match(frame.name, /lookup \(answered 200\)/);
    const response = await scopeOf(frame.id, 'Response');
    const body = response.find((variable) => variable.name === 'body')!;
    const fields = await variablesOf(body.variablesReference);
    const items = fields.find((variable) => variable.name === 'items')!;
    assert.equal(items.indexedVariables, 250, 'a big list is paged');
    assert.equal(items.evaluateName, 'nodes.lookup.body.items');
    const page = await variablesOf(items.variablesReference, { filter: 'indexed', start: 200, count: 3 });
    assert.deepEqual(
      page.map((variable) => variable.name),
      ['[200]', '[201]', '[202]'],
    );
    const long = fields.find((variable) => variable.name === 'long')!;
    assert.match(long.value, /^"x{1000}…" \(5,000 characters\)$/);
    const auth = fields.find((variable) => variable.name === 'auth')!;
    assert.equal(auth.value, '"Bearer {{ secrets.TOKEN }}"', 'an echoed secret is shown by name');

    await client.nextRequest({ threadId: answered.body.threadId! });
    const next = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(next.body.reason, 'step');
    const greet = (await client.stackTraceRequest({ threadId: next.body.threadId! })).body.stackFrames;
    assert.deepEqual(
      greet.map((stackFrame) => [stackFrame.name, stackFrame.line]),
      [
        ['greet (before it runs)', 13],
        ['lookup (used by greet)', 6],
      ],
    );
    // The Debug Console: a bare path, and {{ }}.
    const id = await client.evaluateRequest({ expression: 'nodes.lookup.body.items[7].id', frameId: greet[0]!.id, context: 'repl' });
    assert.equal(id.body.result, '7');
    const path = await client.evaluateRequest({
      expression: 'Path: {{ nodes.lookup.body.path }}',
      frameId: greet[0]!.id,
      context: 'watch',
    });
    assert.equal(path.body.result, '"Path: /customers/C1"');
    await assert.rejects(
      client.evaluateRequest({ expression: 'nodes.nothing.body', context: 'repl' }),
      /^Error: \{\{ nodes\.nothing\.body \}\} points at nothing: node "nothing" has no result/,
    );
    const nodes = await scopeOf(greet[0]!.id, 'Nodes');
    assert.deepEqual(
      nodes.map((variable) => [variable.name, variable.value]),
      [['lookup', 'succeeded 200']],
    );
    await client.continueRequest({ threadId: next.body.threadId! });
    await client.next('terminated');
  });

  it('stops on an answer of 400 or more with the exception breakpoint, before the run stops', async () => {
    const program = agent(
      'missing.agent.yaml',
      `version: 1
name: Missing
nodes:
  fetch:
    type: api
    method: GET
    url: ${server.url}/missing
`,
    );
    await client.initializeRequest();
    const launched = client.launchRequest({ program } as DebugProtocol.LaunchRequestArguments);
    await client.setExceptionBreakpointsRequest({ filters: ['httpStatus'] });
    await client.configurationDoneRequest();
    await launched;
    const stopped = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'exception');
    assert.match(stopped.body.text ?? '', /answered 404/);
    const info = await client.exceptionInfoRequest({ threadId: stopped.body.threadId! });
    assert.equal(info.body.exceptionId, 'status');
    await client.continueRequest({ threadId: stopped.body.threadId! });
    const exited = await client.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 1);
  });

  it('shows nodes running together as threads: one held, the other runs to its end', async () => {
    const program = agent(
      'both.agent.yaml',
      `version: 1
name: Both
nodes:
  held:
    type: api
    method: GET
    url: ${server.url}/held
  free:
    type: api
    method: GET
    url: ${server.url}/free
`,
    );
    await launch({ program }, { path: program, lines: [4] });
    const stopped = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.allThreadsStopped, false);
    // The other node's thread starts and exits while the held one stays stopped.
    const seen: string[] = [];
    while (!seen.includes(`exited`)) {
      const event = await client.next<DebugProtocol.ThreadEvent>('thread');
      if (event.body.threadId !== stopped.body.threadId) seen.push(event.body.reason);
    }
    assert.ok(server.requests.some((request) => request.url === '/free'));
    assert.ok(!server.requests.some((request) => request.url === '/held'));
    await client.continueRequest({ threadId: stopped.body.threadId! });
    await client.next('terminated');
    assert.ok(server.requests.some((request) => request.url === '/held'));
  });

  it('Stop cancels a request that never answers', async () => {
    const program = agent(
      'hang.agent.yaml',
      `version: 1
name: Hang
nodes:
  wait:
    type: api
    method: GET
    url: ${server.url}/hang
`,
    );
    await launch({ program });
    await hung.arrived;
    await client.terminateRequest({});
    await client.next('terminated');
    await hung.closed;
  });

  it('runs a test case with its mocks, breakpoints honoured, and conditions, hit counts and logpoints', async () => {
    const program = agent(
      'greeter.agent.yaml',
      `version: 1
name: Greeter
inputs:
  who: { type: string }
nodes:
  profile:
    type: api
    method: GET
    url: https://profiles.example.com/{{ inputs.who }}
  greet:
    type: template
    text: "Hello {{ nodes.profile.body.title }} {{ inputs.who }}"
outputs:
  greeting: { from: "{{ nodes.greet.body }}" }
`,
    );
    dir.write(
      'greeter.agent.test.yaml',
      `cases:
  known person:
    inputs: { who: Ada }
    mocks:
      profile: { body: { title: Countess } }
    expect:
      outputs:
        greeting: Hello Countess Ada
`,
    );
    await client.initializeRequest();
    const launched = client.launchRequest({ testCase: 'greeter.agent.test.yaml#known person' } as DebugProtocol.LaunchRequestArguments);
    await client.setBreakpointsRequest({
      source: { path: program },
      breakpoints: [
        { line: 6, logMessage: 'profile of {{ inputs.who }}' },
        { line: 10, condition: 'nodes.profile.body.title == Countess', hitCondition: '1' },
        { line: 11, condition: 'inputs.who == Bob' },
      ],
    });
    await client.configurationDoneRequest();
    await launched;
    await client.outputMatching(/^profile of Ada\n$/);
    const stopped = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'breakpoint');
    assert.equal(stopped.body.hitBreakpointIds?.length, 1);
    await client.continueRequest({ threadId: stopped.body.threadId! });
    await client.outputMatching(/Case "known person" passed/);
    await client.next('terminated');
  });

  it('refuses launch configurations it cannot use, saying what to change', async () => {
    agent('greeter.agent.yaml', 'version: 1\nname: G\nnodes:\n  a:\n    type: template\n    text: hi\n');
    dir.write('greeter.agent.test.yaml', 'cases:\n  one:\n    expect:\n      outputs: {}\n');
    await client.initializeRequest();
    const refusal = (args: Record<string, unknown>): Promise<unknown> => client.launchRequest(args as DebugProtocol.LaunchRequestArguments);
    await assert.rejects(refusal({}), /needs "program": the path of the \.agent\.yaml file/);
    await assert.rejects(refusal({ program: 'nowhere.agent.yaml' }), /The agent file cannot be read/);
    await assert.rejects(refusal({ program: 'greeter.agent.yaml', inputs: [1] }), /"inputs" must be an object/);
    await assert.rejects(refusal({ program: 'greeter.agent.yaml', inputs: { nope: 1 } }), /The inputs cannot be used: .*nope/);
    await assert.rejects(refusal({ testCase: 'greeter.agent.test.yaml' }), /"testCase" must be "file\.agent\.test\.yaml#case name"/);
    await assert.rejects(refusal({ testCase: 'greeter.agent.test.yaml#two' }), /has no case named "two"\. Its cases: "one"/);
    await assert.rejects(refusal({ program: 'greeter.agent.yaml', stopOnEntry: 'yes' }), /"stopOnEntry" must be true or false/);
    // The adapter is still there and answers.
    assert.ok((await client.threadsRequest()).success);
  });

  it('reads the files of a launch configuration only from the folder it was started in', async () => {
    const program = agent(
      'file.agent.yaml',
      'version: 1\nname: F\ninputs:\n  doc: { type: file }\nnodes:\n  a:\n    type: template\n    text: "got {{ inputs.doc }}"\noutputs:\n  o: { from: "{{ nodes.a.body }}" }\n',
    );
    dir.write('data/doc.txt', 'inside');
    const elsewhere = makeTempDir();
    try {
      const secret = elsewhere.write('id_rsa', 'private');
      symlinkSync(secret, join(dir.path, 'data', 'link.txt'));
      await client.initializeRequest();
      const refusal = (files: Record<string, string>, extra: Record<string, unknown> = {}): Promise<unknown> =>
        client.launchRequest({ program, files, ...extra } as DebugProtocol.LaunchRequestArguments);
      const hint = /start "agent-workflows dap" in a folder that holds /;
      await assert.rejects(refusal({ doc: secret }), (error: Error) => {
        assert.match(
          error.message,
          /The file for input "doc" is not read: the file ".*id_rsa" is outside the launch configuration's folder/,
        );
        assert.match(error.message, hint);
        return true;
      });
      // Its own "cwd" does not widen where files come from.
      await assert.rejects(refusal({ doc: 'id_rsa' }, { cwd: elsewhere.path }), /outside the launch configuration's folder/);
      await assert.rejects(refusal({ doc: 'data/link.txt' }), /is a link to .*id_rsa, outside the launch configuration's folder/);
      // Inside the folder, by a relative path or an absolute one (as ${workspaceFolder} gives), it is read.
      const launched = client.launchRequest({
        program,
        files: { doc: join(dir.path, 'data', 'doc.txt') },
      } as DebugProtocol.LaunchRequestArguments);
      await client.configurationDoneRequest();
      await launched;
      await client.outputMatching(/doc\.txt\\?",\\?"size\\?":6/);
      await client.next('terminated');
    } finally {
      elsewhere.remove();
    }
  });

  it('Pause stops an API node with its answer; Set Value on an input changes what later nodes use', async () => {
    const program = agent(
      'gate.agent.yaml',
      `version: 1
name: Gate
inputs:
  word: { type: string }
nodes:
  wait:
    type: api
    method: GET
    url: ${server.url}/gate
  echo:
    type: api
    method: POST
    url: ${server.url}/echo
    body: { word: "{{ inputs.word }}", gated: "{{ nodes.wait.body.gated }}" }
`,
    );
    await launch({ program, inputs: { word: 'before' } });
    await gated.arrived;
    const thread = (await client.threadsRequest()).body.threads.find((candidate) => candidate.name.startsWith('wait'))!.id;
    await client.pauseRequest({ threadId: thread });
    gated.answer();
    const paused = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(paused.body.reason, 'pause');
    assert.equal(paused.body.threadId, thread);
    const frame = (await client.stackTraceRequest({ threadId: thread })).body.stackFrames[0]!.id;
    const inputs = (await client.scopesRequest({ frameId: frame })).body.scopes.find((scope) => scope.name === 'Inputs')!;
    const set = await client.setVariableRequest({ variablesReference: inputs.variablesReference, name: 'word', value: 'after' });
    assert.equal(set.body.value, '"after"');
    await assert.rejects(
      client.setVariableRequest({ variablesReference: inputs.variablesReference, name: 'nope', value: '1' }),
      /The agent has no input "nope"/,
    );
    await client.continueRequest({ threadId: thread });
    await client.next('terminated');
    const echo = server.requests.find((request) => request.url === '/echo');
    assert.equal(echo?.body.toString(), '{"word":"after","gated":true}');
  });

  it('never shows a secret in a header name or in the error of a Set Value, in any of its forms', async () => {
    // Letters of both cases: the URL parser lower-cases a scheme, and answers' header names are lower case.
    const secret = 's3cr3t-T0ken-QWXZKJVN';
    await client.close();
    client = new CliDebugClient();
    client.startCli(dir.path, { AGENT_SECRET_TOKEN: secret });
    // Validation refuses a {{ }} in a header name: a name holds a secret only where it is written out.
    const program = agent(
      'named.agent.yaml',
      LOOKUP(server.url).replace('      - "Authorization', `      - "X-${secret}: v"\n      - "Authorization`),
    );
    await launch({ program, inputs: { customer: 'C1' } }, { path: program, lines: [7] });
    const stopped = await client.next<DebugProtocol.StoppedEvent>('stopped');
    const thread = stopped.body.threadId!;
    const frame = (await client.stackTraceRequest({ threadId: thread })).body.stackFrames[0]!.id;
    const request = await scopeOf(frame, 'Request');
    const headersReference = request.find((variable) => variable.name === 'headers')!.variablesReference;
    const headers = await variablesOf(headersReference);
    assert.deepEqual(
      headers.filter((header) => header.name.startsWith('X-')).map((header) => [header.name, header.value]),
      [['X-{{ secrets.TOKEN }}', '"v"']],
    );
    // Set Value on the header as it is shown reaches the header itself.
    const changed = await client.setVariableRequest({ variablesReference: headersReference, name: 'X-{{ secrets.TOKEN }}', value: 'w' });
    assert.equal(changed.body.value, '"w"');

    const requestScope = (await client.scopesRequest({ frameId: frame })).body.scopes.find((scope) => scope.name === 'Request')!;
    const errors: string[] = [];
    for (const value of ['{{ secrets.TOKEN }}', 'ftp{{ secrets.TOKEN }}://x/']) {
      const refused = await client.setVariableRequest({ variablesReference: requestScope.variablesReference, name: 'url', value }).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      assert.ok(refused !== undefined, `Set Value of the url to ${value} is refused`);
      errors.push(refused);
    }
    assert.match(errors[0]!, /^"\{\{ secrets\.TOKEN \}\}" is not a valid URL/);
    assert.match(errors[1]!, /must be http:\/\/ or https:\/\/, not ftp\{\{ secrets\.TOKEN \}\}:\/\//);
    await assert.rejects(
      client.setVariableRequest({ variablesReference: headersReference, name: `Y-{{ secrets.TOKEN }}`, value: 'x' }),
      /"Y-\{\{ secrets\.TOKEN \}\}" is not a valid header name/,
    );

    await client.continueRequest({ threadId: thread });
    await client.next('terminated');
    assert.equal(server.requests[0]?.headers[`x-${secret.toLowerCase()}`], 'w', 'the header was sent, as changed');
    for (const [where, text] of [
      ['errors', errors.join('\n')],
      ['stdout', client.stdout],
      ['stderr', client.stderr],
    ] as const)
      assert.equal(leakedPart(text, secret), undefined, `no part of the secret in the adapter's ${where}`);
  });

  it('a launch that fails never quotes a secret the launch configuration gives', async () => {
    const secret = 's3cr3t-T0ken-QWXZKJVN';
    const program = agent('count.agent.yaml', LOOKUP(server.url).replace('customer: { type: string }', 'customer: { type: number }'));
    await client.initializeRequest();
    // The secret given in the wrong field: the input check quotes the value it refuses.
    const refused = await client
      .launchRequest({ program, inputs: { customer: secret }, secrets: { TOKEN: secret } } as DebugProtocol.LaunchRequestArguments)
      .then(
        () => 'launched',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    assert.match(refused, /Input "customer" must be a number, not "\{\{ secrets\.TOKEN \}\}"/);
    await client.next('terminated');
    assert.equal(leakedPart(client.stdout, secret), undefined, "no part of the secret in the adapter's stdout");
  });

  it('Restart reads the agent file again: an edit is picked up, breakpoints bound to its new lines', async () => {
    const program = agent('lookup.agent.yaml', LOOKUP(server.url));
    await launch({ program, inputs: { customer: 'C1' }, stopOnEntry: true }, { path: program, lines: [14] });
    const entry = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(entry.body.reason, 'entry');
    // Two comment lines at the top move every node two lines down; the URL changes.
    agent('lookup.agent.yaml', `# edited\n# twice\n${LOOKUP(server.url).replace('/customers/', '/clients/')}`);
    // A stop after the edit says the lines are stale.
    await client.nextRequest({ threadId: entry.body.threadId! });
    const stepped = await client.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal((await client.stackTraceRequest({ threadId: stepped.body.threadId! })).body.stackFrames[0]!.line, 13);
    await client.outputMatching(/lookup\.agent\.yaml changed since this session started: .* Restart to run the file as it is now/);
    const rebound = client.next<DebugProtocol.BreakpointEvent>('breakpoint');
    await client.restartRequest({});
    assert.equal((await rebound).body.breakpoint.line, 8, 'line 14 is now in the block of lookup, whose id is on line 8');
    const second = await client.next<DebugProtocol.StoppedEvent>('stopped');
    const frame = (await client.stackTraceRequest({ threadId: second.body.threadId! })).body.stackFrames[0]!;
    assert.match(frame.name, /^lookup \(before POST .*\/clients\/C1\)$/);
    assert.equal(frame.line, 8);
    await client.continueRequest({ threadId: second.body.threadId! });
    await client.next('terminated');
    assert.ok(server.requests.some((request) => request.url === '/clients/C1'));
  });
});

describe('agent debugger (agent-workflows dap): messages it cannot read', function () {
  this.timeout(30_000);
  let dir: TempDir;
  let client: CliDebugClient;

  beforeEach(() => {
    dir = makeTempDir();
    client = new CliDebugClient();
    client.startCli(dir.path);
  });

  afterEach(async () => {
    await client.close();
    dir.remove();
  });

  /** A message framed as the base protocol frames it. */
  const framed = (body: string): string => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  /** Writes `bytes` of "x" in chunks, each once the last was taken. */
  async function writeFiller(bytes: number): Promise<void> {
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    for (let written = 0; written < bytes; written += chunk.length)
      await client.writeRaw(chunk.subarray(0, Math.min(chunk.length, bytes - written)));
  }

  it('says what is wrong with a message that is not JSON, or not a message, and answers the next one', async () => {
    await client.writeRaw('Content-Length: 10\r\n\r\n{not json}');
    assert.match(
      await client.outputMatching(/skipped/),
      /A message of 10 bytes was skipped: it is not JSON\. Each message is "Content-Length: N"/,
    );
    await client.writeRaw(framed('[1, 2]'));
    assert.match(await client.outputMatching(/skipped/), /it is not an object with a "type" .* and a numeric "seq"/);
    await client.writeRaw(framed('{"seq": 1, "type": "request"}'));
    assert.match(await client.outputMatching(/skipped/), /a request also names its "command"/);
    await client.writeRaw('Content-Length: ten\r\n\r\n');
    assert.match(await client.outputMatching(/skipped/), /its Content-Length, "ten", is not a number of bytes/);
    await client.writeRaw('Content-Type: application/json\r\n\r\n');
    assert.match(await client.outputMatching(/skipped/), /it has no "Content-Length"/);
    // The session goes on: a request is answered, and the adapter said each on stderr too.
    assert.ok((await client.initializeRequest()).success);
    assert.ok((await client.threadsRequest()).success);
    assert.match(client.stderr, /agent-workflows dap: A message of 10 bytes was skipped: it is not JSON/);
  });

  it('refuses a message over the bound from its header, without holding it, and reads the next one', async () => {
    await client.initializeRequest();
    const before = client.peakResidentBytes();
    const declared = 40 * 1024 * 1024;
    await client.writeRaw(`Content-Length: ${declared}\r\n\r\n`);
    // Said before a byte of it came.
    assert.match(
      await client.outputMatching(/skipped/),
      new RegExp(`A message of ${declared} bytes was skipped unread: messages of at most ${16 * 1024 * 1024} bytes are read`),
    );
    await writeFiller(declared);
    assert.ok((await client.threadsRequest()).success);
    const after = client.peakResidentBytes();
    if (before !== undefined && after !== undefined)
      // Held, 40 MB would be there twice at its last chunk (the library's reader copied all it held onto each chunk).
      assert.ok(after - before < 64 * 1024 * 1024, `peak memory grew by ${after - before} bytes while 40 MB were passed over`);
  });

  it('passes over 40 MB that end no header, holding at most the bound of a header, and reads the next message', async () => {
    await client.initializeRequest();
    const before = client.peakResidentBytes();
    await client.writeRaw('Content-Length: 12');
    await writeFiller(40 * 1024 * 1024);
    assert.match(await client.outputMatching(/skipped/), /Bytes that are no message were skipped: no header ended within 8192 bytes/);
    // Right after the bytes passed over, with no line break between: the message is found.
    assert.ok((await client.threadsRequest()).success);
    const after = client.peakResidentBytes();
    if (before !== undefined && after !== undefined)
      // Held, 40 MB would be there twice at its last chunk (the library's reader copied all it held onto each chunk).
      assert.ok(after - before < 64 * 1024 * 1024, `peak memory grew by ${after - before} bytes while 40 MB were passed over`);
    // Said once for the whole run of them.
    assert.equal(client.stderr.match(/no header ended/g)?.length, 1);
  });

  it('reads a message of many chunks whole, up to the bound', async () => {
    await client.initializeRequest();
    // A request of 15 MB (an argument the request ignores): its chunks are held in a list and read once whole.
    const answer = await client.customRequest('threads', { padding: 'x'.repeat(15 * 1024 * 1024) });
    assert.ok(answer.success);
  });
});

describe('agent debugger: the reader of messages', () => {
  it('holds no more than a header while bytes end no header, and the message read so far otherwise', () => {
    const messages: unknown[] = [];
    const problems: string[] = [];
    const reader = new DebugMessageReader(
      (message) => messages.push(message),
      (problem) => problems.push(problem),
    );
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let mostHeld = 0;
    for (let i = 0; i < 640; i++) {
      reader.push(chunk);
      mostHeld = Math.max(mostHeld, reader.heldBytes);
    }
    assert.ok(mostHeld <= MAX_DEBUG_HEADER_BYTES, `held ${mostHeld} bytes`);
    assert.equal(problems.length, 1);
    // A message cut anywhere (here: byte by byte) is read once whole.
    const body = JSON.stringify({ seq: 1, type: 'request', command: 'threads' });
    for (const byte of Buffer.from(`Content-Length: ${body.length}\r\n\r\n${body}`)) reader.push(Buffer.from([byte]));
    assert.deepEqual(messages, [JSON.parse(body)]);
    assert.equal(reader.heldBytes, 0);
    assert.equal(reader.unfinished(), undefined);
  });
});
