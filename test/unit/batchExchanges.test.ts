// `batch --local`: a row that fails at an API node keeps that node's exchange, summed up, in its
// results line (what it sent, secrets by name, and what came back); rows that finish keep none.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { json, startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const TOKEN = 'batch-token-93c1aa';

describe('batch --local and exchanges', () => {
  let api: TestServer;
  let dir: TempDir;
  beforeEach(async () => {
    api = await startServer((request, response) => {
      if (request.url?.endsWith('/2')) return json(response, 503, { error: 'item 2 is resting' });
      json(response, 200, { name: `item ${request.url?.split('/').pop() ?? ''}` });
    });
    dir = makeTempDir();
    dir.write(
      'rows.agent.yaml',
      `version: 1
name: Rows
inputs:
  id: { type: number, required: true }
nodes:
  item:
    type: api
    method: GET
    url: ${api.url}/items/{{ inputs.id }}
    settings:
      - "Authorization: Bearer {{ secrets.ITEMS_TOKEN }}"
outputs:
  name: { from: "{{ nodes.item.body.name }}" }
`,
    );
    dir.write('rows.jsonl', '{"id": 1}\n{"id": 2}\n');
  });
  afterEach(async () => {
    await api.close();
    dir.remove();
  });

  it("writes the failed node's exchange in the failed row's results line", async () => {
    const result = await runCliCaptured(
      ['batch', 'rows.agent.yaml', '--data', 'rows.jsonl', '--out', 'out.jsonl', '--local'],
      { cwd: dir.path, env: { AGENT_SECRET_ITEMS_TOKEN: TOKEN } },
      [TOKEN],
    );
    assert.equal(result.code, 1, result.stderr);
    const lines = readFileSync(join(dir.path, 'out.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { row: number; status: string; exchange?: { node: string; summary: string; answer?: string } });
    const byRow = new Map(lines.map((line) => [line.row, line]));
    assert.equal(byRow.get(1)?.status, 'finished');
    assert.equal(byRow.get(1)?.exchange, undefined);
    const failed = byRow.get(2);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.exchange?.node, 'item');
    assert.match(
      failed?.exchange?.summary ?? '',
      new RegExp(`^GET ${api.url.replace(/[.]/g, '\\.')}/items/2 → 503 Service Unavailable · \\d+ B · \\d+ ms$`),
    );
    assert.equal(failed?.exchange?.answer, '{"error":"item 2 is resting"}');
    assert.doesNotMatch(readFileSync(join(dir.path, 'out.jsonl'), 'utf8'), new RegExp(TOKEN));
  });
});
