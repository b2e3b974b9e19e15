// Pinned node results in the engine (Send Request and Run Locally in the editor): a pinned node
// is not run, the nodes after it see the pinned value, and its trace says it was pinned. The
// results later nodes see reach the caller as they are (the editor keeps them for Send Request).
import assert from 'node:assert/strict';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { executeAgent } from '../../src/core/engine/engine';
import type { NodeResult } from '../../src/core/engine/evaluate';
import { resolveInputs } from '../../src/core/engine/inputs';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';

describe('engine: pinned node results', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startServer((request, response, body) =>
      json(response, 200, { path: request.url, got: body.toString(), ...(request.url === '/login' ? { token: 'real-token' } : {}) }),
    );
  });
  afterEach(() => server.close());

  const agentText = (): string => `version: 1
name: Pins
nodes:
  login:
    type: api
    method: GET
    url: ${server.url}/login
  order:
    type: api
    method: POST
    url: ${server.url}/order
    settings: ["Content-Type: application/json"]
    body: { token: "{{ nodes.login.body.token }}" }
outputs:
  sent: { from: "{{ nodes.order.body.got }}" }
`;

  it('does not call a pinned node and gives later nodes its pinned value', async () => {
    const agent = loadAgent(agentText(), 'pins.agent.yaml');
    const pinned = new Map<string, NodeResult>([['login', { status: 200, headers: {}, body: { token: 'pinned-token' } }]]);
    const result = await executeAgent(agent, resolveInputs(agent.model, {}), { pinnedResults: pinned });
    assert.equal(result.status, 'finished', result.status !== 'finished' ? result.error.message : '');
    assert.deepEqual(
      server.requests.map((request) => request.url),
      ['/order'],
    );
    assert.deepEqual(result.status === 'finished' ? result.outputs : {}, { sent: '{"token":"pinned-token"}' });
    const login = result.trace.find((entry) => entry.node === 'login');
    assert.equal(login?.status, 'succeeded');
    assert.equal(login?.pinned, true);
    assert.equal(login?.httpStatus, 200);
    assert.equal(result.trace.find((entry) => entry.node === 'order')?.pinned, undefined);
  });

  it('ignores a pin of a node the agent does not have', async () => {
    const agent = loadAgent(agentText(), 'pins.agent.yaml');
    const pinned = new Map<string, NodeResult>([['gone', { body: 1 }]]);
    const result = await executeAgent(agent, resolveInputs(agent.model, {}), { pinnedResults: pinned });
    assert.equal(result.status, 'finished');
    assert.deepEqual(
      server.requests.map((request) => request.url),
      ['/login', '/order'],
    );
  });

  it('hands each result to onNodeValue unredacted, and to onNodeResult redacted', async () => {
    const secret = 'pin-secret-value-1234';
    const agent = loadAgent(
      `version: 1
name: Echo
nodes:
  echo:
    type: api
    method: GET
    url: ${server.url}/echo?x={{ secrets.TOKEN }}
`,
      'echo.agent.yaml',
    );
    const values = new Map<string, NodeResult>();
    const results = new Map<string, NodeResult>();
    const result = await executeAgent(agent, resolveInputs(agent.model, {}), {
      secrets: async () => secret,
      onNodeValue: (node, value) => values.set(node, value),
      onNodeResult: (node, value) => results.set(node, value),
    });
    assert.equal(result.status, 'finished');
    assert.equal((values.get('echo')?.body as { path: string }).path, `/echo?x=${secret}`);
    assert.ok(!JSON.stringify(results.get('echo')).includes(secret));
  });
});
