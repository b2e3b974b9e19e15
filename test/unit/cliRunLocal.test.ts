// `agent-workflows run --local`: the file runs on this machine with the workflow engine, against a
// real API on 127.0.0.1, with secrets from AGENT_SECRET_<NAME> and no service or key.
import assert from 'node:assert/strict';
import { runCliCaptured } from '../support/cli';
import { ECHO_KEYS, echoedForms, leakedPart } from '../support/echoedSecrets';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const TOKEN = 'local-run-token-7f3a9c';

const agent = (apiUrl: string) => `version: 1
name: Ticket triage
inputs:
  ticket: { type: string, required: true }
  attachment: { type: file, required: true, accept: [.txt] }
nodes:
  classify:
    type: api
    method: POST
    url: ${apiUrl}/classify
    settings:
      - "Authorization: Bearer {{ secrets.TRIAGE_TOKEN }}"
      - "Content-Type: application/json"
    body:
      text: "{{ inputs.ticket }}"
      file: "{{ inputs.attachment.name }}"
  summary:
    type: template
    text: "{{ nodes.classify.body.label }} ({{ inputs.attachment.size }} bytes attached)"
outputs:
  label: { from: "{{ nodes.classify.body.label }}" }
  summary: { from: "{{ nodes.summary.body }}" }
`;

describe('agent-workflows run --local', () => {
  let api: TestServer;
  let dir: TempDir;
  beforeEach(async () => {
    api = await startServer((request, response, body) => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) return json(response, 401, { error: 'bad token' });
      const sent = JSON.parse(body.toString()) as { text: string };
      json(response, 200, { label: sent.text.includes('fire') ? 'urgent' : 'normal' });
    });
    dir = makeTempDir();
    dir.write('triage.agent.yaml', agent(api.url));
    dir.write('log.txt', 'twelve bytes');
  });
  afterEach(async () => {
    await api.close();
    dir.remove();
  });

  const cli = (args: string[], env: Record<string, string> = { AGENT_SECRET_TRIAGE_TOKEN: TOKEN }) =>
    runCliCaptured(args, { cwd: dir.path, env }, [TOKEN]);

  it('runs the file with inputs, a file and a secret, printing each node and the outputs', async () => {
    const result = await cli(['run', '--local', 'triage.agent.yaml', '--input', 'ticket=Printer on fire', '--file', 'attachment=log.txt']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { label: 'urgent', summary: 'urgent (12 bytes attached)' });
    assert.match(result.stderr, /^running Ticket triage locally \(2 nodes\)\n/);
    assert.match(result.stderr, new RegExp(`classify: succeeded in \\d+ ms POST ${api.url.replace(/[.]/g, '\\.')}/classify → 200`));
    assert.match(result.stderr, /summary: succeeded/);
    assert.match(result.stderr, /finished in /);
    assert.deepEqual(JSON.parse(api.requests[0]!.body.toString()), { text: 'Printer on fire', file: 'log.txt' });
  });

  it('prints {"executionId","status","outputs"} with --json', async () => {
    const result = await cli([
      'run',
      '--local',
      'triage.agent.yaml',
      '--input',
      'ticket=Slow printer',
      '--file',
      'attachment=log.txt',
      '--json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      executionId: null,
      status: 'finished',
      outputs: { label: 'normal', summary: 'normal (12 bytes attached)' },
    });
  });

  it('says which secret is missing and how to give it, and calls nothing', async () => {
    const result = await cli(['run', '--local', 'triage.agent.yaml', '--input', 'ticket=x', '--file', 'attachment=log.txt'], {});
    assert.equal(result.code, 1);
    assert.match(result.stderr, /TRIAGE_TOKEN/);
    assert.match(result.stderr, /AGENT_SECRET_TRIAGE_TOKEN/);
    assert.equal(api.requests.length, 0);
  });

  it('fails with the node and the cause when an API call fails, exit 1', async () => {
    const result = await cli(['run', '--local', 'triage.agent.yaml', '--input', 'ticket=x', '--file', 'attachment=log.txt', '--json'], {
      AGENT_SECRET_TRIAGE_TOKEN: 'wrong',
    });
    assert.equal(result.code, 1);
    const answer = JSON.parse(result.stdout) as { status: string; node: string; error: string };
    assert.equal(answer.status, 'failed');
    assert.equal(answer.node, 'classify');
    assert.match(answer.error, /401/);
  });

  it('checks inputs like a deployed run, and refuses options that do not apply', async () => {
    const missing = await cli(['run', '--local', 'triage.agent.yaml']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Input "ticket" is required/);
    const wrongFile = await cli(['run', '--local', 'triage.agent.yaml', '--input', 'ticket=x', '--file', 'attachment=nothing.txt']);
    assert.equal(wrongFile.code, 2);
    assert.match(wrongFile.stderr, /cannot be read: .*nothing\.txt/);
    const remote = await cli(['run', '--local', 'triage.agent.yaml', '--input', 'ticket=x', '--base-url', 'https://agents.example.com']);
    assert.equal(remote.code, 2);
    assert.match(remote.stderr, /--local runs the file on this machine/);
    // Every deployment and environment option, not only those that name the service (the inputs are
    // complete: nothing else stops the run).
    for (const option of [['--yes'], ['--status-path', '/status/{executionId}'], ['--allow-insecure-http']]) {
      const refused = await cli(['run', '--local', 'triage.agent.yaml', '--input', 'ticket=x', '--file', 'attachment=log.txt', ...option]);
      assert.equal(refused.code, 2, `${option[0]}: ${refused.stderr}`);
      assert.match(
        refused.stderr,
        /--local runs the file on this machine: --base-url, --account, --agent, --status-path, --allow-insecure-http, --yes, --env, --envs-file and --no-wait do not apply\./,
      );
    }
    assert.equal(api.requests.length, 0);
  });
  it('prints each exchange as curl -v does with --verbose, on stderr, the secret by name', async () => {
    const result = await cli([
      'run',
      '--local',
      'triage.agent.yaml',
      '--input',
      'ticket=Printer on fire',
      '--file',
      'attachment=log.txt',
      '--verbose',
    ]);
    assert.equal(result.code, 0, result.stderr);
    // stdout stays the outputs.
    assert.deepEqual(JSON.parse(result.stdout), { label: 'urgent', summary: 'urgent (12 bytes attached)' });
    const host = new URL(api.url).host;
    const lines = result.stderr.split('\n');
    const at = lines.indexOf('> POST /classify HTTP/1.1');
    assert.ok(at > 0, result.stderr);
    assert.equal(lines[at - 1], `* node classify: POST ${api.url}/classify`);
    assert.equal(lines[at + 1], `> Host: ${host}`);
    assert.ok(lines.includes('> Authorization: Bearer {{ secrets.TRIAGE_TOKEN }}'), result.stderr);
    assert.ok(lines.includes('> Content-Type: application/json'), result.stderr);
    assert.ok(lines.includes('{"text":"Printer on fire","file":"log.txt"}'), result.stderr);
    assert.ok(lines.includes('< HTTP/1.1 200 OK'), result.stderr);
    assert.ok(
      lines.some((line) => /^< content-type: application\/json/i.test(line)),
      result.stderr,
    );
    assert.ok(lines.includes('{"label":"urgent"}'), result.stderr);
    // The exchange comes before the node's line, and the template node has none.
    assert.ok(lines.findIndex((line) => line.startsWith('  classify: succeeded')) > at);
    assert.equal(lines.filter((line) => line.startsWith('* node ')).length, 1);
    assert.doesNotMatch(result.stderr, new RegExp(TOKEN));
  });

  it('--verbose never prints a secret held in a header name, sent, answered or left behind by a redirect', async () => {
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
        `version: 1\nname: Named\nnodes:\n  moved:\n    type: api\n    method: GET\n    url: ${moving.url}/moved\n    settings:\n      - "Authorization: Bearer {{ secrets.TOKEN }}"\n      - "X-${secret}: v"\noutputs:\n  headers: { from: "{{ nodes.moved.headers }}" }\n`,
      );
      const result = await runCliCaptured(['run', '--local', 'named.agent.yaml', '--verbose'], {
        cwd: dir.path,
        env: { AGENT_SECRET_TOKEN: secret },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(moving.requests[0]?.headers[`x-${secret.toLowerCase()}`], 'v', 'the header was sent to the first origin');
      const lines = result.stderr.split('\n');
      assert.ok(lines.includes('> X-{{ secrets.TOKEN }}: v'), result.stderr);
      assert.ok(
        lines.some((line) => /^\* redirected \(307\) to .* \(not sent there: Authorization, X-\{\{ secrets\.TOKEN \}\}\)$/.test(line)),
        result.stderr,
      );
      assert.ok(lines.includes('< x-echo-{{ secrets.TOKEN }}: 1'), result.stderr);
      assert.equal(leakedPart(result.stdout + result.stderr, secret), undefined, 'no part of the secret in the output');
    } finally {
      await moving.close();
      await landing.close();
    }
  });

  it('prints the exchange of a failed call with --verbose, and refuses --verbose without --local', async () => {
    const failed = await cli(['run', '--local', 'triage.agent.yaml', '--input', 'ticket=x', '--file', 'attachment=log.txt', '--verbose'], {
      AGENT_SECRET_TRIAGE_TOKEN: 'wrong-token-value',
    });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^> Authorization: Bearer \{\{ secrets\.TRIAGE_TOKEN \}\}$/m);
    assert.match(failed.stderr, /^< HTTP\/1\.1 401 Unauthorized$/m);
    assert.match(failed.stderr, /^\{"error":"bad token"\}$/m);
    assert.doesNotMatch(failed.stderr, /wrong-token-value/);
    const deployed = await cli(['run', 'triage.agent.yaml', '--input', 'ticket=x', '--file', 'attachment=log.txt', '--verbose']);
    assert.equal(deployed.code, 2);
    assert.match(deployed.stderr, /--verbose prints the exchanges of a run on this machine: use it with --local/);
  });

  it('never prints a secret an API echoes Base64-encoded, in Basic credentials, URL-encoded, JSON-escaped or in another case', async () => {
    const echo = await startServer((request, response) =>
      json(response, 200, echoedForms((request.headers.authorization ?? '').replace(/^Bearer /, ''))),
    );
    try {
      dir.write(
        'echo.agent.yaml',
        `version: 1\nname: Echo\nnodes:\n  call:\n    type: api\n    method: GET\n    url: ${echo.url}/echo\n    settings:\n      - "Authorization: Bearer {{ secrets.TOKEN }}"\noutputs:\n  echoed: { from: "{{ nodes.call.body }}" }\n`,
      );
      for (const secret of ECHO_KEYS) {
        const result = await runCliCaptured(
          ['run', '--local', 'echo.agent.yaml', '--json'],
          { cwd: dir.path, env: { AGENT_SECRET_TOKEN: secret } },
          [secret],
        );
        assert.equal(result.code, 0, result.stderr);
        const echoed = (JSON.parse(result.stdout) as { outputs: { echoed: Record<string, string> } }).outputs.echoed;
        assert.deepEqual(Object.keys(echoed), Object.keys(echoedForms(secret)), 'the API saw the secret');
        for (const [form, value] of Object.entries(echoed)) assert.equal(leakedPart(value, secret), undefined, `${form}: ${value}`);
        assert.equal(echoed.base64, '[redacted]');
        assert.equal(leakedPart(result.stderr, secret), undefined);
      }
    } finally {
      await echo.close();
    }
  });
});
