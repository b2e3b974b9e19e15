// `agent-workflows compare`: real batches run against the local agent server on 127.0.0.1 (the same
// data, the agent changed between the runs: another endpoint of a real API) compared through the
// command line in-process, as text, JSON and Markdown; --fail-on and the exit codes; a truncated
// results file (its bad line named, the rest compared); two agent-test reports of the agent before
// and after a change; and once as the built binary.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startAgentServer } from '../../src/core/server/agentServer';
import type { AgentServer } from '../../src/core/server/agentServer';
import type { Comparison } from '../../src/core/compare/compareRuns';
import { runCliCaptured } from '../support/cli';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'compare-test-key-0123456789';
const execFileAsync = promisify(execFile);

/** The agent: a person's title from the API, at `path` (v1 or v2 of the API: the change between runs). */
const agentText = (api: string, path: string): string => `version: 1
name: Lookup
inputs:
  who: { type: string, required: true }
nodes:
  person:
    type: api
    method: GET
    url: ${api}/${path}/{{ inputs.who }}
outputs:
  title: { from: "{{ nodes.person.body.title }}" }
`;

const PEOPLE = ['Ada', 'Grace', 'Nobody', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'John', 'Margaret'];

describe('agent-workflows compare', function () {
  this.timeout(60_000);
  let dir: TempDir;
  let api: TestServer;
  let server: AgentServer;

  before(async () => {
    dir = makeTempDir();
    // v1 knows everybody but Nobody; v2 knows Nobody, has lost Grace, and titles Ada otherwise.
    api = await startServer((request, response) => {
      const [, version, , who] = (request.url ?? '').split('/');
      const name = decodeURIComponent(who ?? '');
      if (version === 'v1' && name === 'Nobody') return json(response, 500, { error: 'no such person' });
      if (version === 'v2' && name === 'Grace') return json(response, 500, { error: 'lost' });
      json(response, 200, { title: version === 'v2' && name === 'Ada' ? 'Countess Ada' : `Dr ${name}` });
    });
    dir.write('agents/lookup.agent.yaml', agentText(api.url, 'v1/people'));
    server = await startAgentServer({ directory: join(dir.path, 'agents'), port: 0, apiKey: KEY, watch: false });
    await server.rescan();
    // The same data both times: an id (not an input: kept for --key), who, and the title expected.
    dir.write(
      'people.jsonl',
      PEOPLE.map((who, index) => JSON.stringify({ id: `p-${index + 1}`, who, 'expect.title': `Dr ${who}` })).join('\n') + '\n',
    );
    writeFileSync(join(dir.path, 'lookup.agent.yaml'), agentText(api.url, 'v1/people'));
    const target = ['--base-url', server.url, '--account', 'local', '--agent', 'lookup', '--rate', '100'];
    const first = await cli(['batch', 'lookup.agent.yaml', '--data', 'people.jsonl', '--out', 'a.jsonl', ...target]);
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /column "id" of the data is not an input: kept in each row's result/);
    // The agent changes (another endpoint), on the server and in the file; the same data again.
    dir.write('agents/lookup.agent.yaml', agentText(api.url, 'v2/people'));
    await server.rescan();
    writeFileSync(join(dir.path, 'lookup.agent.yaml'), agentText(api.url, 'v2/people'));
    const second = await cli(['batch', 'lookup.agent.yaml', '--data', 'people.jsonl', '--out', 'b.jsonl', ...target]);
    assert.equal(second.code, 1, second.stderr);
  });

  after(async () => {
    await server?.close();
    await api?.close();
    dir?.remove();
  });

  const cli = (args: string[]) => runCliCaptured(args, { cwd: dir.path, env: { AGENT_WORKFLOWS_API_KEY: KEY } }, [KEY]);

  it('says what changed between the two batches: regressions, the fix, outputs with a diff, the summary', async () => {
    const result = await cli(['compare', 'a.jsonl', 'b.jsonl', '--key', 'id']);
    assert.equal(result.code, 0, result.stderr);
    const text = result.stdout;
    assert.match(text, /matched by column "id": 10 rows in both, 7 unchanged/);
    assert.match(text, /pass rate +90\.0% \(9\/10\) +80\.0% \(8\/10\)/);
    assert.match(text, /failures +1 +1/);
    assert.match(
      text,
      /Regressions \(2\):\n {2}id p-1 \(rows 1\/1\): passed → not passed; outputs changed: title\n {4}title:\n {6}- Dr Ada\n {6}\+ Countess Ada\n {2}id p-2 \(rows 2\/2\): finished → failed; passed → not passed\n/,
    );
    assert.match(text, /Fixes \(1\):\n {2}id p-3 \(rows 3\/3\): failed → finished; not passed → passed\n/);
    assert.match(text, /2 regressions, 1 fix, 1 row with outputs changed, 0 rows only in A, 0 rows only in B\n$/);
    // Matched by row number (the same data): the same rows.
    const byRow = await cli(['compare', 'a.jsonl', 'b.jsonl', '--format', 'json']);
    const comparison = JSON.parse(byRow.stdout) as Comparison;
    assert.deepEqual(comparison.matchedBy, { kind: 'row' });
    assert.deepEqual(comparison.regressions.items.map((change) => change.key).sort(), ['1', '2']);
    assert.equal(comparison.fixes.items[0]?.key, '3');
    assert.deepEqual([comparison.a.path, comparison.b.path], ['a.jsonl', 'b.jsonl']);
  });

  it('--fail-on: exit 1 when it finds what it names; markdown for a pull request, regressions first, to a file', async () => {
    assert.equal((await cli(['compare', 'a.jsonl', 'b.jsonl', '--fail-on', 'regression'])).code, 1);
    assert.equal((await cli(['compare', 'a.jsonl', 'b.jsonl', '--fail-on', 'change'])).code, 1);
    assert.equal((await cli(['compare', 'a.jsonl', 'a.jsonl', '--fail-on', 'change'])).code, 0, 'a run against itself');
    const written = await cli(['compare', 'a.jsonl', 'b.jsonl', '--format', 'markdown', '--output', 'comment.md', '--key', 'id']);
    assert.equal(written.code, 0, written.stderr);
    assert.equal(written.stdout, '');
    assert.match(written.stderr, /^2 regressions, 1 fix, .*\ncomparison written to comment\.md\n$/);
    const markdown = readFileSync(join(dir.path, 'comment.md'), 'utf8');
    assert.match(markdown, /^### Agent runs compared: ⚠️ 2 regressions\n/);
    assert.match(markdown, /\| pass rate \| 90\.0% \(9\/10\) \| 80\.0% \(8\/10\) \|/);
    const table = markdown.split('\n').filter((line) => /^\| [🔴🟢🟡]/u.test(line));
    assert.deepEqual(
      table.map((line) => line.split(' | ')[0]),
      ['| 🔴 regression', '| 🔴 regression', '| 🟢 fix'],
    );
    assert.match(table[0]!, /`- Dr Ada`<br>`\+ Countess Ada`/);
  });

  it('names the bad line of a truncated results file and compares the rest; usage errors exit 2 naming the file', async () => {
    const cut = readFileSync(join(dir.path, 'b.jsonl'), 'utf8').split('\n').slice(0, 9).join('\n');
    writeFileSync(join(dir.path, 'cut.jsonl'), `${cut}\n{"row":10,"status":"fin`);
    const result = await cli(['compare', 'a.jsonl', 'cut.jsonl']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /^agent-workflows: cut\.jsonl, line 10: not valid JSON \(.*\): cut short, or edited by hand\? \(skipped; the other lines are compared\)$/m,
    );
    assert.match(result.stdout, /Only in A \(1\): \d+/);

    const missing = await cli(['compare', 'a.jsonl', 'missing.jsonl']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing\.jsonl cannot be read: /);
    writeFileSync(join(dir.path, 'notes.txt'), 'hello\n');
    const neither = await cli(['compare', 'notes.txt', 'a.jsonl']);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /notes\.txt, line 1: neither a batch's result .* nor an agent-test JSON report/);
    const badFlag = await cli(['compare', 'a.jsonl', 'b.jsonl', '--fail-on', 'everything']);
    assert.equal(badFlag.code, 2);
  });

  it('Ctrl-C while the files are read: no report printed or written, exit 130', async () => {
    // Ctrl-C as the third read starts (both files' kinds known, their rows being compared).
    const interrupt = new AbortController();
    let reads = 0;
    const add = interrupt.signal.addEventListener.bind(interrupt.signal);
    interrupt.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      if (args[0] === 'abort' && ++reads === 3) queueMicrotask(() => interrupt.abort());
      add(...args);
    }) as AbortSignal['addEventListener'];
    const args = ['compare', 'a.jsonl', 'b.jsonl', '--fail-on', 'regression', '--output', 'stopped.md', '--format', 'markdown'];
    const result = await runCliCaptured(args, { cwd: dir.path, env: {}, interrupt: interrupt.signal });
    assert.ok(interrupt.signal.aborted, 'the signal fired during the comparison');
    assert.equal(result.code, 130, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'agent-workflows: compare stopped: no comparison written to stopped.md\n');
    assert.equal(existsSync(join(dir.path, 'stopped.md')), false);
    // Ctrl-C before it starts: the same, not "no rows to compare".
    const before = await runCliCaptured(['compare', 'a.jsonl', 'b.jsonl'], { cwd: dir.path, env: {}, interrupt: AbortSignal.abort() });
    assert.equal(before.code, 130, before.stderr);
    assert.equal(before.stdout, '');
    assert.match(before.stderr, /compare stopped: no comparison printed/);
  });

  it('refuses runs of different agents unless --force', async () => {
    const header = readFileSync(join(dir.path, 'b.jsonl.state'), 'utf8').split('\n')[0]!;
    const other = { ...(JSON.parse(header) as Record<string, unknown>), agent: join(dir.path, 'other.agent.yaml') };
    writeFileSync(join(dir.path, 'c.jsonl'), readFileSync(join(dir.path, 'b.jsonl')));
    writeFileSync(join(dir.path, 'c.jsonl.state'), `${JSON.stringify(other)}\n`);
    const refused = await cli(['compare', 'a.jsonl', 'c.jsonl']);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /a\.jsonl and c\.jsonl are runs of different agents \(lookup\.agent\.yaml and other\.agent\.yaml, by their state files\)\. To compare them by output names anyway, add --force\./,
    );
    const forced = await cli(['compare', 'a.jsonl', 'c.jsonl', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stderr, /note: the runs are of different agents/);
    assert.match(forced.stdout, /Regressions \(2\)/);
  });

  it('compares two agent-test JSON reports of the agent before and after a change', async () => {
    dir.write(
      'greet/greet.agent.yaml',
      'version: 1\nname: Greet\ninputs:\n  who: { type: string }\nnodes:\n  say:\n    type: template\n    text: "Hello {{ inputs.who }}"\noutputs:\n  greeting: { from: "{{ nodes.say.body }}" }\n',
    );
    dir.write(
      'greet/greet.agent.test.yaml',
      'cases:\n  ada:\n    inputs: { who: Ada }\n    expect: { outputs: { greeting: Hello Ada } }\n  grace:\n    inputs: { who: Grace }\n    expect: { outputs: { greeting: Hi Grace } }\n',
    );
    assert.equal((await cli(['test', 'greet', '--reporter', 'json', '--output', 'r1.json'])).code, 1);
    dir.write('greet/greet.agent.yaml', readFileSync(join(dir.path, 'greet/greet.agent.yaml'), 'utf8').replace('Hello', 'Hi'));
    assert.equal((await cli(['test', 'greet', '--reporter', 'json', '--output', 'r2.json'])).code, 1);
    const result = await cli(['compare', 'r1.json', 'r2.json', '--fail-on', 'regression']);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /matched by test file and case name: 2 rows in both/);
    assert.match(result.stdout, /Regressions \(1\):\n {2}greet\/greet\.agent\.test\.yaml › ada: passed → not passed\n/);
    assert.match(result.stdout, /Fixes \(1\):\n {2}greet\/greet\.agent\.test\.yaml › grace: not passed → passed\n/);
    const mixed = await cli(['compare', 'a.jsonl', 'r1.json']);
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /a\.jsonl is a batch results file and r1\.json an agent-test report: compare two of the same kind\./);
  });

  it('runs as the built binary (dist/cli.js, its lazy bundle)', () => {
    appendFileSync(join(dir.path, 'a.jsonl'), '');
    let code = 0;
    let stdout = '';
    try {
      stdout = execFileSync(
        process.execPath,
        [join(repoRoot, 'dist', 'cli.js'), 'compare', 'a.jsonl', 'b.jsonl', '--fail-on', 'regression'],
        {
          cwd: dir.path,
          encoding: 'utf8',
        },
      );
    } catch (error) {
      code = (error as { status: number }).status;
      stdout = (error as { stdout: string }).stdout;
    }
    assert.equal(code, 1);
    assert.match(stdout, /2 regressions, 1 fix/);
  });
});

describe('agent-workflows compare: a line too long to read whole', function () {
  this.timeout(60_000);
  let dir: TempDir;
  before(() => (dir = makeTempDir()));
  after(() => dir?.remove());

  /** Writes lines to a file, each `{ long }` line's `long` replaced by a 17 MiB string, streamed. */
  const writeLines = async (name: string, lines: ReadonlyArray<{ readonly head: string; readonly long?: string }>): Promise<void> => {
    const out = createWriteStream(join(dir.path, name));
    const block = 'x'.repeat(1024 * 1024);
    for (const { head, long } of lines) {
      if (long === undefined) {
        out.write(`${head}\n`);
        continue;
      }
      out.write(`${head}"${long}":"`);
      for (let i = 0; i < 17; i++) if (!out.write(block)) await once(out, 'drain');
      out.write('"}\n');
    }
    out.end();
    await once(out, 'close');
  };
  const built = async (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await execFileAsync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], {
        cwd: dir.path,
        encoding: 'utf8',
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it("counts the row and status of a 17 MiB line (its key too, from the line's start): a regression is found", async () => {
    const finished = (row: number, id: string): { head: string } => ({
      head: JSON.stringify({ row, status: 'finished', inputs: { q: id }, columns: { id }, outputs: { x: row } }),
    });
    await writeLines('a.jsonl', [finished(1, 'one'), finished(2, 'two')]);
    // As a batch writes it (row and status first), and as edited by hand (another order, spaces).
    await writeLines('b.jsonl', [
      { head: '{"row":1,"status":"failed","inputs":{"q":"one"},"columns":{"id":"one"},', long: 'error' },
      finished(2, 'two'),
    ]);
    await writeLines('b-edited.jsonl', [
      finished(2, 'two'),
      { head: '{ "columns": {"id": "one"}, "status" : "failed", "note": "a \\"quoted\\" {", "row": 1, ', long: 'error' },
    ]);
    for (const [b, key] of [
      ['b.jsonl', []],
      ['b.jsonl', ['--key', 'id']],
      ['b-edited.jsonl', []],
      ['b-edited.jsonl', ['--key', 'id']],
    ] as const) {
      const result = await built(['compare', 'a.jsonl', b, '--fail-on', 'regression', ...key]);
      assert.equal(result.code, 1, `${b} ${key.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(
        result.stdout,
        /^1 regression, 0 fixes, 0 rows with outputs changed, 0 rows only in A, 0 rows only in B$/m,
        `${b} ${key}`,
      );
      assert.match(result.stdout, /Regressions \(1\):\n {2}(row 1|id one \(rows 1\/1\)): finished → failed\n/, result.stdout);
    }
    // A key not within the line's start: named as a bad line, never counted as another row.
    await writeLines('b-late-key.jsonl', [{ head: '{"row":1,"status":"failed",', long: 'error' }, finished(2, 'two')]);
    const late = await built(['compare', 'a.jsonl', 'b-late-key.jsonl', '--key', 'id']);
    assert.match(
      late.stderr,
      /b-late-key\.jsonl, line 1: row 1: longer than 16777216 bytes, and its first 16777216 hold no value in column "id"/,
    );
  });
});
