// `agent-workflows test --deployed`: the cases go to a real local agent server on 127.0.0.1 through
// the real client, whose API node calls a real API server; outputs and failures are checked, and
// what only a local run uses (mocks, expect_request) is named, not applied.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'deployed-test-key-0123456789';

describe('agent-workflows test --deployed', () => {
  let dir: TempDir;
  let api: TestServer;
  let server: AgentServer;

  beforeEach(async () => {
    dir = makeTempDir();
    api = await startServer((request, response) => {
      if (request.url?.startsWith('/fail')) json(response, 500, { error: 'down' });
      else json(response, 200, { name: 'Ada from the real API' });
    });
    dir.write(
      'lookup.agent.yaml',
      `version: 1\nname: Lookup\ninputs:\n  id: { type: string, required: true }\nnodes:\n  fetch:\n    type: api\n    method: GET\n    url: ${api.url}/{{ inputs.id }}\noutputs:\n  name: { from: "{{ nodes.fetch.body.name }}" }\n`,
    );
    server = await startAgentServer({ directory: dir.path, port: 0, apiKey: KEY });
  });

  afterEach(async () => {
    await server.close();
    await api.close();
    dir.remove();
  });

  const run = (args: string[], env: Record<string, string> = { AGENT_WORKFLOWS_API_KEY: KEY }) =>
    runCliCaptured(args, { cwd: dir.path, env });

  const target = (): string[] => ['--deployed', '--base-url', server.url, '--account', 'local', '--agent', 'lookup'];

  it('sends each case to the deployment and checks its outputs and failures', async () => {
    dir.write(
      'lookup.agent.test.yaml',
      `cases:
  real answer:
    inputs: { id: a1 }
    mocks: { fetch: { body: { name: Mocked }, expect_request: { method: GET } } }
    expect: { outputs: { name: Ada from the real API } }
  wrong expectation:
    inputs: { id: a2 }
    mocks: { fetch: { body: { name: x } } }
    expect: { outputs: { name: Somebody else } }
  upstream down:
    inputs: { id: fail }
    mocks: { fetch: { body: {} } }
    expect: { fails_at: fetch }
`,
    );
    const result = await run(['test', ...target()]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(
      result.stdout,
      /✓ real answer \(\d+ ms\) \(ran on http:\/\/127\.0\.0\.1:\d+\)\n\s+note: Not used against a deployment: its mocks \(fetch\), expect_request\. The service calls the real APIs\./,
    );
    assert.match(result.stdout, /✗ wrong expectation[\s\S]*outputs\.name: expected "Somebody else", got "Ada from the real API"/);
    assert.match(result.stdout, /✓ upstream down/);
    assert.match(result.stdout, /3 cases: 2 passed, 1 failed/);
    // Every case reached the real API through the local server: the mocks were not used.
    assert.deepEqual(api.requests.map((request) => request.url).sort(), ['/a1', '/a2', '/fail']);
  });

  it('says what is missing: the key, or the deployment', async () => {
    dir.write('lookup.agent.test.yaml', 'cases:\n  one:\n    inputs: { id: a1 }\n    mocks: { fetch: { body: {} } }\n');
    const noKey = await run(['test', ...target()], {});
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /No API key: set the AGENT_WORKFLOWS_API_KEY/);
    const noTarget = await run(['test', '--deployed']);
    assert.equal(noTarget.code, 2);
    assert.match(noTarget.stderr, /--base-url, --account and --agent/);
    const withoutDeployed = await run(['test', '--base-url', server.url]);
    assert.equal(withoutDeployed.code, 1, withoutDeployed.stdout + withoutDeployed.stderr);
    assert.match(withoutDeployed.stderr, /--base-url went unused: no case ran on the deployment/);
  });

  it('sends a case marked deployed: true to the deployment in a local run, the others to their mocks', async () => {
    dir.write(
      'lookup.agent.test.yaml',
      `cases:
  mocked:
    inputs: { id: m1 }
    mocks: { fetch: { body: { name: Mocked } } }
    expect: { outputs: { name: Mocked } }
  on the service:
    deployed: true
    snapshot: true
    inputs: { id: d1 }
    expect: { outputs: { name: Ada from the real API } }
`,
    );
    const args = ['test', '--base-url', server.url, '--account', 'local', '--agent', 'lookup'];
    const result = await run(args);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /✓ mocked[\s\S]*✓ on the service/);
    assert.match(result.stdout, /2 cases: 2 passed/);
    // Only the deployed case reached the real API; the mocked one never left the process.
    assert.deepEqual(
      api.requests.map((request) => request.url),
      ['/d1'],
    );
    // The key is needed only because a case goes to the service; a grep leaving it out runs without one.
    const noKey = await run(args, {});
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /No API key/);
    const localOnly = await run(['test', '--grep', 'mocked'], {});
    assert.equal(localOnly.code, 0, localOnly.stdout + localOnly.stderr);
    // A deployed answer depends on real APIs: --update checks it but never records it.
    const before = readFileSync(join(dir.path, 'lookup.agent.test.yaml'), 'utf8');
    const updated = await run([...args, '--update']);
    assert.equal(updated.code, 0, updated.stdout + updated.stderr);
    assert.equal(readFileSync(join(dir.path, 'lookup.agent.test.yaml'), 'utf8'), before);
  });

  it("fails a case the service refuses, with the service's reason and never the key", async () => {
    dir.write('lookup.agent.test.yaml', 'cases:\n  one:\n    inputs: { id: a1 }\n    mocks: { fetch: { body: {} } }\n');
    const result = await run(['test', ...target()], { AGENT_WORKFLOWS_API_KEY: 'wrong-key-0123456789' });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /could not run on the deployment: .*401/);
    assert.doesNotMatch(result.stdout + result.stderr, /wrong-key-0123456789/);
  });
});
