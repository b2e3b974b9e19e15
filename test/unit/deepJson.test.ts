// JSON nested deeper than MAX_JSON_DEPTH, from every outside source, over real HTTP on 127.0.0.1
// and real files: refused with a message that says so, never a stack overflow that crashes the
// process (a value 20,000 levels deep parses, then overflows the first recursive walk).
import assert from 'node:assert/strict';
import { request } from 'undici';
import { readDataRows } from '../../src/core/batch/dataRows';
import type { DataRow } from '../../src/core/batch/dataRows';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { executeAgent } from '../../src/core/engine/engine';
import { resolveInputs } from '../../src/core/engine/inputs';
import { MAX_JSON_DEPTH, parseJson } from '../../src/core/json';
import { startAgentServer } from '../../src/core/server/agentServer';
import { getStatus } from '../../src/core/service/agentClient';
import { runCliCaptured } from '../support/cli';
import { startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const DEEP = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;

describe('JSON nested too deeply', () => {
  let dir: TempDir;
  let api: TestServer;
  beforeEach(async () => {
    dir = makeTempDir();
    api = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(DEEP);
    });
  });
  afterEach(async () => {
    await api.close();
    dir.remove();
  });

  it('parses JSON up to the limit, brackets in strings not counted, and refuses deeper', () => {
    const atLimit = `${'['.repeat(MAX_JSON_DEPTH)}"[[[{{{\\"["${']'.repeat(MAX_JSON_DEPTH)}`;
    assert.ok(Array.isArray(parseJson(atLimit)));
    assert.throws(
      () => parseJson(`[${atLimit}]`),
      /^JsonTooDeepError: nests arrays and objects deeper than 256 levels, more than is read$/,
    );
    assert.throws(() => parseJson('{"a": [1,'), SyntaxError, "invalid JSON is still JSON.parse's error");
  });

  it('fails the API node whose answer nests too deeply, and the execution says so', async () => {
    const agent = loadAgent(
      `version: 1\nname: Deep\nnodes:\n  call: { type: api, method: GET, url: "${api.url}/deep" }\n`,
      'deep.agent.yaml',
    );
    const result = await executeAgent(agent, resolveInputs(agent.model, { values: {} }));
    assert.equal(result.status, 'failed');
    assert.equal(
      result.status === 'failed' && result.error.message,
      'Node "call" failed: The answer is JSON that nests arrays and objects deeper than 256 levels, more than is read.',
    );
  });

  it('fails the test case whose mock answers such JSON; the other files and the report go on', async () => {
    dir.write(
      'deep.agent.yaml',
      'version: 1\nname: Deep\nnodes:\n  call: { type: api, method: GET, url: "https://api.example.com/x" }\noutputs:\n  r: { from: "{{ nodes.call.body }}" }\n',
    );
    dir.write(
      'deep.agent.test.yaml',
      `cases:\n  deep:\n    mocks: { call: { headers: { content-type: application/json }, body: "${DEEP}" } }\n    expect: { outputs: { r: 1 } }\n`,
    );
    const result = await runCliCaptured(['test', 'deep.agent.test.yaml'], { cwd: dir.path, env: {} });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(
      result.stdout,
      /The execution failed: Node "call" failed: The answer is JSON that nests arrays and objects deeper than 256 levels/,
    );
  });

  it('refuses such a request body on the local server (400), and such a status answer in the client', async () => {
    dir.write('x.agent.yaml', 'version: 1\nname: X\nnodes:\n  t: { type: template, text: hi }\n');
    const server = await startAgentServer({ directory: dir.path, port: 0, apiKey: 'test-key', watch: false });
    try {
      const answer = await request(`${server.url}/api/local/agent/x/execute`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
        body: `{"inputs": {"a": ${DEEP}}}`,
      });
      const body = (await answer.body.json()) as { code: string; error: string };
      assert.equal(answer.statusCode, 400);
      assert.deepEqual(body, {
        code: 'bad-json',
        error: 'The request body nests arrays and objects deeper than 256 levels, more than is read.',
      });
    } finally {
      await server.close();
    }
    await assert.rejects(
      getStatus({ baseUrl: api.url, account: 'a', agent: 'x', apiKey: 'k' }, '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01'),
      /nests arrays and objects deeper than 256 levels/,
    );
  });

  it('makes such a data row a bad row, and the rows after it are read', async () => {
    const rows: DataRow[] = [];
    for await (const row of readDataRows(dir.write('rows.jsonl', `{"id": 1}\n{"id": ${DEEP}}\n{"id": 3}\n`))) rows.push(row);
    assert.deepEqual(
      rows.map((row) => ('problem' in row ? `${row.row}: ${row.problem.message}` : `${row.row}: ok`)),
      ['1: ok', '2: line 2 nests arrays and objects deeper than 256 levels, more than is read', '3: ok'],
    );
  });
});
