// The pace and figures of a batch against a service, on a real server on 127.0.0.1 that throttles:
// how many executions run at once and how many requests a second the service sees after a 429 or
// a 503 (cut by half, grown back slowly), counted in virtual seconds on a fake clock the batch and
// the service share; the p50/p95 of the summary and the timings of each results line against the
// service's own log, and the live progress line's ETA and throttled count.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { runBatch } from '../../src/core/batch/runBatch';
import type { RowResult } from '../../src/core/batch/batchModel';
import type { BatchCounts, BatchEvent } from '../../src/core/batch/runBatch';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { rowsAgent, startBatchService } from '../support/batchService';
import type { BatchService, BatchServiceExecution, BatchServiceOptions } from '../support/batchService';
import { requestsUnderWay } from '../support/clientChannels';
import { FakeClock, withVirtualTime } from '../support/fakeClock';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'batch-pace-key-7';

const rowsOf = (count: number): string => Array.from({ length: count }, (_, i) => JSON.stringify({ id: i + 1 })).join('\n') + '\n';

/** When the service answered that this execution had ended (Infinity while it has not). */
function endSeenAt(service: BatchService, execution: BatchServiceExecution): number {
  return service.log.find((entry) => entry.executionId === execution.id && entry.ended)?.at ?? Infinity;
}

/** Executions the service had started and not yet said ended, as each start was accepted (itself included). */
function runningAtEachStart(service: BatchService): Array<{ readonly at: number; readonly running: number }> {
  return service.started.map((execution) => ({
    at: execution.startedAt,
    running: service.started.filter((other) => other.startedAt <= execution.startedAt && endSeenAt(service, other) > execution.startedAt)
      .length,
  }));
}

/** The most requests the service received in any one second from `from` to `to`. */
function busiestSecond(service: BatchService, from: number, to: number): number {
  const times = service.log.map((entry) => entry.at).filter((at) => at >= from && at < to);
  return Math.max(0, ...times.map((at) => times.filter((other) => other >= at && other < at + 1000 && other < to).length));
}

describe('agent-workflows batch: pace and figures', () => {
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

  async function serve(options: Omit<BatchServiceOptions, 'apiKey'>): Promise<BatchService> {
    service = await startBatchService({ apiKey: KEY, ...options });
    dir.write('rows.agent.yaml', rowsAgent(service.url));
    return service;
  }

  /** Runs `work` on `clock`, moved on only while no request to the service is under way: virtual time. */
  async function onVirtualTime<T>(clock: FakeClock, s: BatchService, work: Promise<T>): Promise<T> {
    const underWay = requestsUnderWay(s.url);
    return withVirtualTime(clock, () => underWay.count === 0, work).finally(() => underWay.close());
  }

  /**
   * runBatch against the service, in-process: its events, and its summary. On a fake clock (the
   * service's too), time moves on only while no request is under way: virtual time.
   */
  async function batch(s: BatchService, rows: number, concurrency: number, ratePerSecond: number, signal: AbortSignal, clock?: FakeClock) {
    dir.write('rows.jsonl', rowsOf(rows));
    const loaded = loadAgent(rowsAgent(s.url), join(dir.path, 'rows.agent.yaml'));
    const events: Array<{ readonly at: number; readonly event: BatchEvent }> = [];
    const run = runBatch(
      {
        model: loaded.model,
        agentPath: join(dir.path, 'rows.agent.yaml'),
        agentText: rowsAgent(s.url),
        dataPath: join(dir.path, 'rows.jsonl'),
        mode: {
          kind: 'service',
          scheduler: {
            target: { baseUrl: s.url, account: 'acme', agent: 'rows', apiKey: KEY },
            concurrency,
            ratePerSecond,
            ...(clock ? { clock } : {}),
          },
        },
      },
      (event) => events.push({ at: clock?.now() ?? Date.now(), event }),
      signal,
    );
    const summary = clock ? await onVirtualTime(clock, s, run) : await run;
    const throttles = events.flatMap(({ at, event }) => (event.kind === 'throttled' ? [{ at, ...event.info }] : []));
    // The figures reported after the (first) throttled answer.
    const throttledIndex = events.findIndex(({ event }) => event.kind === 'throttled');
    const progressAfter = events
      .slice(throttledIndex + 1)
      .flatMap(({ event }) => (event.kind === 'progress' ? [event.counts] : ([] as BatchCounts[])));
    return { summary, throttles, progressAfter };
  }

  describe('adaptive concurrency and rate', () => {
    it('after a 429, halves the executions running at once, holds them 2 s, then grows them back by one a second', async function () {
      // On a fake clock shared by the batch and the service: the seconds the test counts are virtual.
      const clock = new FakeClock();
      const stop = new AbortController();
      let throttledAt: number | undefined;
      const s = await serve({
        clock,
        durationMs: () => 600,
        // The first start once 8 executions have started is refused (Retry-After: 0, so no pause:
        // what follows is the cut alone).
        throttle: (_n, kind) => {
          if (kind !== 'start' || throttledAt !== undefined || s.started.length < 8) return undefined;
          throttledAt = clock.now();
          return { status: 429, retryAfterSeconds: 0 };
        },
        onStart: () => {
          if (throttledAt !== undefined && clock.now() > throttledAt + 5200) stop.abort();
        },
      });
      const { summary, throttles, progressAfter } = await batch(s, 200, 8, 400, stop.signal, clock);
      assert.ok(throttledAt !== undefined, 'the service throttled');
      assert.equal(summary.stopped?.kind, 'interrupted', 'stopped by the test once the concurrency had had time to grow back');
      assert.equal(throttles.length, 1);
      // The scheduler cut when it read the 429, after the service sent it: cutAt bounds its limit
      // from above; the starts it sent after the cut reach the service after readAt (a start sent
      // just before it may arrive a few ms later: 100 ms is left for those).
      const cutAt = throttledAt;
      const readAt = throttles[0]!.at + 100;

      const running = runningAtEachStart(s);
      const before = running.filter((start) => start.at < cutAt);
      assert.equal(Math.max(...before.map((start) => start.running)), 8, 'before the 429, 8 executions ran at once');
      // The scheduler starts a row only under its limit: no start after the cut sees more running.
      const limitAt = (at: number): number => Math.floor(4 + Math.max(0, at - cutAt - 2000) / 1000);
      const after = running.filter((start) => start.at > readAt);
      for (const start of after)
        assert.ok(
          start.running <= limitAt(start.at),
          `${start.running} executions running ${start.at - cutAt} ms after the 429 (at most ${limitAt(start.at)})`,
        );
      assert.ok(
        after.some((start) => start.at < cutAt + 2000 && start.running === 4),
        'rows went on running, 4 at a time, while the cut held',
      );
      assert.ok(
        after.some((start) => start.at > cutAt + 4000 && start.running >= 6),
        `grown back to 6 running at once 4 s after the 429: ${JSON.stringify(after.map((start) => [start.at - cutAt, start.running]))}`,
      );

      // The scheduler's own figures say the same: cut to 4, then up by steps to 6 or more.
      assert.equal(throttles[0]!.concurrency, 4);
      assert.ok(throttles[0]!.ratePerSecond <= 200, `the rate cut by half at least: ${throttles[0]!.ratePerSecond}`);
      const figures = progressAfter;
      const concurrencies = figures.map((counts) => counts.concurrency);
      assert.equal(concurrencies[0], 4);
      for (let i = 1; i < concurrencies.length; i++)
        assert.ok(concurrencies[i]! - concurrencies[i - 1]! <= 1, `the concurrency grows one at a time: ${concurrencies.join(',')}`);
      assert.ok(Math.max(...concurrencies) >= 6);
      assert.ok(Math.max(...figures.map((counts) => counts.ratePerSecond ?? 0)) > throttles[0]!.ratePerSecond, 'the rate grew back too');
      assert.equal(summary.throttled, 1);
    });

    it('after a 503 on a status read, the service sees half the requests a second until the cut has held 2 s', async function () {
      // On a fake clock shared by the batch and the service: the seconds the test counts are virtual.
      const clock = new FakeClock();
      const stop = new AbortController();
      let firstAt: number | undefined;
      let throttledAt: number | undefined;
      const s = await serve({
        clock,
        durationMs: () => 100,
        // Rows short enough that the batch is held by --rate, not by its concurrency: then a
        // status read, 1.5 s in, answered 503 (no Retry-After: every request waits 1 s).
        throttle: (_n, kind) => {
          firstAt ??= clock.now();
          if (kind !== 'status' || throttledAt !== undefined || clock.now() < firstAt + 1500) return undefined;
          throttledAt = clock.now();
          // Virtual time, not a wait: the batch is stopped 2.6 s of the fake clock after the cut,
          // the window the assertions below count in.
          clock.setTimeout(() => stop.abort(), 2600);
          return { status: 503 };
        },
      });
      const { summary, throttles } = await batch(s, 200, 20, 20, stop.signal, clock);
      assert.ok(throttledAt !== undefined && firstAt !== undefined, 'the service throttled');
      assert.equal(summary.stopped?.kind, 'interrupted');
      assert.deepEqual(
        throttles.map((info) => info.status),
        [503],
      );
      const before = busiestSecond(s, firstAt + 300, throttledAt);
      assert.ok(before >= 16, `before the 503 the batch ran at about --rate 20: ${before} requests in a second`);
      // Paused the first second (no Retry-After), then 10 a second and the bucket's 2 at most.
      const paused = s.log.filter((entry) => entry.at > throttledAt! + 100 && entry.at < throttledAt! + 950);
      assert.equal(paused.length, 0, 'no request while the batch waited the 503 out');
      const held = s.log.filter((entry) => entry.at >= throttledAt! + 1000 && entry.at < throttledAt! + 2000).length;
      assert.ok(held >= 5 && held <= 13, `${held} requests in the second after the pause (half of 20, and the bucket's 2)`);
      assert.ok(throttles[0]!.ratePerSecond <= 10, `rate after the cut: ${throttles[0]!.ratePerSecond}`);
    });
  });

  it("the summary's p50/p95 are those of the rows that finished, and each results line has timings the service's log bears out", async function () {
    // Rows 1-13 take 150 ms and finish; 14-16 take 150 ms and fail; 17-19 take 1, 1.1 and 1.2 s:
    // of virtual time, on a fake clock the command and the service share.
    const durationOf = (id: number): number => (id <= 16 ? 150 : 1000 + (id - 17) * 100);
    const clock = new FakeClock();
    const s = await serve({
      clock,
      durationMs: (inputs) => durationOf(Number(inputs.id)),
      outcome: (inputs) =>
        Number(inputs.id) >= 14 && Number(inputs.id) <= 16
          ? { status: 'failed', outputs: { reason: 'no' } }
          : { status: 'finished', outputs: { id: String(inputs.id) } },
    });
    dir.write('rows.jsonl', rowsOf(19));
    const result = await onVirtualTime(
      clock,
      s,
      runCliCaptured(
        ['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--concurrency', '19', '--rate', '100'],
        { cwd: dir.path, env: { AGENT_WORKFLOWS_API_KEY: KEY }, clock },
        [KEY],
      ),
    );
    assert.equal(result.code, 1, result.stderr);
    const lines = readFileSync(join(dir.path, 'out.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as RowResult);
    assert.equal(lines.length, 19);
    for (const line of lines) {
      const execution = s.started.find((e) => e.id === line.executionId);
      assert.ok(execution, `row ${line.row} has the id of an execution the service started`);
      const started = Date.parse(line.startedAt ?? '');
      const ended = Date.parse(line.endedAt ?? '');
      assert.equal(ended - started, line.durationMs, `row ${line.row}: durationMs is endedAt - startedAt`);
      // Started when the start was sent (before the service took it), ended when the service said so.
      assert.ok(started <= execution.startedAt, `row ${line.row} started before the service took its start`);
      assert.ok(ended >= endSeenAt(s, execution), `row ${line.row} ended after the service said it had`);
      const runFor = durationOf(line.row);
      assert.ok(
        line.durationMs! >= runFor && line.durationMs! <= runFor * 1.5 + 700,
        `row ${line.row} took ${line.durationMs} ms for an execution of ${runFor} ms`,
      );
      assert.equal(
        line.requests,
        s.log.filter((entry) => entry.executionId === execution.id).length,
        `row ${line.row}: requests are the start and the status reads the service saw`,
      );
    }
    // Nearest-rank percentiles of the rows that finished (the 3 failed ones are not counted).
    const finished = lines
      .filter((line) => line.status === 'finished')
      .map((line) => line.durationMs!)
      .sort((a, b) => a - b);
    assert.equal(finished.length, 16);
    const p50 = finished[7]!;
    const p95 = finished[15]!;
    assert.ok(p50 < 1000 && p95 >= 1200, `p50 ${p50} ms among the short rows, p95 ${p95} ms the slowest`);
    const shown = /duration p50 (\d+) ms, p95 (\d+\.\d) s/.exec(result.stderr);
    assert.ok(shown, result.stderr);
    assert.equal(Number(shown[1]), p50);
    assert.ok(Math.abs(Number(shown[2]) * 1000 - p95) <= 50, `p95 shown ${shown[2]} s for ${p95} ms`);
    assert.match(result.stderr, /19 rows: 16 finished, 3 failed/);
  });

  it('the live progress line shows the ETA while rows are left, and the throttled answers with the rate they left', async function () {
    this.timeout(10_000);
    const s = await serve({
      durationMs: () => 150,
      // A 429 (no pause) and a 503 (1 s pause), early on.
      throttle: (n) => (n === 2 ? { status: 429, retryAfterSeconds: 0 } : n === 6 ? { status: 503 } : undefined),
    });
    dir.write('rows.jsonl', rowsOf(10));
    let control = '';
    const result = await runCliCaptured(
      ['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--concurrency', '4', '--rate', '200'],
      { cwd: dir.path, env: { AGENT_WORKFLOWS_API_KEY: KEY }, stderrIsTTY: true, terminal: (text) => (control += text) },
      [KEY],
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(s.log.filter((entry) => entry.status === 429 || entry.status === 503).length, 2);
    assert.match(control, /^(\r\u001b\[2K)+$/);
    const drawn = result.stderr.split(/(?=[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] )/).filter((text) => / rows · /.test(text));
    const parsed = drawn.map((text) => {
      const line = /(\d+)\/10 rows · ([\d.]+)\/s(?: · ETA ([^·]+?))? · running \d+(?: · throttled (\d+) \(now ([\d.]+) req\/s\))?/.exec(
        text,
      );
      assert.ok(line, `a progress line: ${JSON.stringify(text)}`);
      return {
        ended: Number(line[1]),
        rate: Number(line[2]),
        eta: line[3],
        throttled: line[4] !== undefined ? Number(line[4]) : 0,
        now: line[5] !== undefined ? Number(line[5]) : undefined,
      };
    });
    const withEta = parsed.filter((line) => line.eta !== undefined);
    assert.ok(withEta.length > 0, `an ETA was shown: ${drawn.join(' | ')}`);
    for (const line of withEta) {
      assert.ok(line.ended > 0 && line.ended < 10, 'an ETA only once rows have ended and while some are left');
      const etaMs = parseDuration(line.eta!);
      const expected = ((10 - line.ended) / line.rate) * 1000;
      // The rate shown is rounded to a tenth: the ETA is that of the rate before rounding.
      assert.ok(
        etaMs >= expected * 0.7 - 100 && etaMs <= expected * 1.5 + 100,
        `ETA ${line.eta} for ${10 - line.ended} rows at ${line.rate}/s`,
      );
    }
    assert.ok(
      parsed.filter((line) => line.ended === 10).every((line) => line.eta === undefined),
      'no ETA once every row has ended',
    );
    const throttledShown = parsed.filter((line) => line.throttled > 0);
    assert.ok(throttledShown.length > 0, `the throttled answers were shown: ${drawn.join(' | ')}`);
    assert.equal(Math.max(...throttledShown.map((line) => line.throttled)), 2, 'both throttled answers counted');
    for (const line of throttledShown)
      assert.ok(line.now !== undefined && line.now <= 100, `the rate now, cut to half of --rate 200 at most: ${line.now}`);
    assert.match(result.stderr, /2 throttled/);
  });
});

/** "850 ms", "1.5 s", "12 s", "2 min 5 s" in ms. */
function parseDuration(text: string): number {
  const minutes = /^(\d+) min (\d+) s$/.exec(text.trim());
  if (minutes) return (Number(minutes[1]) * 60 + Number(minutes[2])) * 1000;
  const value = /^([\d.]+) (ms|s)$/.exec(text.trim());
  assert.ok(value, `a duration: ${text}`);
  return Number(value[1]) * (value[2] === 's' ? 1000 : 1);
}
