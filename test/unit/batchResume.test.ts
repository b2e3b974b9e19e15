// Resuming a batch, in-process against a real server on 127.0.0.1: the state file --state names
// (the printed resume command keeps it and works), --restart-unknown starting again the rows whose
// start was sent but not answered (and only with it), and the printed resume command keeping the
// environment (--env, --envs-file) so the resume polls the service the batch started on.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import type { CliRun } from '../support/cli';
import { rowsAgent, startBatchService } from '../support/batchService';
import type { BatchService } from '../support/batchService';
import { closedPort } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';
import type { RowResult } from '../../src/core/batch/batchModel';

const KEY = 'batch-resume-key-3';

function readLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

const rowsOf = (count: number): string => Array.from({ length: count }, (_, i) => JSON.stringify({ id: i + 1 })).join('\n') + '\n';

/** The arguments of the command printed after "resume with:" (every word of it plain, unquoted). */
function printedResume(stderr: string): string[] {
  const command = /^resume with: agent-workflows (.*)$/m.exec(stderr)?.[1];
  assert.ok(command, `a resume command is printed: ${stderr}`);
  assert.doesNotMatch(command, /['"\\]/, 'plain words, split on spaces');
  return command.split(' ');
}

describe('agent-workflows batch: resuming', () => {
  let dir: TempDir;
  let service: BatchService | undefined;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
    dir.remove();
  });

  const cli = (args: readonly string[], interrupt?: AbortSignal): Promise<CliRun> =>
    runCliCaptured(args, { cwd: dir.path, env: { AGENT_WORKFLOWS_API_KEY: KEY }, ...(interrupt ? { interrupt } : {}) }, [KEY]);

  const startedIds = (s: BatchService): number[] => s.started.map((execution) => Number(execution.inputs.id)).sort((a, b) => a - b);

  /** Runs `args`, stopped (as by Ctrl-C) once the service has started `after` executions. */
  async function interrupted(s: BatchService, args: readonly string[], after: number): Promise<CliRun> {
    const interrupt = new AbortController();
    const running = cli(args, interrupt.signal);
    while (s.started.length < after) await new Promise((resolve) => setTimeout(resolve, 10));
    interrupt.abort();
    return running;
  }

  it('--state keeps the state where it says; the printed resume command names it, and goes on with the batch', async () => {
    const s = (service = await startBatchService({ apiKey: KEY, durationMs: () => 300 }));
    dir.write('rows.agent.yaml', rowsAgent(s.url));
    dir.write('rows.jsonl', rowsOf(6));
    const noOut = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--state', 'runs/one.state']);
    assert.equal(noOut.code, 2);
    assert.match(noOut.stderr, /--state goes with --out/);

    const args = ['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--state', 'one.state', '--concurrency', '2'];
    const stopped = await interrupted(s, args, 2);
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.ok(existsSync(join(dir.path, 'one.state')), 'the state is in the file --state names');
    assert.ok(!existsSync(join(dir.path, 'out.jsonl.state')), 'and not next to the results');
    const [header, ...events] = readLines<Record<string, unknown>>(join(dir.path, 'one.state'));
    assert.equal(header?.data, join(dir.path, 'rows.jsonl'));
    const startedBefore = events.filter((event) => event.e === 'started').map((event) => event.id);
    assert.ok(startedBefore.length >= 2, 'the executions started are in it, with their ids');

    // Without --state, the batch's state is not found: said so, nothing sent.
    const sent = s.log.length;
    const lost = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--resume']);
    assert.equal(lost.code, 2);
    assert.match(lost.stderr, /There is no state file .*out\.jsonl\.state to resume from/);
    assert.equal(s.log.length, sent);

    const resume = printedResume(stopped.stderr);
    assert.deepEqual(resume.slice(resume.indexOf('--state'), resume.indexOf('--state') + 2), ['--state', 'one.state']);
    const resumed = await cli(resume);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /6 rows: 6 finished/);
    assert.deepEqual(startedIds(s), [1, 2, 3, 4, 5, 6], 'every row started once');
    const lines = readLines<RowResult>(join(dir.path, 'out.jsonl'));
    assert.deepEqual(lines.map((line) => line.row).sort(), [1, 2, 3, 4, 5, 6]);
    for (const id of startedBefore)
      assert.ok(
        lines.some((line) => line.executionId === id),
        `execution ${String(id)}, started before the stop, polled again`,
      );
    assert.ok(readLines<Record<string, unknown>>(join(dir.path, 'one.state')).some((event) => event.e === 'ended' && event.row === 6));
  });

  it('--restart-unknown starts again the rows whose start was not answered, and only those', async () => {
    const s = (service = await startBatchService({ apiKey: KEY, durationMs: () => 100 }));
    dir.write('rows.agent.yaml', rowsAgent(s.url));
    dir.write('rows.jsonl', rowsOf(5));
    // Row 2 was started by the earlier run: its execution is on the service.
    const response = await fetch(`${s.url}/api/acme/agent/rows/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { id: 2 } }),
    });
    const { executionId } = (await response.json()) as { executionId: string };
    // What the earlier run left: row 1 ended; row 2 started; row 3's start sent, its answer never
    // recorded; row 4 the same, then reported unknown by a resume; row 5 not reached.
    const t = Date.now() - 5000;
    const state = [
      {
        batch: 1,
        agent: join(dir.path, 'rows.agent.yaml'),
        data: join(dir.path, 'rows.jsonl'),
        mode: 'service',
        createdAt: '2026-01-01T00:00:00Z',
      },
      { e: 'starting', row: 1, t },
      { e: 'started', row: 1, id: 'gone-1', t },
      { e: 'ended', row: 1, status: 'finished' },
      { e: 'starting', row: 2, t },
      { e: 'started', row: 2, id: executionId, t },
      { e: 'starting', row: 3, t },
      { e: 'starting', row: 4, t },
      { e: 'ended', row: 4, status: 'unknown' },
    ];
    const results = [
      { row: 1, status: 'finished', executionId: 'gone-1', outputs: { id: '1' } },
      { row: 4, status: 'unknown', error: 'the start request of this row was sent but its answer was not recorded' },
    ];
    const lines = (values: readonly unknown[]): string => values.map((value) => JSON.stringify(value)).join('\n') + '\n';
    for (const name of ['kept', 'restarted']) {
      dir.write(`${name}.jsonl.state`, lines(state));
      dir.write(`${name}.jsonl`, lines(results));
    }
    const resume = (name: string, ...extra: string[]) =>
      cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', `${name}.jsonl`, '--resume', ...extra]);

    // Without it: rows 3 and 4 may be running, so neither is started again.
    const kept = await resume('kept');
    assert.equal(kept.code, 1, kept.stderr);
    assert.match(kept.stderr, /row 3: the start request of this row was sent .*restart the rows whose start is unknown/);
    assert.match(kept.stderr, /^2 rows' starts are unknown: .*add --resume --restart-unknown to start them again/m);
    // The row's own words, which the results table shows the editor's users too, name no flag.
    assert.doesNotMatch(readFileSync(join(dir.path, 'kept.jsonl'), 'utf8'), /--/);
    assert.match(kept.stderr, /5 rows: 3 finished, 2 unknown \(possibly started\)/);
    assert.deepEqual(startedIds(s), [2, 5], 'only row 5 was started');
    const keptByRow = new Map(readLines<RowResult>(join(dir.path, 'kept.jsonl')).map((line) => [line.row, line]));
    assert.equal(keptByRow.get(2)?.executionId, executionId, 'row 2 polled again');
    assert.equal(keptByRow.get(2)?.status, 'finished');
    assert.equal(keptByRow.get(3)?.status, 'unknown');

    // With it: rows 3 (starting, no id) and 4 (ended unknown) start again; row 2 is polled, not started.
    const restarted = await resume('restarted', '--restart-unknown');
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.match(restarted.stderr, /5 rows: 5 finished/);
    assert.deepEqual(startedIds(s), [2, 3, 4, 5, 5], 'rows 3, 4 and 5 started (5 once for each results file)');
    const all = readLines<RowResult>(join(dir.path, 'restarted.jsonl'));
    const last = new Map(all.map((line) => [line.row, line]));
    assert.deepEqual(
      [...last.values()].map((line) => [line.row, line.status]).sort(([a], [b]) => Number(a) - Number(b)),
      [
        [1, 'finished'],
        [2, 'finished'],
        [3, 'finished'],
        [4, 'finished'],
        [5, 'finished'],
      ],
    );
    assert.deepEqual(
      all.filter((line) => line.row === 4).map((line) => line.status),
      ['unknown', 'finished'],
      "row 4's new result follows its unknown one",
    );
    assert.equal(last.get(2)?.executionId, executionId);
    for (const row of [3, 4])
      assert.equal(
        s.started.find((execution) => execution.id === last.get(row)?.executionId)?.inputs.id,
        row,
        `row ${row}'s result is of the execution started for it`,
      );
  });

  it('the printed resume command keeps --env and --envs-file: the resume polls the service the batch started on', async () => {
    const s = (service = await startBatchService({ apiKey: KEY, durationMs: () => 300 }));
    const port = await closedPort();
    // The default environment is elsewhere (nothing listens there): a resume without --env goes there.
    dir.write(
      'envs.yaml',
      `default: dev\nenvironments:\n  dev:\n    baseUrl: http://127.0.0.1:${port}\n    account: acme\n  staging:\n    baseUrl: ${s.url}\n    account: acme\n`,
    );
    dir.write('rows.agent.yaml', rowsAgent(`http://127.0.0.1:${port}`));
    dir.write('rows.jsonl', rowsOf(5));
    const args = [
      'batch',
      'rows.agent.yaml',
      '--data',
      'rows.jsonl',
      '--out',
      'out.jsonl',
      '--env',
      'staging',
      '--envs-file',
      'envs.yaml',
      '--concurrency',
      '2',
    ];
    const stopped = await interrupted(s, args, 2);
    assert.equal(stopped.code, 130, stopped.stderr);
    const resume = printedResume(stopped.stderr);
    assert.deepEqual(resume.slice(resume.indexOf('--env'), resume.indexOf('--env') + 2), ['--env', 'staging']);
    assert.deepEqual(resume.slice(resume.indexOf('--envs-file'), resume.indexOf('--envs-file') + 2), ['--envs-file', 'envs.yaml']);
    const resumed = await cli(resume);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /5 rows: 5 finished/);
    assert.deepEqual(startedIds(s), [1, 2, 3, 4, 5], 'every row started once, on the staging service');
  });
  describe('a resume against changed files or a damaged state is refused', () => {
    const stateLines = (values: readonly unknown[]): string => values.map((value) => JSON.stringify(value)).join('\n') + '\n';

    it('refuses a resume after the data file or the agent file changed, naming which (exit 2, nothing sent)', async () => {
      const s = (service = await startBatchService({ apiKey: KEY, durationMs: () => 50 }));
      dir.write('rows.agent.yaml', rowsAgent(s.url));
      dir.write('rows.jsonl', rowsOf(4));
      const first = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--limit', '2']);
      assert.equal(first.code, 0, first.stderr);
      const [header] = readLines<{ fingerprint?: unknown }>(join(dir.path, 'out.jsonl.state'));
      assert.ok(header?.fingerprint, 'the header records the files it ran');

      // A row inserted at the start: every row number now means another row.
      dir.write('rows.jsonl', JSON.stringify({ id: 0 }) + '\n' + rowsOf(3));
      const sent = s.log.length;
      const changed = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--resume']);
      assert.equal(changed.code, 2, changed.stderr);
      assert.match(changed.stderr, /cannot resume: the data file rows\.jsonl changed since the batch started/);
      assert.doesNotMatch(changed.stderr, /agent file/);
      assert.match(changed.stderr, /another --out/);
      assert.equal(s.log.length, sent, 'nothing sent');
      assert.deepEqual(startedIds(s), [1, 2], 'no row started twice');

      // Back as it was, but the agent changed.
      dir.write('rows.jsonl', rowsOf(4));
      dir.write('rows.agent.yaml', rowsAgent(s.url).replace('name: Rows', 'name: Rows changed'));
      const agent = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--resume']);
      assert.equal(agent.code, 2, agent.stderr);
      assert.match(agent.stderr, /cannot resume: the agent file rows\.agent\.yaml changed since the batch started/);
      assert.equal(s.log.length, sent, 'nothing sent');

      // Both as they were: the resume goes on.
      dir.write('rows.agent.yaml', rowsAgent(s.url));
      const resumed = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--resume']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /4 rows: 4 finished/);
      assert.deepEqual(startedIds(s), [1, 2, 3, 4], 'every row started once');
    });

    it('resumes a state file written before fingerprints, saying the files cannot be checked', async () => {
      const s = (service = await startBatchService({ apiKey: KEY, durationMs: () => 50 }));
      dir.write('rows.agent.yaml', rowsAgent(s.url));
      dir.write('rows.jsonl', rowsOf(3));
      const header = {
        batch: 1,
        agent: join(dir.path, 'rows.agent.yaml'),
        data: join(dir.path, 'rows.jsonl'),
        mode: 'service',
        createdAt: '2026-01-01T00:00:00Z',
      };
      dir.write('old.jsonl.state', stateLines([header, { e: 'ended', row: 1, status: 'finished' }]));
      dir.write('old.jsonl', stateLines([{ row: 1, status: 'finished', outputs: { id: '1' } }]));
      const resumed = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'old.jsonl', '--resume']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /old\.jsonl\.state does not record the data and agent files it ran: they cannot be checked/);
      assert.match(resumed.stderr, /3 rows: 3 finished/);
      assert.deepEqual(startedIds(s), [2, 3]);
    });

    it('refuses a state file with lines for rows that do not exist or statuses that are not known (exit 2, nothing sent)', async () => {
      const s = (service = await startBatchService({ apiKey: KEY, durationMs: () => 50 }));
      dir.write('rows.agent.yaml', rowsAgent(s.url));
      dir.write('rows.jsonl', rowsOf(10));
      const first = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--limit', '2']);
      assert.equal(first.code, 0, first.stderr);
      const good = readFileSync(join(dir.path, 'out.jsonl.state'), 'utf8');
      const goodLines = good.trimEnd().split('\n').length;
      const sent = s.log.length;
      const tampered: Array<[unknown, RegExp]> = [
        [{ e: 'ended', row: -3, status: 'finished' }, /row -3 is not a row of the data file/],
        [{ e: 'ended', row: 2.5, status: 'finished' }, /row 2\.5 is not a row of the data file/],
        [{ e: 'ended', row: 11, status: 'finished' }, /row 11 is not a row of the data file \(it has 10\)/],
        [{ e: 'ended', row: 4, status: 'constructor' }, /"constructor" is not a status of a row/],
        [{ e: 'started', row: 5, id: 42 }, /no execution id/],
        [{ e: 'restarted', row: 5 }, /"restarted" is not an event of the state file/],
        [[1, 2], /not an event of the state file/],
      ];
      for (const [line, expected] of tampered) {
        dir.write('out.jsonl.state', good + JSON.stringify(line) + '\n');
        const run = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--resume']);
        assert.equal(run.code, 2, `${JSON.stringify(line)}: ${run.stderr}`);
        assert.match(run.stderr, new RegExp(`cannot resume: out\\.jsonl\\.state, line ${goodLines + 1}: `), run.stderr);
        assert.match(run.stderr, expected);
        assert.match(run.stderr, /damaged/);
        assert.equal(s.log.length, sent, 'nothing sent');
      }
      // The results file is checked the same way.
      dir.write('out.jsonl.state', good);
      const results = readFileSync(join(dir.path, 'out.jsonl'), 'utf8');
      dir.write('out.jsonl', results + JSON.stringify({ row: 12, status: 'finished' }) + '\n');
      const run = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--resume']);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /cannot resume: out\.jsonl, line 3: row 12 is not a row of the data file/);
      assert.equal(s.log.length, sent, 'nothing sent');
      // A line torn by a crash is still not damage.
      dir.write('out.jsonl', results);
      dir.write('out.jsonl.state', good + '{"e":"ended","row":3,"sta\n');
      const torn = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--resume']);
      assert.equal(torn.code, 0, torn.stderr);
      assert.match(torn.stderr, /10 rows: 10 finished/);
    });

    it('fuzz: a state file mutated at random is refused or resumed truthfully, never with phantom rows', async function () {
      this.timeout(120_000);
      const s = (service = await startBatchService({ apiKey: KEY, durationMs: () => 5 }));
      dir.write('rows.agent.yaml', rowsAgent(s.url));
      dir.write('rows.jsonl', rowsOf(6));
      const first = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--limit', '3']);
      assert.equal(first.code, 0, first.stderr);
      const goodState = readFileSync(join(dir.path, 'out.jsonl.state'), 'utf8');
      const goodResults = readFileSync(join(dir.path, 'out.jsonl'), 'utf8');
      const lines = goodState.trimEnd().split('\n');
      // Seeded, so a failure is the same on every run (the seed is in the message).
      let seed = 0x2f6e2b1;
      const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
      const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
      const HOSTILE: readonly unknown[] = [
        -3,
        0,
        2.5,
        7,
        1e21,
        '2',
        null,
        true,
        'constructor',
        '__proto__',
        'toString',
        'finished',
        'unknown',
        [],
        {},
      ];
      const outcomes = { refused: 0, resumed: 0 };
      for (let variant = 0; variant < 40; variant++) {
        const mutated = [...lines];
        const at = 1 + Math.floor(next() * (lines.length - 1)); // never the header
        const event = JSON.parse(lines[at]!) as Record<string, unknown>;
        const how = pick(['value', 'duplicate', 'inject'] as const);
        if (how === 'duplicate') mutated.splice(at, 0, lines[at]!);
        else {
          const key = pick(Object.keys(event));
          const changed = JSON.stringify({ ...event, [key]: pick(HOSTILE) });
          if (how === 'value') mutated[at] = changed;
          else mutated.push(changed);
        }
        dir.write('out.jsonl.state', `${mutated.join('\n')}\n`);
        dir.write('out.jsonl', goodResults);
        const before = s.started.length;
        const run = await cli(['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--resume']);
        const what = `variant ${variant} (${how} at line ${at + 1}): ${mutated.slice(1).join(' | ')}\n${run.stderr}`;
        assert.ok([0, 1, 2].includes(run.code), what);
        if (run.code === 2) {
          assert.match(run.stderr, /cannot resume/, what);
          assert.equal(s.started.length, before, `nothing sent when refused: ${what}`);
          outcomes.refused++;
          continue;
        }
        outcomes.resumed++;
        // Resumed: every row of the data once in the results, none twice and none that does not exist,
        // and the count line adds up to the rows there are.
        const rows = readLines<RowResult>(join(dir.path, 'out.jsonl')).map((result) => result.row);
        assert.deepEqual([...new Set(rows)].sort(), [1, 2, 3, 4, 5, 6], what);
        assert.equal(rows.length, 6, `one result a row: ${what}`);
        const startedNow = s.started.slice(before).map((execution) => Number(execution.inputs.id));
        assert.equal(new Set(startedNow).size, startedNow.length, `no row started twice: ${what}`);
        assert.match(run.stderr, /^6 rows: /m, what);
      }
      // Both kinds of mutation came up: damage that is refused, and changes a resume can take.
      assert.ok(outcomes.refused > 0 && outcomes.resumed > 0, JSON.stringify(outcomes));
    });
  });
});
