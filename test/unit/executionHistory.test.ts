// The run history as the extension keeps it (plain data in workspace state) and the text of a run
// in the results output.
import assert from 'node:assert/strict';
import { capHistory, describeInput, formatAge, formatBytes, formatDuration, parseStoredHistory } from '../../src/core/executions/executionRecord';
import type { ExecutionRecord } from '../../src/core/executions/executionRecord';
import { formatRunHeader, formatRunResult } from '../../src/core/executions/runReport';

function record(key: string, startedAt: number, state: ExecutionRecord['state'] = 'finished', extra: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return { key, mode: 'deployed', agentName: `Agent ${key}`, inputs: {}, state, startedAt, ...extra };
}

describe('execution history', () => {
  it('keeps the newest ended executions up to the cap, and every running one', () => {
    const records = [record('a', 1), record('b', 5, 'running'), record('c', 3), record('d', 4, 'problem'), record('e', 2, 'starting')];
    const kept = capHistory(records, 2);
    assert.deepEqual(kept.map((r) => r.key), ['b', 'd', 'c', 'e']);
  });

  it('reads back only well-formed records from storage', () => {
    assert.deepEqual(parseStoredHistory(undefined), []);
    assert.deepEqual(parseStoredHistory({ key: 'x' }), []);
    const good = record('ok', 1);
    const stored = [good, null, 'text', { ...good, key: 3 }, { ...good, state: 'exploded' }, { ...good, mode: 'remote' }, { ...good, inputs: null }, { ...good, startedAt: '1' }];
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
    const good = record('ok', 1, 'finished', { inputs: { a: 'x', n: 2, b: true, doc: { file: 'f.txt', size: 3 } }, trace: [{ node: 'n', status: 'succeeded' }] });
    const stored = [good, { ...good, key: 'bad-input', inputs: { x: null } }, { ...good, key: 'bad-file', inputs: { doc: { file: 'f' } } }, { ...good, key: 'bad-trace', trace: 'abc' }, { ...good, key: 'bad-entry', trace: [{ node: 1 }] }];
    assert.deepEqual(parseStoredHistory(JSON.parse(JSON.stringify(stored))).map((r) => r.key), ['ok']);
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
    assert.match(formatRunHeader({ ...base, inputs: {}, mode: 'local', target: undefined } as ExecutionRecord), /^▶ Summarizer \(local\)\n[\s\S]*inputs: +\(none\)/);
  });

  it('ends a finished run with its id, duration, trace and pretty outputs', () => {
    const report = formatRunResult({ ...base, state: 'finished', endedAt: started + 3200, outputs: { summary: 'Fire.', count: 2 }, trace: [{ node: 'fetch', status: 'succeeded', durationMs: 120, bytes: 512 }] });
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
    assert.match(formatRunResult({ ...base, state: 'problem', serviceStatus: 'failed', error: 'Node "fetch" failed:\nHTTP 500' }).text, /status: +ended with status "failed"[\s\S]*error: +Node "fetch" failed:\n {13}HTTP 500/);
    assert.match(formatRunResult({ ...base, state: 'stopped' }).text, /stopped watching \(it may still be running; watch it again/);
    assert.match(formatRunResult({ ...base, state: 'error', error: 'The key was refused.' }).text, /status: +could not complete[\s\S]*error: +The key was refused\./);
  });
});
