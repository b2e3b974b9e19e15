// The engine's hold points for a debugger (core/engine/nodePauses.ts) against real HTTP servers on
// 127.0.0.1: a request held before it is sent and changed, nodes beside a held one going on, a
// node held with its answer and after its failure, and a stop while a node is held.
import assert from 'node:assert/strict';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { changeRequest } from '../../src/core/engine/apiRequest';
import type { ApiRequest } from '../../src/core/engine/apiRequest';
import { executeAgent } from '../../src/core/engine/engine';
import type { EngineOptions, ExecutionResult } from '../../src/core/engine/engine';
import { resolveInputs } from '../../src/core/engine/inputs';
import type { AfterFailure, AfterResponse, BeforeNode, NodePauses } from '../../src/core/engine/nodePauses';
import type { NodeTrace } from '../../src/core/engine/trace';
import { Redactor } from '../../src/core/redaction';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';

/** A promise with its resolve, to release a held node from the test. */
function gate<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Hooks that let every node go at once, unless the test overrides one. */
function pauses(overrides: Partial<NodePauses>): NodePauses {
  return {
    beforeNode: async () => undefined,
    afterResponse: async () => undefined,
    afterFailure: async () => undefined,
    ...overrides,
  };
}

function run(yaml: string, options: EngineOptions): Promise<ExecutionResult> {
  const agent = loadAgent(yaml, 'held.agent.yaml');
  return executeAgent(agent, resolveInputs(agent.model, { values: agent.model.inputs.has('who') ? { who: 'Ann' } : {} }), options);
}

describe('engine hold points for a debugger', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startServer((request, response, body) => {
      if (request.url?.startsWith('/fail')) return json(response, 500, { error: 'broken' });
      json(response, 200, { path: request.url, header: request.headers['x-who'] ?? null, body: body.toString() });
    });
  });
  afterEach(() => server.close());

  it('holds an API node with its request built and not sent, and sends the request as changed', async () => {
    const held = gate<ApiRequest | void>();
    const reached = gate<BeforeNode>();
    const execution = run(
      `version: 1
name: Held
inputs:
  who: { type: string }
nodes:
  lookup:
    type: api
    method: POST
    url: ${server.url}/people/{{ inputs.who }}
    settings: ["X-Who: {{ inputs.who }}"]
    body: { name: "{{ inputs.who }}" }
outputs:
  got: { from: "{{ nodes.lookup.body }}" }
`,
      {
        pauses: pauses({
          beforeNode: (stop) => {
            reached.resolve(stop);
            return held.promise;
          },
        }),
      },
    );
    const stop = await reached.promise;
    assert.equal(stop.node.id, 'lookup');
    assert.ok(stop.request, 'an API node is held with its request');
    assert.equal(stop.request.url, `${server.url}/people/Ann`);
    assert.equal(stop.request.headers['X-Who'], 'Ann');
    assert.equal(stop.request.body?.content, '{"name":"Ann"}');
    assert.equal(server.requests.length, 0, 'nothing is sent while the node is held');
    held.resolve(
      changeRequest(
        stop.request,
        { url: `${server.url}/people/Bob`, headers: { ...stop.request.headers, 'X-Who': 'Bob' }, body: '{"name":"Bob"}' },
        new Redactor(),
      ),
    );
    const result = await execution;
    assert.equal(result.status, 'finished');
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0]!.url, '/people/Bob');
    assert.equal(server.requests[0]!.headers['x-who'], 'Bob');
    assert.equal(server.requests[0]!.body.toString(), '{"name":"Bob"}');
  });

  it('refuses a change that is not a request: a URL that is not http(s), a header with a line break', () => {
    const request: ApiRequest = { method: 'GET', url: 'http://127.0.0.1/', shownUrl: 'http://127.0.0.1/', headers: {}, secretHeaders: [] };
    assert.throws(() => changeRequest(request, { url: 'file:///etc/passwd' }, new Redactor()), /must be http:\/\/ or https:\/\//);
    assert.throws(() => changeRequest(request, { url: 'not a url' }, new Redactor()), /is not a valid URL/);
    assert.throws(() => changeRequest(request, { headers: { 'X-A': 'a\r\nX-B: b' } }, new Redactor()), /line break/);
    assert.throws(() => changeRequest(request, { headers: { 'bad name': 'a' } }, new Redactor()), /not a valid header name/);
  });

  it('lets the nodes beside a held one run and end', async () => {
    const held = gate();
    const traces: NodeTrace[] = [];
    const otherEnded = gate();
    const execution = run(
      `version: 1
name: Beside
nodes:
  slow:
    type: api
    method: GET
    url: ${server.url}/slow
  quick:
    type: api
    method: GET
    url: ${server.url}/quick
  after:
    type: template
    text: "{{ nodes.quick.body.path }}"
`,
      {
        onTrace: (entry) => {
          traces.push(entry);
          if (entry.node === 'after' && entry.status === 'succeeded') otherEnded.resolve();
        },
        pauses: pauses({ beforeNode: async (stop) => (stop.node.id === 'slow' ? held.promise : undefined) }),
      },
    );
    await otherEnded.promise;
    assert.ok(!traces.some((entry) => entry.node === 'slow' && entry.status === 'succeeded'), 'the held node has not ended');
    held.resolve();
    assert.equal((await execution).status, 'finished');
  });

  it('holds an API node with its answer before it ends, and a failed node before the execution stops', async () => {
    const responses: AfterResponse[] = [];
    const failures: AfterFailure[] = [];
    const traces: NodeTrace[] = [];
    const result = await run(
      `version: 1
name: Answers
nodes:
  ok:
    type: api
    method: GET
    url: ${server.url}/ok
  broken:
    type: api
    method: GET
    url: ${server.url}/fail?{{ nodes.ok.status }}
`,
      {
        onTrace: (entry) => traces.push(entry),
        pauses: pauses({
          afterResponse: async (stop) => {
            responses.push(stop);
            assert.ok(!traces.some((entry) => entry.node === stop.node.id && entry.status === 'succeeded'), 'held before it ends');
          },
          afterFailure: async (stop) => {
            failures.push(stop);
            assert.ok(!traces.some((entry) => entry.node === stop.node.id && entry.status === 'failed'), 'held before it fails');
          },
        }),
      },
    );
    assert.deepEqual(
      responses.map((stop) => [stop.node.id, stop.result.status]),
      [['ok', 200]],
    );
    assert.equal(failures.length, 1);
    assert.equal(failures[0]!.node.id, 'broken');
    assert.equal(failures[0]!.error.kind, 'status');
    assert.equal(failures[0]!.error.details.httpStatus, 500);
    assert.equal(result.status, 'failed');
  });

  it('holds a template node before it renders', async () => {
    const held: string[] = [];
    const result = await run(
      `version: 1
name: Template
inputs:
  who: { type: string }
nodes:
  greet:
    type: template
    text: "Hello {{ inputs.who }}"
`,
      { pauses: pauses({ beforeNode: async (stop) => void held.push(`${stop.node.id}:${stop.request ? 'request' : 'none'}`) }) },
    );
    assert.deepEqual(held, ['greet:none']);
    assert.equal(result.status, 'finished');
  });

  it('cancels a held node when the execution is stopped, sending nothing', async () => {
    const controller = new AbortController();
    const held = gate();
    const reached = gate();
    const failures: AfterFailure[] = [];
    const execution = run(
      `version: 1
name: Stopped
nodes:
  lookup:
    type: api
    method: GET
    url: ${server.url}/never
`,
      {
        signal: controller.signal,
        pauses: pauses({
          beforeNode: () => {
            reached.resolve();
            return held.promise;
          },
          afterFailure: async (stop) => void failures.push(stop),
        }),
      },
    );
    await reached.promise;
    controller.abort();
    held.resolve();
    const result = await execution;
    assert.equal(result.status, 'cancelled');
    assert.equal(server.requests.length, 0);
    assert.equal(failures.length, 0, 'a stop is not a failure to hold');
  });
});
