// `npm run demo`: the built demo (dist/demo.js) in a child process, started asynchronously (its
// servers run in that process, and this one must stay free to read its output). It must exit 0 and
// say each step: the server's URL and masked key, both executions with their polls, the outputs,
// what the mock APIs received, and never a key or secret value.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DEMO_SECRETS } from '../../scripts/demo/mockApis';
import { repoRoot } from '../support/paths';

interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the demo, killing it after timeoutMs (then code is null). */
function runDemo(timeoutMs: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'demo.js')], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('npm run demo', function () {
  this.timeout(90_000);
  let run: Finished;
  before(async () => {
    run = await runDemo(75_000);
  });

  it('exits 0 with nothing on stderr', () => {
    assert.equal(run.signal, null, `killed: ${run.stdout}`);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.stderr, '');
  });

  it('starts the mock APIs and the local agent server on 127.0.0.1, with a masked random key', () => {
    assert.match(run.stdout, /^1\. Mock APIs\n {3}http:\/\/127\.0\.0\.1:\d+ answers for crm\.example\.com, /m);
    assert.match(
      run.stdout,
      /^2\. Local agent server \(what `agent-workflows serve examples` runs\)\n {3}URL {6}http:\/\/127\.0\.0\.1:\d+\n/m,
    );
    const key = /^ {3}API key {2}(\S{4})…•{8} \(random, made for this session/m.exec(run.stdout);
    assert.ok(key, 'the key is shown masked');
    // The key's first characters are only ever followed by the mask: the whole key is never printed.
    const prefix = key[1]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.doesNotMatch(run.stdout, new RegExp(`${prefix}[A-Za-z0-9_-]`));
    assert.match(run.stdout, /^ {3}agents {3}.*local\/customer-360.*local\/receipt-scanner/m);
  });

  it('runs Customer 360 with JSON inputs through the client and poller, its lookups in parallel', () => {
    assert.match(
      run.stdout,
      /POST http:\/\/127\.0\.0\.1:\d+\/api\/local\/agent\/customer-360\/execute {2}\{"inputs":\{"customer_id":"C-1042"\},"stream":false\}\n {3}execution id [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n {3}poll 1 \(\d+ ms\): (running|finished)/,
    );
    assert.match(run.stdout, /"summary": "Ada Lovelace: 2 open invoices, 3 tickets\."/);
    assert.match(run.stdout, /The three lookups ran in parallel/);
    assert.match(run.stdout, /GET {2}https:\/\/crm\.example\.com\/v2\/customers\/C-1042 +Authorization: Bearer <CRM_TOKEN> ✓ {2}→ 200/);
    assert.match(
      run.stdout,
      /POST https:\/\/billing\.example\.com\/api\/invoices\/search +Authorization: Basic <BILLING_BASIC> ✓ {2}→ 200/,
    );
    assert.match(run.stdout, /GET {2}https:\/\/support\.example\.com\/api\/tickets +\?api_key=<SUPPORT_API_KEY> ✓ {2}→ 200/);
  });

  it('runs Receipt scanner with a file, as multipart', () => {
    assert.match(run.stdout, /POST http:\/\/127\.0\.0\.1:\d+\/api\/local\/agent\/receipt-scanner\/execute\/multipart\n/);
    assert.match(run.stdout, /part "receipt": examples\/files\/receipt\.pdf \(\d+ bytes, application\/pdf\)/);
    assert.match(run.stdout, /"claim_id": "EXP-2025-0193"/);
    assert.match(run.stdout, /"merchant": "CAFE AURORA"/);
    assert.match(
      run.stdout,
      /POST https:\/\/ocr\.example\.com\/v1\/receipts +Authorization: Bearer <OCR_TOKEN> ✓ {2}→ 200 \(sent \d+ bytes of application\/pdf\)/,
    );
    assert.match(run.stdout, /POST https:\/\/expenses\.example\.com\/api\/claims +x-api-key: <EXPENSES_API_KEY> ✓ {2}→ 201/);
  });

  it('polls each execution to "finished", shows the refused wrong key, and shuts down', () => {
    const ids = [...run.stdout.matchAll(/^ {3}execution id (\S+)$/gm)].map((match) => match[1]);
    assert.equal(ids.length, 2);
    for (const id of ids) assert.match(run.stdout, new RegExp(`\\[server\\] execution ${id} local/[a-z0-9-]+ finished in \\d+ ms`));
    assert.equal([...run.stdout.matchAll(/^ {3}poll \d+ \(\d+ ms\): finished/gm)].length, 2);
    assert.match(run.stdout, /A status read with a wrong key is refused \(401 Unauthorized\)/);
    assert.match(run.stdout, /local agent server stopped\n {3}mock APIs stopped\n/);
    assert.match(
      run.stdout,
      /\nDemo finished: 2 agents ran through the local agent server; 5 API calls, each with the expected credential\.\n/,
    );
  });

  it('never prints a secret value', () => {
    for (const [name, value] of Object.entries(DEMO_SECRETS)) assert.ok(!run.stdout.includes(value), `${name} is not printed`);
  });
});
