// The exchange view of a 10 MiB JSON body: the text the view shows (header block and the first
// lines of the body pretty-printed, core/exchange/exchangeDocument), and the whole body formatted
// (Open Whole Body), made in plain Node, as the extension host makes them; in VS Code itself:
// exchangeViewEditor.ts. Targets (issue 23): under 1 s, and the heap grows by at most 3x the body.
// The growth is measured with the text held and nothing collected since the start (so it counts
// the garbage the work made too), heap and Buffers together; the extension host's own copy of the
// whole document (its lines) is shown beside for information, it is VS Code's and the same for any
// way of showing text.
import { exchangeDocument } from '../src/core/exchange/exchangeDocument';
import type { ExchangeDocumentOptions } from '../src/core/exchange/exchangeDocument';
import type { Exchange } from '../src/core/exchange/exchange';
import { table } from './support';

const MIB = 1024 * 1024;
const BODY_BYTES = 10 * MIB;
const RUNS = 5;

/** A JSON array of customer rows of at most 10 MiB (the most a send keeps). */
export function jsonBody(): string {
  const rows: string[] = [];
  let bytes = 2;
  for (let id = 0; ; id++) {
    const row = JSON.stringify({
      id,
      name: `Customer ${id} "quoted" [x]`,
      email: `customer${id}@example.com`,
      tags: ['a', 'b', { nested: [1, 2.5, null, true] }],
      address: { street: `${id} Main St`, city: 'Zürich', empty: {}, none: [] },
      notes: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit \\ with an escape',
    });
    if (bytes + Buffer.byteLength(row) + 1 > BODY_BYTES) break;
    rows.push(row);
    bytes += Buffer.byteLength(row) + 1;
  }
  return `[${rows.join(',')}]`;
}

export function exchangeOf(text: string): Exchange {
  return {
    id: 'bench',
    node: 'lookup',
    startedAt: new Date(0).toISOString(),
    request: { method: 'GET', url: 'https://api.example.com/customers', headers: [], body: { kind: 'empty' } },
    redirects: [],
    response: {
      status: 200,
      statusText: 'OK',
      headers: [{ name: 'content-type', value: 'application/json' }],
      contentType: 'application/json',
      body: { kind: 'text', text, size: Buffer.byteLength(text), truncated: false },
    },
    timing: { totalMs: 1 },
  };
}

function used(): number {
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.arrayBuffers;
}

interface Measured {
  readonly median: number;
  readonly cpuMedian: number;
  readonly growth: number;
  readonly lines: number;
  readonly shown: number;
}

function measure(exchange: Exchange, options: ExchangeDocumentOptions): Measured {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc (npm run bench does)');
  const times: number[] = [];
  const cpu: number[] = [];
  let growth = 0;
  let lines = 0;
  let shown = 0;
  for (let run = 0; run < RUNS; run++) {
    gc();
    const before = used();
    const started = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    const document = exchangeDocument(exchange, options);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    const cpuUsed = process.cpuUsage(cpuBefore);
    cpu.push((cpuUsed.user + cpuUsed.system) / 1000);
    growth = Math.max(growth, used() - before);
    shown = document.text.length;
    // What the extension host keeps of an open document: its text split into lines.
    const beforeLines = used();
    const split = document.text.split(/\r\n|\r|\n/);
    lines = Math.max(lines, used() - beforeLines);
    if (split.length === 0 || document.body !== 'json') throw new Error('the body was not pretty-printed');
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, cpuMedian: cpu[Math.floor(cpu.length / 2)]!, growth, lines, shown };
}

export function runExchangeViewBenchmark(): boolean {
  const exchange = exchangeOf(jsonBody());
  const size = Buffer.byteLength((exchange.response!.body as { text: string }).text);
  const start = measure(exchange, {});
  const whole = measure(exchange, { wholeBody: true });
  console.log(
    `exchange view: a ${(size / MIB).toFixed(1)} MiB JSON body; the view shows ${(start.shown / MIB).toFixed(1)} MiB of text, all of it formatted is ${(whole.shown / MIB).toFixed(1)} MiB (median of ${RUNS})`,
  );
  const row = (label: string, measured: Measured): string[] => [
    label,
    `${measured.median.toFixed(0)} ms`,
    `${measured.cpuMedian.toFixed(0)} ms`,
    `${(measured.growth / MIB).toFixed(1)} MiB`,
    (measured.growth / size).toFixed(2),
    '< 1000 ms, <= 3x',
  ];
  console.log(
    table([
      ['', 'time', 'CPU', 'growth', 'x body', 'target'],
      row('view text (header + first lines of the body)', start),
      row('Open Whole Body (header + the whole body)', whole),
      [
        "the host's copy of the whole body's lines (VS Code)",
        '',
        '',
        `${(whole.lines / MIB).toFixed(1)} MiB`,
        (whole.lines / size).toFixed(2),
        '(information)',
      ],
    ]),
  );
  return [start, whole].every((measured) => measured.median < 1000 && measured.growth / size <= 3);
}
