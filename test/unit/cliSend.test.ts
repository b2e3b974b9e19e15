// `agent-workflows send <file> <node-id>`: one API node sent from the command line against real
// servers on 127.0.0.1, in-process through runCli: the body, -i, --json, the values asked for
// (inputs, --node, AGENT_SECRET_<NAME>), and every way it can go wrong, secrets never printed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../support/paths';
import { runCliCaptured } from '../support/cli';
import { leakedPart } from '../support/echoedSecrets';
import { closedPort, json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import type { Exchange } from '../../src/core/exchange/exchange';

const TOKEN = 'cli-send-token-51c0ffee';

const agentYaml = (apiUrl: string): string => `version: 1
name: Lookup
inputs:
  customer: { type: string, required: true }
  unrelated: { type: string, required: true }
nodes:
  find:
    type: api
    method: GET
    url: "${apiUrl}/customers/{{ inputs.customer }}?api_key={{ secrets.LOOKUP_KEY }}"
    settings: ["Authorization: Bearer {{ secrets.LOOKUP_KEY }}"]
  orders:
    type: api
    method: POST
    url: ${apiUrl}/orders
    body: { id: "{{ nodes.find.body.id }}", tier: "{{ nodes.find.status }}" }
  greeting:
    type: template
    text: "Hello {{ nodes.find.body.name }}"
outputs:
  name: { from: "{{ nodes.find.body.name }}" }
`;

describe('agent-workflows send', () => {
  let api: TestServer;
  let dir: TempDir;
  beforeEach(async () => {
    api = await startServer((request, response, body) => {
      if (request.url?.startsWith('/customers/')) {
        if (request.headers.authorization !== `Bearer ${TOKEN}`) return json(response, 401, { error: 'bad key' });
        return json(response, 200, { id: 7, name: 'Ann' }, { 'x-request-id': 'r-1' });
      }
      if (request.url === '/orders') return json(response, 201, { got: JSON.parse(body.toString()) as unknown });
      if (request.url === '/not-json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('<html>oops</html>');
        return;
      }
      if (request.url === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(11 * 1024 * 1024) });
        response.end('y'.repeat(11 * 1024 * 1024));
        return;
      }
      json(response, 404, { error: 'no route' });
    });
    dir = makeTempDir();
    dir.write('lookup.agent.yaml', agentYaml(api.url));
  });
  afterEach(async () => {
    await api.close();
    dir.remove();
  });

  const cli = (args: string[], env: Record<string, string> = { AGENT_SECRET_LOOKUP_KEY: TOKEN }) =>
    runCliCaptured(['send', ...args], { cwd: dir.path, env }, [TOKEN]);

  it('sends the node with its input and secret, prints the body; inputs the node does not use are not asked', async () => {
    const result = await cli(['lookup.agent.yaml', 'find', '--input', 'customer=a/b']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '{"id":7,"name":"Ann"}\n');
    assert.match(result.stderr, /GET http:\/\/127\.0\.0\.1:\d+\/customers\/a%2Fb\?api_key=\{\{ secrets\.LOOKUP_KEY \}\} → 200 OK in /);
    assert.equal(api.requests[0]!.url, `/customers/a%2Fb?api_key=${TOKEN}`);
  });

  it('sends the bytes run --local sends for the node', async () => {
    const ran = await runCliCaptured(
      ['run', '--local', 'lookup.agent.yaml', '--input', 'customer=ü 1', '--input', 'unrelated=x'],
      { cwd: dir.path, env: { AGENT_SECRET_LOOKUP_KEY: TOKEN } },
      [TOKEN],
    );
    assert.equal(ran.code, 0, ran.stderr);
    const ranRequests = api.requests.splice(0);
    const sent = await cli(['lookup.agent.yaml', 'find', '--input', 'customer=ü 1']);
    assert.equal(sent.code, 0, sent.stderr);
    const strip = ({ method, url, headers, body }: (typeof ranRequests)[number]): unknown => {
      const { host: _host, connection: _connection, ...rest } = headers;
      return { method, url, headers: rest, body: body.toString('base64') };
    };
    assert.deepEqual(api.requests.map(strip), ranRequests.filter((request) => request.url.startsWith('/customers/')).map(strip));
  });

  it('-i prints the status line and headers first; --json the whole exchange', async () => {
    const included = await cli(['lookup.agent.yaml', 'find', '--input', 'customer=1', '-i']);
    assert.equal(included.code, 0, included.stderr);
    assert.match(
      included.stdout,
      /^HTTP\/1\.1 200 OK\ncontent-type: application\/json\nx-request-id: r-1\n[\s\S]*\n\n\{"id":7,"name":"Ann"\}\n$/,
    );
    const asJson = await cli(['lookup.agent.yaml', 'find', '--input', 'customer=1', '--json']);
    const exchange = JSON.parse(asJson.stdout) as Exchange;
    assert.equal(exchange.node, 'find');
    assert.equal(exchange.response?.status, 200);
    assert.deepEqual(
      exchange.request.headers.find((header) => header.name === 'Authorization'),
      { name: 'Authorization', value: 'Bearer {{ secrets.LOOKUP_KEY }}' },
    );
  });

  it('takes upstream results from --node as JSON or @file.json, and names the --node to give when one is missing', async () => {
    const missing = await cli(['lookup.agent.yaml', 'orders']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /give it with --node find=JSON or --node find=@file\.json/);
    assert.equal(api.requests.length, 0, 'nothing sent');
    const inline = await cli(['lookup.agent.yaml', 'orders', '--node', 'find={"id": 9}']);
    assert.equal(inline.code, 0, inline.stderr);
    assert.deepEqual(JSON.parse(inline.stdout), { got: { id: 9, tier: 200 } });
    dir.write('find.json', JSON.stringify({ body: { id: 3 }, status: 203, headers: {} }));
    const fromFile = await cli(['lookup.agent.yaml', 'orders', '--node', 'find=@find.json']);
    assert.deepEqual(JSON.parse(fromFile.stdout), { got: { id: 3, tier: 203 } });
    const bad = await cli(['lookup.agent.yaml', 'orders', '--node', 'find={nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--node find takes JSON/);
  });

  it("accepts every input the agent declares, used by the node or not (one command line for each node); refuses others, naming the agent's", async () => {
    const inputs = ['--input', 'customer=5', '--input', 'unrelated=x'];
    const unused = await cli(['lookup.agent.yaml', 'orders', '--node', 'find={"id": 9}', ...inputs]);
    assert.equal(unused.code, 0, unused.stderr);
    assert.deepEqual(JSON.parse(unused.stdout), { got: { id: 9, tier: 200 } });
    const used = await cli(['lookup.agent.yaml', 'find', ...inputs]);
    assert.equal(used.code, 0, used.stderr);
    assert.equal(api.requests.at(-1)!.url, `/customers/5?api_key=${TOKEN}`);
    const undeclared = await cli(['lookup.agent.yaml', 'orders', '--node', 'find={"id": 9}', '--input', 'nope=1']);
    assert.equal(undeclared.code, 2);
    assert.equal(undeclared.stderr, "agent-workflows: The agent has no input \"nope\". Its inputs are 'customer' and 'unrelated'.\n");
    assert.equal(api.requests.length, 2, 'nothing sent for the undeclared input');
  });

  it('a missing secret is exit 2 naming its variable, nothing sent', async () => {
    const result = await cli(['lookup.agent.yaml', 'find', '--input', 'customer=1'], {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Secret "LOOKUP_KEY" is not set: set the environment variable AGENT_SECRET_LOOKUP_KEY/);
    assert.equal(api.requests.length, 0);
  });

  it('an unknown node lists the nodes; a file with errors prints them and sends nothing', async () => {
    const unknown = await cli(['lookup.agent.yaml', 'nope']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /has no node "nope"\. Its nodes: find, orders, greeting\./);
    dir.write('broken.agent.yaml', `version: 1\nname: B\nnodes:\n  call:\n    type: api\n    url: ${api.url}/x\n`);
    const broken = await cli(['broken.agent.yaml', 'call']);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /broken\.agent\.yaml:4:3: error missing-property/);
    assert.equal(api.requests.length, 0);
  });

  it('renders a template node', async () => {
    const result = await cli(['lookup.agent.yaml', 'greeting', '--node', 'find={"name": "Bo"}']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Hello Bo\n');
  });

  it('4xx is exit 1 with the body; refused is exit 4 in words; --env does not apply', async () => {
    const denied = await cli(['lookup.agent.yaml', 'find', '--input', 'customer=1'], { AGENT_SECRET_LOOKUP_KEY: 'wrong-key-123' });
    assert.equal(denied.code, 1);
    assert.equal(denied.stdout, '{"error":"bad key"}\n');
    assert.match(denied.stderr, /→ 401 Unauthorized/);
    const port = await closedPort();
    dir.write(
      'refused.agent.yaml',
      `version: 1\nname: R\nnodes:\n  call:\n    type: api\n    method: GET\n    url: http://127.0.0.1:${port}/\n`,
    );
    const refused = await cli(['refused.agent.yaml', 'call']);
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, /Nothing is listening at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/);
    const env = await cli(['lookup.agent.yaml', 'find', '--env', 'prod']);
    assert.equal(env.code, 2);
    assert.match(env.stderr, /--env does not apply to send/);
  });

  it('says when the body is not what Content-Type says, and cuts a huge body, saying so', async () => {
    dir.write(
      'odd.agent.yaml',
      `version: 1\nname: O\nnodes:\n  notJson:\n    type: api\n    method: GET\n    url: ${api.url}/not-json\n  big:\n    type: api\n    method: GET\n    url: ${api.url}/big\n`,
    );
    const notJson = await cli(['odd.agent.yaml', 'notJson']);
    assert.equal(notJson.code, 1, 'the node would fail in a run');
    assert.equal(notJson.stdout, '<html>oops</html>\n');
    assert.match(notJson.stderr, /Content-Type says application\/json, but the body is not JSON: shown as text/);
    const big = await cli(['odd.agent.yaml', 'big']);
    assert.equal(big.code, 0, big.stderr);
    assert.equal(big.stdout.length, 10 * 1024 * 1024 + 1);
    assert.match(big.stderr, /→ 200 OK in .*, 11\.0 MB\n[\s\S]*the body is 11\.0 MB: only its first 10\.0 MB were read/);
  });

  it('never prints a secret held in a header name: in --json, -i, or the headers a cross-origin redirect left behind', async () => {
    // Both letter cases: the HTTP layer lower-cases the names of an answer's headers.
    const secret = 's3cr3t-T0ken-QWXZKJVN';
    const landing = await startServer((_request, response) => json(response, 200, { ok: true }, { [`X-Echo-${secret}`]: '1' }));
    const moving = await startServer((_request, response) => {
      response.writeHead(307, { location: `${landing.url}/landed` });
      response.end();
    });
    try {
      // Validation refuses a {{ }} in a header name: a name holds a secret only where it is written out.
      dir.write(
        'named.agent.yaml',
        `version: 1\nname: Named\nnodes:\n  moved:\n    type: api\n    method: GET\n    url: ${moving.url}/moved\n    settings:\n      - "Authorization: Bearer {{ secrets.TOKEN }}"\n      - "X-${secret}: v"\n`,
      );
      const env = { AGENT_SECRET_TOKEN: secret };
      const asJson = await cli(['named.agent.yaml', 'moved', '--json'], env);
      assert.equal(asJson.code, 0, asJson.stderr);
      assert.equal(moving.requests[0]?.headers[`x-${secret.toLowerCase()}`], 'v', 'the header was sent to the first origin');
      assert.equal(landing.requests[0]?.headers[`x-${secret.toLowerCase()}`], undefined, 'and not to the second');
      const exchange = JSON.parse(asJson.stdout) as Exchange;
      assert.ok(exchange.request.headers.some((header) => header.name === 'X-{{ secrets.TOKEN }}' && header.value === 'v'));
      assert.deepEqual(exchange.redirects[0]?.droppedHeaders, ['Authorization', 'X-{{ secrets.TOKEN }}']);
      assert.ok(exchange.response?.headers.some((header) => header.name === 'x-echo-{{ secrets.TOKEN }}'));
      assert.match(asJson.stderr, /redirected \(307\) to .*; not sent there: Authorization, X-\{\{ secrets\.TOKEN \}\}\n/);
      const included = await cli(['named.agent.yaml', 'moved', '-i'], env);
      assert.equal(included.code, 0, included.stderr);
      assert.match(included.stdout, /^x-echo-\{\{ secrets\.TOKEN \}\}: 1$/m);
      for (const [what, text] of [
        ['--json', asJson.stdout + asJson.stderr],
        ['-i', included.stdout + included.stderr],
      ] as const)
        assert.equal(leakedPart(text, secret), undefined, `no part of the secret in the output of ${what}`);
    } finally {
      await moving.close();
      await landing.close();
    }
  });

  it('runs as the built binary (dist/cli.js, its lazy bundle)', async function () {
    this.timeout(15_000);
    // Asynchronously: the API answering it runs in this process.
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'dist', 'cli.js'), 'send', 'lookup.agent.yaml', 'find', '--input', 'customer=5', '-i'],
      {
        cwd: dir.path,
        env: { PATH: process.env.PATH ?? '', AGENT_SECRET_LOOKUP_KEY: TOKEN },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^HTTP\/1\.1 200 OK\n[\s\S]*\{"id":7,"name":"Ann"\}\n$/);
    assert.ok(!(stdout + stderr).includes(TOKEN));
  });

  it('is listed in --help', async () => {
    const help = await runCliCaptured(['--help'], { cwd: dir.path, env: {} });
    assert.match(help.stdout, /send \[options\] <file> <node-id>/);
  });
});
