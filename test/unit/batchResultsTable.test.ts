// The batch results table's core: a results file read back (last line of a row wins, bounded by rows
// and bytes with the rest counted, bad lines counted), its filter, and its CSV and JSONL exports
// (RFC 4180 quoting, the spreadsheet formula guard), on real files in temp dirs; the table's sort
// and a row's detail.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filterRows, matchesFilter, NO_FILTER, rowDetail, sortRows, tableRowOf } from '../../src/core/batch/resultsRows';
import { csvField, exportBatchResults, readBatchResults } from '../../src/core/batch/resultsTable';
import type { RowResult } from '../../src/core/batch/batchModel';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;

/** Parses CSV text as RFC 4180 has it (quoted fields with doubled quotes, CRLF records). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += char;
  }
  assert.equal(field, '', 'the CSV ends with a record end');
  return records;
}

describe('batch results table', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => dir.remove());

  describe('readBatchResults', () => {
    it('says by its code (ENOENT) that there is no results file yet, which the table shows as such', async () => {
      await assert.rejects(readBatchResults(join(dir.path, 'results.jsonl')), (error: unknown) => {
        assert.equal((error as NodeJS.ErrnoException).code, 'ENOENT');
        assert.match(String(error), /results\.jsonl cannot be read: no such file or directory/);
        return true;
      });
    });

    it('takes the last line of a row as its result, and counts each row once', async () => {
      const path = dir.write(
        'results.jsonl',
        line({ row: 1, status: 'finished', inputs: { id: 1 }, outputs: { id: '1' }, durationMs: 5 }) +
          line({ row: 2, status: 'unknown', error: 'started, not known to have ended' }) +
          line({ row: 3, status: 'failed', error: { status: 'Failed' } }) +
          line({ row: 2, status: 'finished', executionId: 'e-2b', outputs: { id: '2' } }),
      );
      const results = await readBatchResults(path);
      assert.equal(results.total, 3);
      assert.equal(results.truncated, false);
      assert.equal(results.badLines, 0);
      assert.deepEqual(
        results.rows.map((row) => [row.row, row.status]),
        [
          [1, 'finished'],
          [2, 'finished'],
          [3, 'failed'],
        ],
      );
      assert.equal(results.rows[1]!.executionId, 'e-2b');
      assert.deepEqual(results.counts, { finished: 2, failed: 1, error: 0, timeout: 0, unknown: 0, skipped: 0 });
    });

    it('keeps at most maxRows rows and counts the rest, with every row in the counts', async () => {
      let text = '';
      for (let row = 1; row <= 250; row++) text += line({ row, status: row % 10 === 0 ? 'error' : 'finished', inputs: { id: row } });
      // A row kept, ended again after the bound was reached: still replaced, not dropped.
      text += line({ row: 3, status: 'timeout' });
      const results = await readBatchResults(dir.write('results.jsonl', text), { maxRows: 100 });
      assert.equal(results.rows.length, 100);
      assert.equal(results.total, 250);
      assert.equal(results.truncated, true);
      assert.equal(results.rows[2]!.status, 'timeout');
      assert.deepEqual(results.counts, { finished: 224, failed: 0, error: 25, timeout: 1, unknown: 0, skipped: 0 });
    });

    it('keeps at most maxBytes of lines', async () => {
      const big = 'x'.repeat(1000);
      let text = '';
      for (let row = 1; row <= 20; row++) text += line({ row, status: 'finished', outputs: { text: big } });
      const results = await readBatchResults(dir.write('results.jsonl', text), { maxBytes: 5500 });
      assert.equal(results.rows.length, 5);
      assert.equal(results.total, 20);
      assert.equal(results.truncated, true);
    });

    it('leaves out a kept row whose later line no longer fits in maxBytes, rather than show its earlier line', async () => {
      const text =
        line({ row: 1, status: 'unknown' }) +
        line({ row: 2, status: 'finished' }) +
        line({ row: 1, status: 'finished', outputs: { text: 'x'.repeat(1000) } });
      const results = await readBatchResults(dir.write('results.jsonl', text), { maxBytes: 500 });
      assert.deepEqual(
        results.rows.map((row) => [row.row, row.status]),
        [[2, 'finished']],
      );
      assert.equal(results.truncated, true);
      assert.equal(results.total, 2);
      assert.equal(results.counts.finished, 2);
    });

    it('counts lines that are not a row result and goes on', async () => {
      const path = dir.write(
        'results.jsonl',
        line({ row: 1, status: 'finished' }) +
          '{"row":2,"status":"fini\n' + // torn by a crash
          'not json at all\n' +
          line({ row: 0, status: 'finished' }) +
          line({ row: 4, status: 'exploded' }) +
          line([1, 2]) +
          '\n' + // a blank line is not a bad one
          line({ row: 5, status: 'skipped', problems: [{ row: 5, column: 'id', message: 'id must be a number' }] }),
      );
      const results = await readBatchResults(path);
      assert.equal(results.badLines, 5);
      assert.deepEqual(
        results.rows.map((row) => row.row),
        [1, 5],
      );
    });

    it('keeps the row and status of a line too long to read, with a note', async () => {
      const path = dir.write(
        'results.jsonl',
        line({ row: 1, status: 'finished', passed: true, outputs: { text: 'y'.repeat(500) } }) + line({ row: 2, status: 'failed' }),
      );
      const results = await readBatchResults(path, { maxLineBytes: 200 });
      assert.equal(results.badLines, 0);
      assert.equal(results.rows[0]!.status, 'finished');
      assert.equal(results.rows[0]!.passed, true);
      assert.match(String(results.rows[0]!.error), /longer than 200 bytes/);
      assert.equal(results.rows[1]!.status, 'failed');
    });

    it('names the file it cannot read', async () => {
      await assert.rejects(readBatchResults(join(dir.path, 'missing.jsonl')), /missing\.jsonl cannot be read/);
    });
  });

  describe('filter', () => {
    const rows: RowResult[] = [
      { row: 1, status: 'finished', inputs: { city: 'Paris' }, outputs: { answer: 'sunny' } },
      { row: 2, status: 'failed', inputs: { city: 'Oslo' }, error: { status: 'Failed', message: 'Upstream said no' } },
      { row: 12, status: 'finished', inputs: { city: 'Lima' }, outputs: 'plain text' },
      { row: 13, status: 'skipped', problems: [{ row: 13, column: 'city', message: 'city is required' }] },
    ];
    const table = rows.map(tableRowOf);
    const rowsOf = (status: 'all' | RowResult['status'], text: string): number[] =>
      filterRows(table, { status, text }).map((row) => row.row);

    it("shows the data's other columns: cells, filter, sort and the detail", async () => {
      const { columnNamesOf } = await import('../../src/core/batch/resultsTable');
      const labelled: RowResult[] = [
        { row: 1, status: 'finished', columns: { id: 'b-7', note: { n: 1 } }, inputs: { city: 'Paris' } },
        { row: 2, status: 'skipped', columns: { id: 'a-3' }, problems: [{ row: 2, message: 'bad' }] },
      ];
      const cells = labelled.map(tableRowOf);
      assert.deepEqual(cells[0]!.columns, { id: 'b-7', note: '{"n":1}' });
      assert.deepEqual(columnNamesOf(labelled).columns, ['id', 'note']);
      assert.deepEqual(
        filterRows(cells, { status: 'all', text: 'A-3' }).map((row) => row.row),
        [2],
      );
      assert.deepEqual(
        sortRows([...cells], { column: 'column:id', direction: 'ascending' }).map((row) => row.row),
        [2, 1],
      );
      assert.equal(rowDetail(labelled[0]!, 1000)[0]?.title, 'Other columns');
    });

    it('filters by status and by text in any cell, ignoring case', () => {
      assert.deepEqual(rowsOf('all', ''), [1, 2, 12, 13]);
      assert.deepEqual(rowsOf('finished', ''), [1, 12]);
      assert.deepEqual(rowsOf('all', 'OSLO'), [2]);
      assert.deepEqual(rowsOf('all', 'upstream'), [2]);
      assert.deepEqual(rowsOf('all', 'plain'), [12]);
      assert.deepEqual(rowsOf('all', 'city is required'), [13]);
      assert.deepEqual(rowsOf('finished', 'oslo'), []);
      // A number matches the row number whole: 2, not 12.
      assert.deepEqual(rowsOf('all', '2'), [2]);
    });

    it("shows an error as its message (and node), a skipped row's problems by column", () => {
      const failed = tableRowOf({
        row: 3,
        status: 'failed',
        error: { executionId: 'e-1', status: 'failed', error: 'no such person', node: 'person' },
      });
      assert.equal(failed.error, 'person: no such person');
      const skipped = tableRowOf({
        row: 4,
        status: 'skipped',
        problems: [{ row: 4, column: 'whom', message: 'The agent has no input "whom".' }],
      });
      assert.equal(skipped.error, 'whom: The agent has no input "whom".');
      const many = tableRowOf({
        row: 6,
        status: 'skipped',
        problems: [{ row: 6, column: 'c0', message: 'The agent has no input "c0".' }],
        problemsNotListed: 119_999,
      });
      assert.equal(many.error, 'c0: The agent has no input "c0".; and 119999 more', 'the problems not listed are counted');
      assert.equal(tableRowOf({ row: 5, status: 'error', error: 'connection refused' }).error, 'connection refused');
    });

    it('shows outputs that are not an object as one value, and values as text cut short', () => {
      assert.deepEqual(table[2]!.outputs, { value: 'plain text' });
      const long = tableRowOf({ row: 1, status: 'finished', outputs: { text: 'z'.repeat(5000) } });
      assert.equal(long.outputs.text!.length, 1000);
      assert.ok(matchesFilter(long, { status: 'all', text: 'zzz' }));
    });
  });

  describe('sort and detail', () => {
    const rows: RowResult[] = [
      { row: 1, status: 'finished', inputs: { item: 'item 10', city: 'oslo' }, outputs: { score: '7' }, durationMs: 300 },
      { row: 2, status: 'failed', inputs: { item: 'item 2', city: 'Lima' }, error: 'bad', durationMs: 40 },
      { row: 3, status: 'finished', inputs: { item: 'Item 1' }, outputs: { score: '12' }, durationMs: 1200 },
      { row: 4, status: 'unknown', inputs: { item: 'item 2', city: 'Paris' } },
    ];
    const order = (column: string, direction: 'ascending' | 'descending'): number[] =>
      sortRows(rows.map(tableRowOf), { column, direction }).map((row) => row.row);

    it('sorts numbers as numbers and text as people read it, ignoring case', () => {
      assert.deepEqual(order('duration', 'ascending'), [2, 1, 3, 4]);
      assert.deepEqual(order('duration', 'descending'), [3, 1, 2, 4], 'a row without a duration last either way');
      // "Item 1" < "item 2" < "item 10": numbers inside text by value, case ignored; ties in row order.
      assert.deepEqual(order('input:item', 'ascending'), [3, 2, 4, 1]);
      assert.deepEqual(order('input:item', 'descending'), [1, 2, 4, 3]);
      assert.deepEqual(order('input:city', 'ascending'), [2, 1, 4, 3], 'the row without a city last');
      assert.deepEqual(order('output:score', 'ascending'), [1, 3, 2, 4], '"7" before "12"');
      assert.deepEqual(order('status', 'descending'), [4, 1, 3, 2]);
      assert.deepEqual(order('row', 'descending'), [4, 3, 2, 1]);
    });

    it("shows a row's whole result in sections, each cut at the limit", () => {
      const detail = rowDetail(
        { row: 2, status: 'failed', executionId: 'e-2', inputs: { city: 'Lima' }, error: 'bad', durationMs: 40 },
        10_000,
      );
      assert.deepEqual(
        detail.map((section) => section.title),
        ['Inputs', 'Error', 'Execution'],
      );
      assert.deepEqual(JSON.parse(detail[2]!.json), { status: 'failed', executionId: 'e-2', durationMs: 40 });
      const long = rowDetail({ row: 1, status: 'finished', outputs: { text: 'x'.repeat(500) } }, 100);
      assert.equal(long[0]!.title, 'Outputs');
      assert.match(long[0]!.json, /^\{\n {2}"text": "x+\n… \(\d+ more characters: see the results file\)$/);
      assert.equal(long[0]!.json.indexOf('\n…'), 100);
    });
  });

  describe('CSV and JSONL', () => {
    it('quotes commas, quotes and line breaks, and makes formulas inert', () => {
      assert.equal(csvField('plain'), 'plain');
      assert.equal(csvField('a,b'), '"a,b"');
      assert.equal(csvField('say "hi"'), '"say ""hi"""');
      assert.equal(csvField('two\nlines'), '"two\nlines"');
      assert.equal(csvField('=HYPERLINK("http://x")'), '"\'=HYPERLINK(""http://x"")"');
      for (const start of ['+', '-', '@']) assert.equal(csvField(`${start}1+2`), `'${start}1+2`);
      // Spreadsheets skip leading blanks before reading a formula: those get the guard too.
      assert.equal(csvField(' =1+1'), "' =1+1");
      assert.equal(csvField('\u00a0+1'), "'\u00a0+1");
      assert.equal(csvField('\n-1'), `"'\n-1"`);
      assert.equal(csvField(' \t\u200b\ufeff\u3000@SUM(A1)'), "' \t\u200b\ufeff\u3000@SUM(A1)");
      assert.equal(csvField('a =1'), 'a =1', 'a formula sign after other text is plain text');
      assert.equal(csvField('  plain'), '  plain');
      assert.equal(csvField(-5), '-5', 'a number is written as a number');
      assert.equal(csvField({ a: [1, 'x'] }), '"{""a"":[1,""x""]}"');
      assert.equal(csvField(undefined), '');
      assert.equal(csvField(null), '');
    });

    it("exports the data's other columns to CSV before the inputs, as the table shows them", async () => {
      const rows: RowResult[] = [
        { row: 1, status: 'finished', columns: { id: 'T-1', note: '=x' }, inputs: { q: 'a' }, outputs: { answer: 'y' } },
        { row: 2, status: 'skipped', columns: { id: 'T-2' }, problems: [{ row: 2, message: 'bad' }] },
      ];
      const path = dir.write('labelled.jsonl', rows.map(line).join(''));
      await exportBatchResults(path, join(dir.path, 'labelled.csv'), 'csv', NO_FILTER);
      const [header, first, second] = parseCsv(readFileSync(join(dir.path, 'labelled.csv'), 'utf8'));
      assert.deepEqual(header, [
        'row',
        'status',
        'passed',
        'executionId',
        'durationMs',
        'column.id',
        'column.note',
        'input.q',
        'output.answer',
        'error',
      ]);
      assert.deepEqual(first?.slice(5, 9), ['T-1', "'=x", 'a', 'y']);
      assert.deepEqual(second?.slice(5, 7), ['T-2', '']);
    });

    it('writes a header with a column per input and output, and one record per row', async () => {
      const rows: RowResult[] = [
        { row: 1, status: 'finished', passed: true, executionId: 'e1', durationMs: 12, inputs: { q: 'a, b' }, outputs: { answer: '=1+1' } },
        { row: 2, status: 'error', inputs: { q: 'line\nbreak', n: 3 }, error: 'Network "down"' },
        { row: 3, status: 'finished', inputs: { q: ' =cmd|calc' }, outputs: { answer: '\u00a0@SUM(1)' } },
      ];
      const path = dir.write('rows.jsonl', rows.map(line).join(''));
      await exportBatchResults(path, join(dir.path, 'rows.csv'), 'csv', NO_FILTER);
      assert.deepEqual(parseCsv(readFileSync(join(dir.path, 'rows.csv'), 'utf8')), [
        ['row', 'status', 'passed', 'executionId', 'durationMs', 'input.q', 'input.n', 'output.answer', 'error'],
        ['1', 'finished', 'true', 'e1', '12', 'a, b', '', "'=1+1", ''],
        ['2', 'error', '', '', '', 'line\nbreak', '3', '', 'Network "down"'],
        ['3', 'finished', '', '', '', "' =cmd|calc", '', "'\u00a0@SUM(1)", ''],
      ]);
      await exportBatchResults(path, join(dir.path, 'rows.out.jsonl'), 'jsonl', NO_FILTER);
      assert.deepEqual(
        readFileSync(join(dir.path, 'rows.out.jsonl'), 'utf8')
          .trimEnd()
          .split('\n')
          .map((text) => JSON.parse(text) as unknown),
        rows,
      );
    });
  });

  describe('exportBatchResults', () => {
    function writeResults(rows: number): string {
      let text = '';
      for (let row = 1; row <= rows; row++) {
        const status = row % 4 === 0 ? 'failed' : 'finished';
        text += line({
          row,
          status,
          inputs: { id: row, name: `n${row}` },
          outputs: status === 'finished' ? { id: String(row) } : undefined,
        });
      }
      // Row 2 ended again (--restart-unknown), row 6 too: their last lines are their results.
      text += line({ row: 2, status: 'failed', inputs: { id: 2, name: 'n2' }, error: 'second try' });
      text += 'torn\n';
      return dir.write('results.jsonl', text);
    }

    it('exports every row that passes the filter, beyond the rows the table keeps, last line winning', async () => {
      const path = writeResults(300);
      const table = await readBatchResults(path, { maxRows: 50 });
      assert.equal(table.rows.length, 50);
      const target = join(dir.path, 'failed.jsonl');
      const summary = await exportBatchResults(path, target, 'jsonl', { status: 'failed', text: '' });
      const exported = readFileSync(target, 'utf8')
        .trimEnd()
        .split('\n')
        .map((text) => JSON.parse(text) as RowResult);
      assert.equal(summary.rows, 76);
      assert.equal(summary.badLines, 1);
      assert.equal(exported.length, 76);
      assert.ok(exported.every((row) => row.status === 'failed'));
      assert.equal(exported.filter((row) => row.row === 2).length, 1);
      assert.equal(exported.find((row) => row.row === 2)!.error, 'second try');
      assert.ok(exported.some((row) => row.row === 300));
    });

    it('exports CSV with the text filter applied as the table applies it', async () => {
      const path = writeResults(30);
      const target = join(dir.path, 'out.csv');
      const summary = await exportBatchResults(path, target, 'csv', { status: 'all', text: 'n1' });
      const records = parseCsv(readFileSync(target, 'utf8'));
      assert.deepEqual(records[0], [
        'row',
        'status',
        'passed',
        'executionId',
        'durationMs',
        'input.id',
        'input.name',
        'output.id',
        'error',
      ]);
      // n1, n10..n19: the rows whose name holds "n1".
      assert.deepEqual(
        records.slice(1).map((record) => record[0]),
        ['1', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19'],
      );
      assert.equal(summary.rows, 11);
      assert.equal(summary.columnsLeftOut, false);
    });

    it('never writes over the results file or its state file, and leaves no partial file when stopped', async () => {
      const path = writeResults(3);
      const before = readFileSync(path, 'utf8');
      for (const target of [path, `${path}.state`, join(dir.path, '.', 'results.jsonl')])
        await assert.rejects(exportBatchResults(path, target, 'jsonl', { status: 'all', text: '' }), /own results or state file/);
      assert.equal(readFileSync(path, 'utf8'), before);
      const controller = new AbortController();
      controller.abort();
      const target = join(dir.path, 'out.jsonl');
      await assert.rejects(exportBatchResults(path, target, 'jsonl', { status: 'all', text: '' }, { signal: controller.signal }));
      // Written whole, then renamed: a target that cannot be replaced (a folder) leaves nothing behind.
      mkdirSync(join(dir.path, 'folder.csv'));
      await assert.rejects(
        exportBatchResults(path, join(dir.path, 'folder.csv'), 'csv', { status: 'all', text: '' }),
        /Cannot write the export to .*folder\.csv/,
      );
      assert.deepEqual(readdirSync(dir.path).sort(), ['folder.csv', 'results.jsonl']);
    });

    it('names the export file it cannot write', async () => {
      const path = writeResults(3);
      await assert.rejects(
        exportBatchResults(path, join(dir.path, 'no', 'such', 'dir', 'out.csv'), 'csv', { status: 'all', text: '' }),
        /Cannot write the export to .*out\.csv/,
      );
    });
  });
});
