// A failed agent test case keeps the exchange of the node it failed at: what it sent (secrets by
// name) and what its mock answered. The reports (text, JSON, JUnit) sum it up under the case; the
// command line prints it.
import assert from 'node:assert/strict';
import { create } from 'xmlbuilder2';
import { failedNodeOf, failureExchange } from '../../src/core/testing/failureExchange';
import { formatJson, formatJunit, formatText, keptForReport, reportedCase } from '../../src/core/testing/report';
import { loadSuite, runSuite } from '../../src/core/testing/suite';
import type { LoadedSuite, SuiteLoadFailure } from '../../src/core/testing/suite';
import { runCliCaptured } from '../support/cli';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const SECRET = 'orders-secret-5d1e';

const AGENT = `version: 1
name: Two calls
inputs:
  id: { type: string, required: true }
nodes:
  user:
    type: api
    method: GET
    url: https://users.example.com/users/{{ inputs.id }}
  orders:
    type: api
    method: POST
    url: https://orders.example.com/orders/search
    settings:
      - "Authorization: Bearer {{ secrets.ORDERS_TOKEN }}"
    body:
      user: "{{ nodes.user.body.name }}"
outputs:
  count: { from: "{{ nodes.orders.body.count }}" }
`;

const TESTS = `cases:
  orders fail:
    inputs: { id: u1 }
    secrets: { ORDERS_TOKEN: ${SECRET} }
    mocks:
      user: { body: { name: Ana } }
      orders: { status: 500, body: { error: database down } }
    expect:
      outputs:
        count: 2
  wrong user body:
    inputs: { id: u1 }
    secrets: { ORDERS_TOKEN: ${SECRET} }
    mocks:
      user: { body: { name: Bo } }
      orders: { body: { count: 2 } }
    expect:
      nodes:
        user:
          body: { name: Ana }
  passes:
    inputs: { id: u1 }
    secrets: { ORDERS_TOKEN: ${SECRET} }
    mocks:
      user: { body: { name: Ana } }
      orders: { body: { count: 2 } }
    expect:
      outputs:
        count: 2
`;

function loaded(result: LoadedSuite | SuiteLoadFailure): LoadedSuite {
  if (!('suite' in result)) assert.fail(result.message);
  return result;
}

describe('agent test failures and their exchanges', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    dir.write('two-calls.agent.yaml', AGENT);
    dir.write('two-calls.agent.test.yaml', TESTS);
  });
  afterEach(() => dir.remove());

  it('keeps the exchange of the node the case failed at, secrets by name', async () => {
    const [failed, wrongBody, passed] = await runSuite(loaded(loadSuite(`${dir.path}/two-calls.agent.test.yaml`)));
    assert.equal(failed?.passed, false);
    assert.equal(failedNodeOf(failed!), 'orders');
    const exchange = failureExchange(failed!);
    assert.ok(exchange, 'the failed node has an exchange');
    assert.equal(exchange.node, 'orders');
    assert.equal(exchange.request.method, 'POST');
    assert.equal(exchange.request.url, 'https://orders.example.com/orders/search');
    assert.ok(
      exchange.request.headers.some(
        (header) => /^authorization$/i.test(header.name) && header.value === 'Bearer {{ secrets.ORDERS_TOKEN }}',
      ),
      JSON.stringify(exchange.request.headers),
    );
    assert.equal(exchange.response?.status, 500);
    assert.ok(exchange.response?.body.kind === 'text' && exchange.response.body.text.includes('database down'));
    assert.doesNotMatch(JSON.stringify(failed!.exchanges), new RegExp(SECRET));

    // An expectation about a node's result: that node.
    assert.equal(failedNodeOf(wrongBody!), 'user');
    assert.equal(failureExchange(wrongBody!)?.node, 'user');
    assert.equal(failedNodeOf(passed!), undefined);
    assert.equal(failureExchange(passed!), undefined);
    // Made only for a case that failed (each costs a redaction and a decoding of the bodies).
    assert.deepEqual(
      failed!.exchanges?.exchanges.map((made) => made.node),
      ['user', 'orders'],
    );
    assert.equal(passed!.exchanges, undefined);
  });

  it('sums the exchange up in the text, JSON and JUnit reports, also once the case is kept for its report', async () => {
    const results = await runSuite(loaded(loadSuite(`${dir.path}/two-calls.agent.test.yaml`)), {
      keep: (result) => keptForReport(result),
    });
    assert.equal(results[0]?.exchanges, undefined, 'the whole exchanges are let go');
    const report = { file: 'two-calls.agent.test.yaml', results: results.map((result) => reportedCase(result)) };
    assert.deepEqual(report.results[0]?.exchange, {
      node: 'orders',
      summary: report.results[0]?.exchange?.summary,
      answer: '{"error":"database down"}',
    });
    assert.match(
      report.results[0]!.exchange!.summary,
      /^POST https:\/\/orders\.example\.com\/orders\/search → 500 Internal Server Error · 25 B · \d+ ms$/,
    );
    assert.equal(report.results[2]?.exchange, undefined);

    const text = formatText([report]);
    assert.match(text, /^ {6}exchange of node "orders": POST https:\/\/orders\.example\.com\/orders\/search → 500 Internal Server Error/m);
    assert.match(text, /^ {8}answer: \{"error":"database down"\}$/m);
    assert.match(text, /^ {6}exchange of node "user": GET https:\/\/users\.example\.com\/users\/u1 → 200 OK/m);

    const json = JSON.parse(formatJson([report])) as { files: { cases: { exchange?: { node: string } }[] }[] };
    assert.equal(json.files[0]?.cases[0]?.exchange?.node, 'orders');
    assert.equal(json.files[0]?.cases[2]?.exchange, undefined);

    const junit = create(formatJunit([report])).end({ format: 'object' }) as unknown as {
      testsuites: { testsuite: { testcase: { failure?: { '#': string } }[] } };
    };
    assert.match(junit.testsuites.testsuite.testcase[0]!.failure!['#'], /exchange of node "orders": POST .* → 500 Internal Server Error/);
  });

  it('prints the exchange summary under the failed case on the command line, never the secret', async () => {
    const result = await runCliCaptured(['test', 'two-calls.agent.test.yaml'], { cwd: dir.path, env: {} }, [SECRET]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stdout,
      /✗ orders fail[^\n]*\n(?: {6}[^\n]*\n)*? {6}exchange of node "orders": POST https:\/\/orders\.example\.com\/orders\/search → 500/,
    );
    assert.match(result.stdout, /answer: \{"error":"database down"\}/);
  });
});
