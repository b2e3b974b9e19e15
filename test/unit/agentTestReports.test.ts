// The size of what agent test results show: `agent-workflows test` (in-process) against a real
// local API answering 9 MB, and a test file expecting a 700 KB value; every report (text, JSON,
// JUnit) and the Test Explorer's message stays a few KB, and a run of many files does not hold
// every file's executions until its end. And JUnit XML that stays well-formed whatever characters
// case names and values hold.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { create } from 'xmlbuilder2';
import { boundedMessage, boundedText, MAX_SHOWN, shownFailure } from '../../src/core/testing/shownValue';
import { loadSuite, runSuite } from '../../src/core/testing/suite';
import { runCliCaptured } from '../support/cli';
import { startServer } from '../support/httpServer';
import type { TestServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const run = (args: string[], cwd: string) => runCliCaptured(args, { cwd, env: {} });

const ANSWER_LENGTH = 9_000_000;
/** The most a report of a few failures may take: far below the size of one answer. */
const REPORT_LIMIT = 64 * 1024;

const BIG_AGENT = (url: string): string => `version: 1
name: big answer
nodes:
  current:
    type: api
    method: GET
    url: ${url}/answer
outputs:
  summary: { from: "{{ nodes.current.body.summary }}" }
  whole: { from: "{{ nodes.current.body }}" }
`;
const BIG_CASE = (name: string): string =>
  `  ${name}:\n    live: true\n    expect:\n      outputs:\n        summary: short\n        whole: { summary: short }\n`;

describe('agent test reports are bounded', () => {
  let dir: TempDir;
  let api: TestServer;
  /** Called as each request comes, before it is answered. */
  let onRequest = (): void => undefined;

  before(async () => {
    const answer = Buffer.from(JSON.stringify({ summary: `${'x'.repeat(ANSWER_LENGTH - 3)}END` }));
    api = await startServer((_request, response) => {
      onRequest();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(answer);
    });
  });
  after(() => api.close());
  beforeEach(() => {
    dir = makeTempDir();
    dir.write('big.agent.yaml', BIG_AGENT(api.url));
    onRequest = () => undefined;
  });
  afterEach(() => dir.remove());

  it('writes text, JSON and JUnit reports of a few KB for failures against a 9 MB answer', async () => {
    dir.write('big.agent.test.yaml', `cases:\n${BIG_CASE('one')}${BIG_CASE('two')}${BIG_CASE('three')}`);
    for (const reporter of ['text', 'json', 'junit']) {
      const result = await run(['test', '--reporter', reporter, '--output', `report.${reporter}`], dir.path);
      assert.equal(result.code, 1, result.stderr);
      const report = readFileSync(join(dir.path, `report.${reporter}`), 'utf8');
      assert.ok(report.length < REPORT_LIMIT, `the ${reporter} report takes ${report.length} characters`);
      assert.match(report, new RegExp(`\\(${ANSWER_LENGTH} characters\\)`), `the ${reporter} report says how long the answer was`);
      if (reporter === 'json') {
        const json = JSON.parse(report) as { failed: number; files: Array<{ cases: Array<{ failures: Array<{ actual: unknown }> }> }> };
        assert.equal(json.failed, 3);
        const actual = json.files[0]!.cases[0]!.failures[0]!.actual;
        assert.ok(typeof actual === 'string' && actual.startsWith('xxx') && actual.length <= MAX_SHOWN + 40, String(actual).slice(-60));
      }
    }
  });

  it('cuts a 700 KB expected value in the text message, keeping what came', async () => {
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'weather-report.agent.yaml'));
    const expected = 'y'.repeat(700_000);
    dir.write(
      'weather-report.agent.test.yaml',
      `cases:\n  long:\n    inputs: { city: Lisbon }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { body: { summary: Sunny, temperature: 24 } } }\n    expect:\n      outputs:\n        report: ${expected}\n`,
    );
    const result = await run(['test'], dir.path);
    assert.equal(result.code, 1);
    const long = result.stdout.split('\n').filter((line) => line.length > MAX_SHOWN + 100);
    assert.deepEqual(
      long.map((line) => line.length),
      [],
      'no line of the report is much longer than a shown value',
    );
    assert.match(
      result.stdout,
      /:8: outputs\.report: expected "y+… \(\d+ characters cut\) …y+", got "Lisbon: Sunny, 24 degrees \(metric\)\."\n/,
    );
  });

  it("bounds the Test Explorer's message, expected and actual values", async () => {
    dir.write('big.agent.test.yaml', `cases:\n${BIG_CASE('one')}`);
    const loaded = loadSuite(join(dir.path, 'big.agent.test.yaml'));
    if (!('suite' in loaded)) assert.fail(loaded.message);
    const [result] = await runSuite(loaded);
    assert.equal(result!.failures.length, 2);
    for (const failure of result!.failures) {
      const shown = shownFailure(failure);
      assert.ok(shown.expected !== undefined && shown.actual !== undefined, 'a diff for the Compare view');
      for (const text of [shown.message, shown.expected, shown.actual])
        assert.ok(text.length <= MAX_SHOWN + 40, `${text.length} characters: ${text.slice(-80)}`);
      assert.match(shown.actual, /^[{"x].*… \(9\d{6} characters\)$/s);
    }
  });

  it('never cuts a mask of a redacted secret in two', () => {
    // Masks across both cuts of a long message: where its start ends and where its end begins.
    const text = `${'a'.repeat(1495)}[redacted]${'b'.repeat(5000)}[redacted]${'c'.repeat(495)}`;
    const message = boundedMessage(text);
    assert.match(message, /^a{1495}\[redacted\]… \(\d+ characters cut\) …\[redacted\]c{495}$/);
    assert.match(boundedText(`${'a'.repeat(1995)}[redacted]`), /^a{1995}\[redacted\]… \(2005 characters\)$/);
  });

  it("keeps only what the report shows of each file's cases, not their 9 MB executions", async () => {
    const files = 6;
    for (let index = 0; index < files; index++)
      dir.write(`big${index}.agent.test.yaml`, `agent: big.agent.yaml\ncases:\n${BIG_CASE('one')}`);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // The heap as each file's request comes: what earlier files left is all that is still held.
    const heap: number[] = [];
    onRequest = () => {
      gc();
      heap.push(process.memoryUsage().heapUsed);
    };
    const result = await run(['test', '--reporter', 'json'], dir.path);
    assert.equal(result.code, 1);
    assert.equal(heap.length, files);
    const grown = heap[files - 1]! - heap[0]!;
    assert.ok(grown < 2 * ANSWER_LENGTH, `the heap grew by ${Math.round(grown / 1e6)} MB over ${files - 1} files of 9 MB answers`);
  });
});

describe('agent test runs keep little of each case', () => {
  let dir: TempDir;
  let api: TestServer | undefined;
  beforeEach(() => (dir = makeTempDir()));
  afterEach(async () => {
    await api?.close();
    dir.remove();
  });

  it("keeps what the report shows of each case as it ends, not the executions of the file's earlier cases", async function () {
    // 48 full collections of a heap holding 2 MB answers: about 5 s alone, twice that beside the
    // host lane of npm test, where the unit tests run at a lower priority.
    this.timeout(60_000);
    const cases = 48;
    const answer = Buffer.from(JSON.stringify({ summary: 'y'.repeat(2_000_000) }));
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // The heap as each case's request comes: the cases running (8 at a time), and what earlier ones left.
    const heap: number[] = [];
    api = await startServer((_request, response) => {
      gc();
      heap.push(process.memoryUsage().heapUsed);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(answer);
    });
    dir.write('big.agent.yaml', BIG_AGENT(api.url));
    dir.write('big.agent.test.yaml', `cases:\n${Array.from({ length: cases }, (_, i) => BIG_CASE(`case ${i}`)).join('')}`);
    const result = await run(['test', '--reporter', 'json'], dir.path);
    assert.equal(result.code, 1);
    assert.equal(heap.length, cases);
    const grown = Math.max(...heap.slice(cases / 2)) - heap[0]!;
    // Eight cases running hold 8 answers and their outputs (about 50 MB); 40 ended ones kept whole would hold 200 MB more.
    assert.ok(grown < 100e6, `the heap grew by ${Math.round(grown / 1e6)} MB over ${cases} cases of 2 MB answers`);
  });
});

/** Characters outside XML 1.0's Char production: what a strict parser (expat) refuses. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

describe('JUnit XML of agent tests', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'weather-report.agent.yaml'));
  });
  afterEach(() => dir.remove());

  it('stays well-formed when case names and values hold characters XML cannot', async () => {
    // YAML escapes: controls, U+FFFE and a lone surrogate, in a case name and in the API's answer.
    dir.write(
      'weather-report.agent.test.yaml',
      `cases:\n  "ctrl \\x01 \\x02 \\uFFFE \\uD800 name":\n    inputs: { city: Lisbon }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { body: { summary: "a\\x01b\\x02c\\uFFFEd\\uDC00e", temperature: 24 } } }\n    expect:\n      outputs:\n        report: Lisbon\n`,
    );
    const result = await run(['test', '--reporter', 'junit', '--output', 'report.xml'], dir.path);
    assert.equal(result.code, 1, result.stderr);
    const text = readFileSync(join(dir.path, 'report.xml'), 'utf8');
    const bad = NOT_XML_CHAR.exec(text);
    assert.equal(
      bad,
      null,
      `U+${bad?.[0].codePointAt(0)?.toString(16)} at ${bad?.index}: ${text.slice((bad?.index ?? 0) - 40, (bad?.index ?? 0) + 10)}`,
    );
    const xml = create(text).end({ format: 'object' }) as {
      testsuites: { testsuite: { testcase: { '@name': string; failure: { '#': string } } } };
    };
    const testcase = xml.testsuites.testsuite.testcase;
    assert.equal(testcase['@name'], 'ctrl \\u0001 \\u0002 \\ufffe \\ud800 name');
    assert.match(testcase.failure['#'], /\+ Lisbon: a\\u0001b\\u0002c\\ufffed\\udc00e, 24 degrees/);
  });
});
