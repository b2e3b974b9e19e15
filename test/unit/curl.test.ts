// "Copy as curl": the command runs in a real shell, with curl, against a real server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildCurlCommand, shellQuote } from '../../src/core/service/curl';
import { executeUrl } from '../../src/core/service/target';
import { startFakeService } from '../support/fakeAgentService';
import type { FakeService } from '../support/fakeAgentService';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

describe('copy as curl', () => {
  let service: FakeService;
  let dir: TempDir;
  beforeEach(async () => {
    service = await startFakeService('curl-key');
    dir = makeTempDir();
  });
  afterEach(async () => {
    await service.close();
    dir.remove();
  });

  const target = () => ({ baseUrl: service.url, account: 'acme', agent: 'summarizer', apiKey: 'unused' });

  // Asynchronous: the fake service runs in this process, so a blocking spawn would deadlock it.
  async function runInShell(command: string): Promise<string> {
    const { stdout } = await promisify(execFile)('sh', ['-c', command], {
      env: { ...process.env, AGENT_WORKFLOWS_API_KEY: 'curl-key' },
      encoding: 'utf8',
      timeout: 10_000,
    });
    return stdout;
  }

  it('quotes words for the shell', () => {
    assert.equal(shellQuote('plain-word_1.0'), 'plain-word_1.0');
    assert.equal(shellQuote("it's $HOME `x`"), `'it'\\''s $HOME \`x\`'`);
  });

  it('starts a JSON run with awkward input values exactly as the client would', async () => {
    const inputs = { ticket: `It's "quoted"; $(rm -rf /) \`x\` \\ ünï ✓\nsecond line`, count: 3 };
    const command = buildCurlCommand({ executeUrl: executeUrl(target(), false), inputs, files: [] });
    assert.doesNotMatch(command, /curl-key/);
    assert.match(command, /\$AGENT_WORKFLOWS_API_KEY/);
    const answer = JSON.parse(await runInShell(command)) as { status: string };
    assert.equal(answer.status, 'ok');
    assert.deepEqual(service.starts[0]?.payload, { inputs, stream: false });
    assert.equal(service.starts[0]?.authorization, 'Bearer curl-key');
  });

  it('starts a multipart run with files whose names need quoting', async () => {
    const odd = dir.write('my report; v2, "final".pdf', 'pdf bytes');
    const command = buildCurlCommand({
      executeUrl: executeUrl(target(), true),
      inputs: { note: "a;b='c'" },
      files: [{ field: 'doc', path: odd }],
      statusUrl: `${service.url}/api/acme/agent/x/status`,
    });
    await runInShell(command.split('\n\n')[0]!);
    const start = service.starts[0]!;
    assert.equal(start.path, '/api/acme/agent/summarizer/execute/multipart');
    assert.deepEqual(start.payload, { inputs: { note: "a;b='c'" }, stream: false });
    const file = start.parts.find((part) => part.name === 'doc');
    // curl (7.81+) percent-encodes a double quote in a filename, as the WHATWG HTML form rules say.
    assert.equal(file?.filename?.replace(/%22/g, '"'), 'my report; v2, "final".pdf');
    assert.equal(file?.mimeType, 'application/pdf');
    assert.equal(file?.data.toString(), 'pdf bytes');
    assert.match(command, /\n\ncurl -sS http:\/\/127\.0\.0\.1:\d+\/api\/acme\/agent\/x\/status/);
  });
});
