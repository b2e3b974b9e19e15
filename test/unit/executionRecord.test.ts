// The run history as the extension keeps it (plain data in workspace state: cap, storage read back,
// number formats) and the text a run leaves in the results output channel: common cases, then edges.
import assert from 'node:assert/strict';
import {
  capHistory,
  describeInput,
  formatAge,
  formatBytes,
  formatDuration,
  keptChange,
  parseStoredHistory,
} from '../../src/core/executions/executionRecord';
import { statusWriter } from '../../src/core/executions/statusWrites';
import { MAX_HISTORY_ERROR_CHARS, MAX_HISTORY_TRACE } from '../../src/core/limits';
import type { ExecutionRecord, ExecutionState } from '../../src/core/executions/executionRecord';
import { DEFAULT_MAX_OUTPUT_CHARS, formatRunHeader, formatRunResult } from '../../src/core/executions/runReport';

function record(key: string, startedAt: number, state: ExecutionState = 'finished', extra: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return { key, mode: 'deployed', agentName: `Agent ${key}`, inputs: {}, state, startedAt, ...extra };
}

const keys = (records: readonly ExecutionRecord[]): string[] => records.map((entry) => entry.key);

describe('execution record', () => {
  describe('capHistory', () => {
    it('orders by start time, newest first, without reordering the list it was given', () => {
      const given = [record('old', 10), record('new', 30), record('mid', 20, 'problem')];
      assert.deepEqual(keys(capHistory(given, 10)), ['new', 'mid', 'old']);
      assert.deepEqual(keys(given), ['old', 'new', 'mid']);
    });

    it('counts only ended executions against the cap', () => {
      const given = [
        record('e1', 1, 'error'),
        record('r1', 2, 'running'),
        record('e2', 3, 'stopped'),
        record('s1', 4, 'starting'),
        record('e3', 5, 'finished'),
      ];
      assert.deepEqual(keys(capHistory(given, 2)), ['e3', 's1', 'e2', 'r1']);
    });

    it('keeps every active execution even when they alone outnumber the cap', () => {
      const given = [record('r1', 1, 'running'), record('r2', 2, 'running'), record('s1', 3, 'starting'), record('done', 4)];
      assert.deepEqual(keys(capHistory(given, 1)), ['done', 's1', 'r2', 'r1']);
      assert.deepEqual(keys(capHistory(given, 0)), ['s1', 'r2', 'r1'], 'a cap of 0 drops every ended one');
    });

    it('keeps outputs newest first within a byte budget, saying how large the ones let go were', () => {
      const outputs = (n: number): Record<string, string> => ({ text: 'x'.repeat(n) });
      // 1,012 bytes each as JSON ({"text":"…"} is 11 more than the text).
      const given = [
        record('old', 1, 'finished', { outputs: outputs(1001) }),
        record('mid', 2, 'finished', { outputs: outputs(1001) }),
        record('new', 3, 'finished', { outputs: outputs(1001) }),
      ];
      const kept = capHistory(given, 10, 2100);
      assert.deepEqual(
        kept.map((entry) => [entry.key, entry.outputs !== undefined, entry.outputsNotKept]),
        [
          ['new', true, undefined],
          ['mid', true, undefined],
          ['old', false, 1012],
        ],
      );
      // The record otherwise stays as it was.
      assert.equal(kept[2]!.agentName, 'Agent old');
      // A record whose outputs alone are over the budget keeps none, whatever its age.
      assert.equal(capHistory([record('huge', 1, 'finished', { outputs: outputs(5000) })], 10, 2100)[0]!.outputsNotKept, 5011);
      assert.equal(capHistory(given, 10)[2]!.outputs !== undefined, true, 'the default budget (16 MiB) keeps these');
    });

    it('never drops an old running execution to make room for newer ended ones', () => {
      const given = [record('running-since-long', 1, 'running'), ...[2, 3, 4, 5].map((t) => record(`done${t}`, t))];
      assert.deepEqual(keys(capHistory(given, 2)), ['done5', 'done4', 'running-since-long']);
    });
  });

  describe('parseStoredHistory', () => {
    it('reads anything that is not a list as an empty history', () => {
      for (const stored of [undefined, null, 0, 'text', true, {}, { 0: record('a', 1), length: 1 }])
        assert.deepEqual(parseStoredHistory(stored), [], JSON.stringify(stored));
    });

    it('keeps records in every state, with their optional and unknown fields, in stored order', () => {
      const states: ExecutionState[] = ['starting', 'running', 'finished', 'problem', 'error', 'stopped'];
      const stored = states.map((state, index) => ({
        ...record(state, index, state),
        mode: index % 2 ? 'local' : 'deployed',
        outputs: { n: index },
        fromANewerVersion: true,
      }));
      assert.deepEqual(parseStoredHistory(JSON.parse(JSON.stringify(stored))), stored);
    });

    it('drops each malformed entry and keeps the well-formed ones around it', () => {
      const good = record('good', 1);
      const { agentName: _name, ...withoutName } = record('no-name', 2);
      const { inputs: _inputs, ...withoutInputs } = record('no-inputs', 3);
      const stored = [
        withoutName,
        good,
        withoutInputs,
        { ...good, key: undefined },
        { ...good, mode: undefined },
        { ...good, state: 'Finished' },
        { ...good, agentName: 42 },
        { ...good, startedAt: null },
        [good],
        42,
      ];
      assert.deepEqual(parseStoredHistory(JSON.parse(JSON.stringify(stored))), [good]);
    });
  });

  describe('formats', () => {
    it('formats durations in ms, then tenths of seconds under 10 s, then whole seconds, minutes and hours', () => {
      const cases: [number, string][] = [
        [-5, '0 ms'],
        [0.4, '0 ms'],
        [999, '999 ms'],
        [1000, '1.0 s'],
        [9_900, '9.9 s'],
        [10_000, '10 s'],
        [59_000, '59 s'],
        [60_000, '1 min 0 s'],
        [61_900, '1 min 2 s'],
        [3_599_000, '59 min 59 s'],
        [3_600_000, '1 h 0 min'],
        [25 * 3_600_000 + 59 * 60_000, '25 h 59 min'],
      ];
      for (const [ms, text] of cases) assert.equal(formatDuration(ms), text, `${ms} ms`);
    });

    it('formats ages as "just now" under 45 s, then minutes, hours and days', () => {
      const now = Date.UTC(2026, 0, 1);
      const cases: [number, string][] = [
        [0, 'just now'],
        [44_999, 'just now'],
        [45_000, '1 min ago'],
        [30 * 60_000, '30 min ago'],
        [3_600_000, '1 h ago'],
        [23 * 3_600_000, '23 h ago'],
        [86_400_000, '1 day ago'],
        [2 * 86_400_000, '2 days ago'],
        [30 * 86_400_000, '30 days ago'],
      ];
      for (const [age, text] of cases) assert.equal(formatAge(now - age, now), text, `${age} ms old`);
    });

    it('formats sizes in B below 1024, then KB and MB with one decimal, GB with two', () => {
      const cases: [number, string][] = [
        [0, '0 B'],
        [1023, '1023 B'],
        [1024, '1.0 KB'],
        [1024 * 1024, '1.0 MB'],
        [3.25 * 1024 * 1024, '3.3 MB'],
        [1024 ** 3, '1.00 GB'],
        [1.5 * 1024 ** 3, '1.50 GB'],
      ];
      for (const [size, text] of cases) assert.equal(formatBytes(size), text, `${size} bytes`);
    });

    it('describes a file input by its name and size only, and other values as typed', () => {
      assert.equal(describeInput({ file: 'empty.txt', size: 0 }), 'empty.txt (0 B)');
      assert.equal(describeInput({ file: 'scan 2026.pdf', size: 3 * 1024 * 1024 }), 'scan 2026.pdf (3.0 MB)');
      assert.equal(describeInput(''), '""');
      assert.equal(describeInput('two\nlines'), '"two\\nlines"', 'a string stays on one line');
      assert.equal(describeInput(0), '0');
      assert.equal(describeInput(-1.5), '-1.5');
      assert.equal(describeInput(true), 'true');
    });
  });
});

describe('run report text', () => {
  const started = Date.UTC(2026, 10, 22, 12, 0, 0);
  const deployed = record('r', started, 'running', {
    agentName: 'Summarizer',
    file: 'file:///work/summarize.agent.yaml',
    target: { baseUrl: 'https://agents.example.com', account: 'acme', agent: 'summarizer' },
    inputs: { ticket: 'Printer on fire', pages: 3, urgent: true, scan: { file: 'scan.pdf', size: 3 * 1024 * 1024 } },
    filePaths: { scan: '/home/someone/private/scan.pdf' },
  });

  describe('formatRunHeader', () => {
    it('lists the agent, target, file, inputs (files by name and size) and start time', () => {
      assert.equal(
        formatRunHeader(deployed),
        [
          '▶ Summarizer',
          '  target:    https://agents.example.com · account acme · agent summarizer',
          '  file:      file:///work/summarize.agent.yaml',
          '  inputs:    ticket = "Printer on fire", pages = 3, urgent = true, scan = scan.pdf (3.0 MB)',
          '  started:   2026-11-22T12:00:00.000Z',
        ].join('\n'),
      );
    });

    it('never shows where a file input lives on disk', () => {
      assert.doesNotMatch(formatRunHeader(deployed), /home|private/);
    });

    it('marks a local run, and leaves out what it does not have', () => {
      const local: ExecutionRecord = { key: 'l', mode: 'local', agentName: 'Echo', inputs: {}, state: 'starting', startedAt: started };
      assert.equal(formatRunHeader(local), '▶ Echo (local)\n  inputs:    (none)\n  started:   2026-11-22T12:00:00.000Z');
    });
  });

  describe('formatRunResult', () => {
    it('ends a finished run with its id, duration and pretty-printed outputs, indented under "outputs:"', () => {
      const report = formatRunResult({
        ...deployed,
        state: 'finished',
        executionId: 'e-1',
        endedAt: started + 65_000,
        outputs: { summary: 'Fire.', tags: ['urgent'], nested: { ok: true } },
      });
      assert.equal(report.truncated, false);
      assert.equal(
        report.text,
        [
          '  execution: e-1',
          '  status:    finished after 1 min 5 s',
          '  outputs:',
          '    {',
          '      "summary": "Fire.",',
          '      "tags": [',
          '        "urgent"',
          '      ],',
          '      "nested": {',
          '        "ok": true',
          '      }',
          '    }',
        ].join('\n'),
      );
    });

    it('prints outputs that are not objects as JSON too, and no outputs section without outputs', () => {
      assert.match(formatRunResult({ ...deployed, state: 'finished', outputs: null }).text, /\n {2}outputs:\n {4}null$/);
      assert.match(formatRunResult({ ...deployed, state: 'finished', outputs: 'two\nlines' }).text, /\n {2}outputs:\n {4}"two\\nlines"$/);
      assert.doesNotMatch(formatRunResult({ ...deployed, state: 'finished' }).text, /outputs/);
    });

    it('keeps outputs exactly at the limit, and cuts one character more with a note saying how many are left out', () => {
      const outputs = 'abcde'; // "abcde" with its quotes: 7 characters
      assert.deepEqual(formatRunResult({ ...deployed, state: 'finished', outputs }, 7), {
        text: '  status:    finished\n  outputs:\n    "abcde"',
        truncated: false,
      });
      const cut = formatRunResult({ ...deployed, state: 'finished', outputs }, 6);
      assert.equal(cut.truncated, true);
      assert.equal(
        cut.text,
        '  status:    finished\n  outputs:\n    "abcde\n    … (1 more character: open the full result from the Agent Executions view or the notification)',
      );
    });

    it(`cuts at ${DEFAULT_MAX_OUTPUT_CHARS} characters when no limit is given`, () => {
      const fits = formatRunResult({ ...deployed, state: 'finished', outputs: 'x'.repeat(DEFAULT_MAX_OUTPUT_CHARS - 2) });
      assert.equal(fits.truncated, false);
      const over = formatRunResult({ ...deployed, state: 'finished', outputs: 'x'.repeat(DEFAULT_MAX_OUTPUT_CHARS - 1) });
      assert.equal(over.truncated, true);
      assert.match(over.text, /… \(1 more character:/);
    });

    it('names the service status a run ended with, or "unknown" when there was none', () => {
      assert.equal(
        formatRunResult({ ...deployed, state: 'problem', serviceStatus: 'timeout', endedAt: started + 2500 }).text,
        '  status:    ended with status "timeout" after 2.5 s',
      );
      assert.equal(formatRunResult({ ...deployed, state: 'problem' }).text, '  status:    ended with status "unknown"');
    });

    it('says a stopped run may still be running and how to watch it again', () => {
      assert.equal(
        formatRunResult({ ...deployed, state: 'stopped' }).text,
        '  status:    stopped watching (it may still be running; watch it again from the Agent Executions view)',
      );
    });

    it('shows an active run by its state, without a duration', () => {
      assert.equal(formatRunResult({ ...deployed, state: 'running', executionId: 'e-2' }).text, '  execution: e-2\n  status:    running');
    });

    it('lines up every line of a multi-line error under its first', () => {
      const report = formatRunResult({
        ...deployed,
        state: 'error',
        endedAt: started + 1500,
        error: 'HTTP 502 from the service:\n<html>\n  Bad gateway',
      });
      assert.equal(
        report.text,
        [
          '  status:    could not complete after 1.5 s',
          '  error:     HTTP 502 from the service:',
          '             <html>',
          '               Bad gateway',
        ].join('\n'),
      );
    });

    it('lists the trace of a local run node by node, with only the details each node has', () => {
      const report = formatRunResult({
        ...deployed,
        mode: 'local',
        state: 'problem',
        serviceStatus: 'failed',
        trace: [
          { node: 'fetch', status: 'succeeded', durationMs: 0, bytes: 0 },
          { node: 'summarize', status: 'failed', durationMs: 1200, detail: 'HTTP 500' },
          { node: 'notify', status: 'skipped' },
        ],
        error: 'Node "summarize" failed.',
      });
      assert.equal(
        report.text,
        [
          '  status:    ended with status "failed"',
          '    · fetch: succeeded in 0 ms, 0 bytes',
          '    · summarize: failed in 1.2 s (HTTP 500)',
          '    · notify: skipped',
          '  error:     Node "summarize" failed.',
        ].join('\n'),
      );
    });
  });
});

describe('execution history', () => {
  it('keeps the newest ended executions up to the cap, and every running one', () => {
    const records = [record('a', 1), record('b', 5, 'running'), record('c', 3), record('d', 4, 'problem'), record('e', 2, 'starting')];
    const kept = capHistory(records, 2);
    assert.deepEqual(
      kept.map((r) => r.key),
      ['b', 'd', 'c', 'e'],
    );
  });

  it('reads back only well-formed records from storage', () => {
    assert.deepEqual(parseStoredHistory(undefined), []);
    assert.deepEqual(parseStoredHistory({ key: 'x' }), []);
    const good = record('ok', 1);
    const stored = [
      good,
      null,
      'text',
      { ...good, key: 3 },
      { ...good, state: 'exploded' },
      { ...good, mode: 'remote' },
      { ...good, inputs: null },
      { ...good, startedAt: '1' },
    ];
    assert.deepEqual(parseStoredHistory(JSON.parse(JSON.stringify(stored))), [good]);
  });

  it('formats durations, ages and sizes for people', () => {
    assert.equal(formatDuration(0), '0 ms');
    assert.equal(formatDuration(999), '999 ms');
    assert.equal(formatDuration(1000), '1.0 s');
    assert.equal(formatDuration(12_400), '12 s');
    assert.equal(formatDuration(125_000), '2 min 5 s');
    assert.equal(formatDuration(3_840_000), '1 h 4 min');
    const now = 1_000_000_000;
    assert.equal(formatAge(now - 10_000, now), 'just now');
    assert.equal(formatAge(now - 5 * 60_000, now), '5 min ago');
    assert.equal(formatAge(now - 3 * 3_600_000, now), '3 h ago');
    assert.equal(formatAge(now - 86_400_000, now), '1 day ago');
    assert.equal(formatAge(now + 5000, now), 'just now', 'a clock step back is not a negative age');
    assert.equal(formatBytes(1023), '1023 B');
    assert.equal(formatBytes(1536), '1.5 KB');
    assert.equal(formatBytes(5 * 1024 * 1024), '5.0 MB');
    assert.equal(formatBytes(2 * 1024 ** 3), '2.00 GB');
  });

  it('rounds before choosing a unit, so no value reads as 1000 of a unit', () => {
    assert.equal(formatDuration(999.6), '1.0 s');
    assert.equal(formatDuration(9_960), '10 s');
    assert.equal(formatDuration(59_600), '1 min 0 s');
    const now = 1_000_000_000;
    assert.equal(formatAge(now - 3_590_000, now), '1 h ago');
    assert.equal(formatAge(now - 23.8 * 3_600_000, now), '1 day ago');
    assert.equal(formatBytes(1024 * 1024 - 1), '1.0 MB');
    assert.equal(formatBytes(1024 ** 3 - 1), '1.00 GB');
    assert.match(formatRunResult({ ...record('r', 0), outputs: 'x'.repeat(202) }, 203).text, /\(1 more character: /);
  });

  it('drops stored records whose inputs or trace are not what a record holds', () => {
    const good = record('ok', 1, 'finished', {
      inputs: { a: 'x', n: 2, b: true, doc: { file: 'f.txt', size: 3 } },
      trace: [{ node: 'n', status: 'succeeded' }],
    });
    const stored = [
      good,
      { ...good, key: 'bad-input', inputs: { x: null } },
      { ...good, key: 'bad-file', inputs: { doc: { file: 'f' } } },
      { ...good, key: 'bad-trace', trace: 'abc' },
      { ...good, key: 'bad-entry', trace: [{ node: 1 }] },
    ];
    assert.deepEqual(
      parseStoredHistory(JSON.parse(JSON.stringify(stored))).map((r) => r.key),
      ['ok'],
    );
  });

  it('describes file inputs by name and size, values as typed', () => {
    assert.equal(describeInput({ file: 'report.pdf', size: 2048 }), 'report.pdf (2.0 KB)');
    assert.equal(describeInput('it\'s "quoted"'), '"it\'s \\"quoted\\""');
    assert.equal(describeInput(3), '3');
    assert.equal(describeInput(false), 'false');
  });
});

describe('run report', () => {
  const started = Date.UTC(2026, 10, 22, 12, 0, 0);
  const base = record('r', started, 'running', {
    agentName: 'Summarizer',
    executionId: '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01',
    target: { baseUrl: 'https://agents.example.com', account: 'acme', agent: 'summarizer' },
    inputs: { ticket: 'Printer on fire', doc: { file: 'log.txt', size: 12 } },
  });

  it('heads a run with its target, inputs (files by name and size) and start time', () => {
    const header = formatRunHeader(base);
    assert.match(header, /^▶ Summarizer\n/);
    assert.match(header, /target: +https:\/\/agents\.example\.com · account acme · agent summarizer/);
    assert.match(header, /inputs: +ticket = "Printer on fire", doc = log\.txt \(12 B\)/);
    assert.match(header, /started: +2026-11-22T12:00:00\.000Z/);
    const { target: _target, ...untargeted } = base;
    assert.match(formatRunHeader({ ...untargeted, inputs: {}, mode: 'local' }), /^▶ Summarizer \(local\)\n[\s\S]*inputs: +\(none\)/);
  });

  it('ends a finished run with its id, duration, trace and pretty outputs', () => {
    const report = formatRunResult({
      ...base,
      state: 'finished',
      endedAt: started + 3200,
      outputs: { summary: 'Fire.', count: 2 },
      trace: [{ node: 'fetch', status: 'succeeded', durationMs: 120, bytes: 512 }],
    });
    assert.equal(report.truncated, false);
    assert.match(report.text, /execution: 3f2b9c1e-/);
    assert.match(report.text, /status: +finished after 3\.2 s/);
    assert.match(report.text, /· fetch: succeeded in 120 ms, 512 bytes/);
    assert.match(report.text, /outputs:\n {4}\{\n {6}"summary": "Fire\.",\n {6}"count": 2\n {4}\}/);
  });

  it('cuts outputs over the limit and says how to see the rest', () => {
    const report = formatRunResult({ ...base, state: 'finished', outputs: { text: 'x'.repeat(500) } }, 200);
    assert.equal(report.truncated, true);
    assert.match(report.text, /… \(\d+ more characters: open the full result/);
    assert.ok(!report.text.includes('x'.repeat(250)));
  });

  it('says how a run ended when it did not finish', () => {
    assert.match(
      formatRunResult({ ...base, state: 'problem', serviceStatus: 'failed', error: 'Node "fetch" failed:\nHTTP 500' }).text,
      /status: +ended with status "failed"[\s\S]*error: +Node "fetch" failed:\n {13}HTTP 500/,
    );
    assert.match(formatRunResult({ ...base, state: 'stopped' }).text, /stopped watching \(it may still be running; watch it again/);
    assert.match(
      formatRunResult({ ...base, state: 'error', error: 'The key was refused.' }).text,
      /status: +could not complete[\s\S]*error: +The key was refused\./,
    );
  });
});

describe('what the history keeps of an execution', () => {
  it('cuts a failure body of megabytes to its start, saying how long it was', () => {
    const body = JSON.stringify({ message: 'x'.repeat(9 * 1024 * 1024) });
    const kept = keptChange({ state: 'problem', error: body });
    assert.equal(kept.state, 'problem');
    assert.ok(kept.error!.length < MAX_HISTORY_ERROR_CHARS + 40, `kept ${kept.error!.length} characters`);
    assert.ok(kept.error!.startsWith('{"message":"xxx'));
    assert.match(kept.error!, new RegExp(`… \\(${body.length} characters\\)$`));
    // Short text stays as it is.
    assert.equal(keptChange({ error: 'HTTP 500' }).error, 'HTTP 500');
  });

  it('keeps a mask whole at the cut: text arrives redacted, and the cut never splits [redacted]', () => {
    const text = `${'a'.repeat(MAX_HISTORY_ERROR_CHARS - 4)}[redacted] and more`;
    const kept = keptChange({ error: text }).error!;
    assert.doesNotMatch(kept, /\[red(?!acted\])/);
  });

  it('bounds a trace by entries, by the characters of each entry and of all of them, counting what it leaves out', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({ node: `n${i}`, status: 'succeeded' }));
    const byCount = keptChange({ trace: many });
    assert.equal(byCount.trace!.length, MAX_HISTORY_TRACE.entries);
    assert.equal(byCount.traceNotKept, 100_000 - MAX_HISTORY_TRACE.entries);

    const long = Array.from({ length: 1000 }, (_, i) => ({ node: `n${i}`.repeat(500), status: 's'.repeat(5000), detail: 'd'.repeat(1e6) }));
    const bySize = keptChange({ trace: long });
    assert.ok(JSON.stringify(bySize.trace).length <= MAX_HISTORY_TRACE.chars + 2);
    assert.ok(bySize.trace!.length > 0 && bySize.trace!.length < 1000);
    assert.equal(bySize.traceNotKept, 1000 - bySize.trace!.length);
    for (const entry of bySize.trace!) {
      assert.ok(entry.detail!.length < MAX_HISTORY_TRACE.textChars + 40);
      assert.match(entry.detail!, /… \(1000000 characters\)$/);
      assert.match(entry.status, /… \(5000 characters\)$/);
    }

    const few = [{ node: 'fetch', status: 'succeeded', durationMs: 12, bytes: 40, detail: 'HTTP 200' }];
    assert.deepEqual(keptChange({ trace: few }), { trace: few });
  });

  it('cuts a status word of any length', () => {
    const kept = keptChange({ serviceStatus: 'running'.repeat(1e6) });
    assert.ok(kept.serviceStatus!.length < MAX_HISTORY_TRACE.textChars + 40);
    assert.equal(keptChange({ serviceStatus: 'running' }).serviceStatus, 'running');
  });

  it('says in the run report how many trace entries were not kept', () => {
    const text = formatRunResult(record('t', 1, 'problem', { trace: [{ node: 'a', status: 'failed' }], traceNotKept: 7 })).text;
    assert.match(text, /7 more trace entries not kept/);
  });
});

describe('status writes of a watched execution', () => {
  it('reports a write that fails (no unhandled rejection) and writes the same status again next time', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const writes: Partial<ExecutionRecord>[] = [];
      let failNext = true;
      let reported!: (error: unknown) => void;
      const failure = new Promise<unknown>((resolve) => (reported = resolve));
      const write = statusWriter(
        { serviceStatus: 'queued' },
        (change) => {
          writes.push(change);
          if (failNext) {
            failNext = false;
            return Promise.reject(new Error('workspace state is gone'));
          }
          return Promise.resolve();
        },
        (error) => reported(error),
      );
      write({ serviceStatus: 'queued' });
      assert.equal(writes.length, 0, 'an unchanged status is not written');
      write({ serviceStatus: 'running', trace: [{ node: 'a', status: 's'.repeat(1e6) }] });
      assert.match(String(await failure), /workspace state is gone/);
      assert.ok(writes[0]!.trace![0]!.status.length < MAX_HISTORY_TRACE.textChars + 40, 'the write is bounded');
      write({ serviceStatus: 'running', trace: [{ node: 'a', status: 's'.repeat(1e6) }] });
      assert.equal(writes.length, 2, 'the failed status is written again');
      // An unhandled rejection is reported after the microtasks of this turn: one more turn to see it.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
