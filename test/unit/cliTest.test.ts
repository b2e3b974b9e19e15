// `agent-workflows test`, driven in-process through runCli and as the built binary: a line per
// case, diffs of failed expectations at their lines, snapshots, JSON and JUnit reports, exit codes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create } from 'xmlbuilder2';
import { runCliCaptured } from '../support/cli';
import { json, startServer } from '../support/httpServer';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const run = (args: string[], cwd: string) => runCliCaptured(args, { cwd, env: {} });

const CASE = (name: string, report: string): string => `  ${name}:
    inputs: { city: Lisbon }
    secrets: { WEATHER_API_KEY: k }
    mocks: { current: { body: { summary: Sunny, temperature: 24 } } }
    expect:
      outputs:
        report: ${report}
`;
const PASSING = CASE('passes', '{ $contains: Sunny }');
const FAILING = CASE('fails', '"Lisbon: Rain"');

describe('agent-workflows test', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), join(dir.path, 'weather-report.agent.yaml'));
  });
  afterEach(() => dir.remove());

  it('runs the examples as the built binary and exits 0', () => {
    const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'test', 'examples'], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /\nexamples\/weather-report\.agent\.test\.yaml\n {2}✓ sunny city \(\d+ ms\)\n/);
    assert.match(result.stdout, /\n13 cases: 13 passed, 0 failed/);
  });

  it('prints each failed expectation at its line with a diff, and exits 1', async () => {
    dir.write('weather-report.agent.test.yaml', `cases:\n${PASSING}${FAILING}`);
    const result = await run(['test'], dir.path);
    assert.equal(result.code, 1);
    assert.match(result.stdout, / {2}✓ passes \(\d+ ms\)\n {2}✗ fails \(\d+ ms\)\n/);
    assert.match(
      result.stdout,
      /weather-report\.agent\.test\.yaml:15: outputs\.report: expected "Lisbon: Rain", got "Lisbon: Sunny, 24 degrees \(metric\)\."\n/,
    );
    assert.match(result.stdout, /- expected\n\s+\+ actual\n\s+- Lisbon: Rain\n\s+\+ Lisbon: Sunny, 24 degrees \(metric\)\.\n/);
    assert.match(result.stdout, /2 cases: 1 passed, 1 failed/);
  });

  it('exits 2 for a test file with problems, naming each at its line', async () => {
    dir.write('weather-report.agent.test.yaml', 'cases:\n  one:\n    inputs: { cty: Oslo }\n');
    const result = await run(['test', 'weather-report.agent.test.yaml'], dir.path);
    assert.equal(result.code, 2);
    assert.match(result.stdout, /could not run: \d+ problems? in the test file/);
    assert.match(
      result.stdout,
      /weather-report\.agent\.test\.yaml:3:15: unknown-input The agent has no input "cty"\. Did you mean "city"\?/,
    );
    assert.match(result.stdout, /1 test file could not run/);
  });

  it('exits 2 when there is no test file to run', async () => {
    const result = await run(['test'], dir.path);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no \*\.agent\.test\.yaml files in this directory/);
    assert.match(result.stderr, /No test files to run/);
  });

  it("--update writes the snapshot cases' outputs, keeping the rest of the file, then they pass", async () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      `# kept\ncases:\n  snap:\n    snapshot: true\n    inputs: { city: Oslo }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { body: { summary: Snow, temperature: -3 } } }\n${FAILING}`,
    );
    const before = await run(['test'], dir.path);
    assert.equal(before.code, 1);
    assert.match(before.stdout, /No snapshot of the outputs yet. Run `agent-workflows test --update` to write them into expect.outputs./);
    const update = await run(['test', '--update'], dir.path);
    assert.match(update.stdout, /✓ snap \(\d+ ms\) \(snapshot written\)/);
    assert.equal(update.code, 1, 'the case that is not a snapshot still fails');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^# kept\n/);
    assert.match(text, /expect:\n\s+outputs:\n\s+report: "Oslo: Snow, -3 degrees \(metric\)\."\n\s+temperature: -3\n/);
    assert.match(text, /report: "Lisbon: Rain"/, 'other expectations are untouched');
    const after = await run(['test', '--grep', 'SNAP'], dir.path);
    assert.equal(after.code, 0, after.stdout);
  });

  it('--update writes outputs holding $ keys so that they mean equality, and the next run passes', async () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      `cases:\n  snap:\n    snapshot: true\n    inputs: { city: Oslo }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { body: { summary: Snow, temperature: { "$ref": "#/x", plain: 1, list: [{ $gt: 1 }, { n: { $not: 2 } }] } } } }\n`,
    );
    const update = await run(['test', '--update'], dir.path);
    assert.equal(update.code, 0, update.stdout);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /temperature:\n\s+\$eq:\n\s+\$ref: "#\/x"\n/, text);
    const after = await run(['test'], dir.path);
    assert.equal(after.code, 0, after.stdout);
    assert.match(after.stdout, /✓ snap/);
  });

  it('--update replaces the file whole: its mode kept, no other file left beside it', async () => {
    const file = dir.write(
      'weather-report.agent.test.yaml',
      `cases:\n  snap:\n    snapshot: true\n    inputs: { city: Oslo }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { body: { summary: Snow, temperature: -3 } } }\n`,
    );
    chmodSync(file, 0o640);
    const update = await run(['test', '--update'], dir.path);
    assert.equal(update.code, 0, update.stdout + update.stderr);
    assert.match(readFileSync(file, 'utf8'), /report: "Oslo: Snow, -3 degrees \(metric\)\."/);
    assert.deepEqual(readdirSync(dir.path).sort(), ['weather-report.agent.test.yaml', 'weather-report.agent.yaml']);
    if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o640);
  });

  it('--update writes nothing into a test file saved again while its cases ran, and exits 2', async () => {
    // A live case calls a real server on 127.0.0.1, which saves the test file as an editor would
    // before it answers: the file then differs from the text the snapshot was made from.
    let testFile = '';
    const edited = 'cases:\n  real:\n    live: true\n    snapshot: true\n    inputs: { id: a1 }\n  # saved while the cases ran\n';
    const api = await startServer((_request, response) => {
      writeFileSync(testFile, edited);
      json(response, 200, { name: 'Ada' });
    });
    try {
      dir.write(
        'lookup.agent.yaml',
        `version: 1\nname: Lookup\ninputs:\n  id: { type: string, required: true }\nnodes:\n  fetch:\n    type: api\n    method: GET\n    url: ${api.url}/{{ inputs.id }}\noutputs:\n  name: { from: "{{ nodes.fetch.body.name }}" }\n`,
      );
      testFile = dir.write('lookup.agent.test.yaml', 'cases:\n  real:\n    live: true\n    snapshot: true\n    inputs: { id: a1 }\n');
      const result = await run(['test', '--update', 'lookup.agent.test.yaml'], dir.path);
      assert.equal(api.requests.length, 1, 'the case reached the server');
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /lookup\.agent\.test\.yaml: snapshots not written: it changed while its cases ran/);
      assert.doesNotMatch(result.stdout, /snapshot written/);
      assert.equal(readFileSync(testFile, 'utf8'), edited, 'the edit is kept');
      assert.deepEqual(readdirSync(dir.path).sort(), ['lookup.agent.test.yaml', 'lookup.agent.yaml', 'weather-report.agent.yaml']);
    } finally {
      await api.close();
    }
  });

  for (const style of ['block', 'flow']) {
    it(`--update reports the failures below a ${style}-style snapshot case at their lines in the file written`, async () => {
      // Written in block style, the outputs add lines; a flow mapping over several lines is written
      // again on one line (through the yaml library), taking lines away.
      const snap =
        style === 'block'
          ? '  snap:\n    snapshot: true\n    inputs: { city: Oslo }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { body: { summary: Snow, temperature: -3 } } }\n'
          : '  snap: {\n    snapshot: true,\n    inputs: { city: Oslo },\n    secrets: { WEATHER_API_KEY: k },\n    mocks: { current: { body: { summary: Snow, temperature: -3 } } }\n  }\n';
      const down =
        '  down:\n    inputs: { city: Oslo }\n    secrets: { WEATHER_API_KEY: k }\n    mocks: { current: { status: 503, body: unavailable } }\n';
      const original = `cases:\n${snap}${FAILING}${down}`;
      const lineIn = (text: string, line: string): number => text.split('\n').findIndex((each) => each.includes(line)) + 1;
      for (const reporter of ['text', 'json']) {
        const file = dir.write('weather-report.agent.test.yaml', original);
        const result = await run(['test', '--update', '--reporter', reporter], dir.path);
        assert.equal(result.code, 1, result.stdout + result.stderr);
        const text = readFileSync(file, 'utf8');
        const expectation = lineIn(text, 'report: "Lisbon: Rain"');
        const downCase = lineIn(text, '  down:');
        assert.notEqual(expectation, lineIn(original, 'report: "Lisbon: Rain"'), `the snapshot moved the lines below it:\n${text}`);
        if (reporter === 'text') {
          assert.match(result.stdout, new RegExp(`test\\.yaml:${expectation}: outputs\\.report: expected "Lisbon: Rain"`), result.stdout);
          assert.match(result.stdout, new RegExp(`test\\.yaml:${downCase}: The execution failed`), result.stdout);
        } else {
          const lines = (stdout: string): unknown =>
            (
              JSON.parse(stdout) as { files: Array<{ cases: Array<{ name: string; failures: Array<{ line: number }> }> }> }
            ).files[0]!.cases.map((testCase) => [testCase.name, testCase.failures.map((failure) => failure.line)]);
          const expected = [
            ['snap', []],
            ['fails', [expectation]],
            ['down', [downCase]],
          ];
          assert.deepEqual(lines(result.stdout), expected);
          assert.deepEqual(
            lines((await run(['test', '--reporter', reporter], dir.path)).stdout),
            expected,
            'as a run of the file written says',
          );
        }
      }
    });
  }

  it('writes JUnit XML that counts cases and failures, with the failure text', async () => {
    dir.write('weather-report.agent.test.yaml', `cases:\n${PASSING}${FAILING}`);
    const result = await run(['test', '--reporter', 'junit', '--output', 'report.xml'], dir.path);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /2 cases: 1 passed, 1 failed.*\nreport written to report\.xml/);
    const text = readFileSync(join(dir.path, 'report.xml'), 'utf8');
    assert.match(text, /<failure message="outputs\.report: expected &quot;Lisbon: Rain&quot;, got &quot;Lisbon: Sunny/);
    const xml = create(text).end({ format: 'object' }) as {
      testsuites: {
        '@tests': string;
        '@failures': string;
        testsuite: { testcase: Array<{ '@name': string; failure?: { '@message': string; '#': string } }> };
      };
    };
    assert.equal(xml.testsuites['@tests'], '2');
    assert.equal(xml.testsuites['@failures'], '1');
    const [passed, failed] = xml.testsuites.testsuite.testcase;
    assert.equal(passed!['@name'], 'passes');
    assert.equal(passed!.failure, undefined);
    assert.ok(failed!.failure);
    assert.match(failed!.failure!['#'], /- Lisbon: Rain\n\s+\+ Lisbon: Sunny/);
  });

  it("shows what a node sent with the case's secrets redacted, in every reporter", async () => {
    dir.write(
      'keyed.agent.yaml',
      `version: 1
name: Keyed
nodes:
  call:
    type: api
    method: POST
    url: https://api.example.com/v1/x?api_key={{ secrets.TOKEN }}
    settings: ["Authorization: Bearer {{ secrets.TOKEN }}", "x-api-key: {{ secrets.TOKEN }}", "Content-Type: application/json"]
    body: { key: "{{ secrets.TOKEN }}" }
outputs:
  status: { from: "{{ nodes.call.status }}" }
`,
    );
    dir.write(
      'keyed.agent.test.yaml',
      `cases:
  sends the key:
    secrets: { TOKEN: sk-SUPERSECRET-123456 }
    mocks:
      call:
        body: { ok: true }
        expect_request:
          url: https://api.example.com/v1/x
          headers: { authorization: Bearer wrong, x-api-key: wrong }
          body: { key: wrong }
`,
    );
    const text = await run(['test', 'keyed.agent.test.yaml'], dir.path);
    const json = await run(['test', 'keyed.agent.test.yaml', '--reporter', 'json'], dir.path);
    const junit = await run(['test', 'keyed.agent.test.yaml', '--reporter', 'junit', '--output', 'report.xml'], dir.path);
    assert.deepEqual([text.code, json.code, junit.code], [1, 1, 1]);
    const reports = { text: text.stdout, json: json.stdout, junit: readFileSync(join(dir.path, 'report.xml'), 'utf8') };
    for (const [reporter, report] of Object.entries(reports)) {
      assert.ok(!report.includes('SUPERSECRET'), `${reporter}: ${report}`);
      for (const field of ['url', 'headers.authorization', 'headers.x-api-key', 'body.key'])
        assert.ok(report.includes(`requests.call.${field}`), `${reporter} reports ${field}`);
    }
    assert.match(text.stdout, /requests\.call\.headers\.authorization: expected "Bearer wrong", got "Bearer \[redacted\]"/);
    assert.match(
      text.stdout,
      /requests\.call\.url: expected "https:\/\/api\.example\.com\/v1\/x", got "https:\/\/api\.example\.com\/v1\/x\?api_key=\[redacted\]"/,
    );
    assert.equal(text.code, 1);
  });

  it('prints a JSON report', async () => {
    dir.write('weather-report.agent.test.yaml', `cases:\n${PASSING}${FAILING}`);
    const result = await run(['test', '-r', 'json'], dir.path);
    const json = JSON.parse(result.stdout) as {
      passed: number;
      failed: number;
      files: Array<{ cases: Array<{ name: string; failures: Array<{ line: number; actual: unknown }> }> }>;
    };
    assert.equal(json.passed, 1);
    assert.equal(json.failed, 1);
    assert.deepEqual(json.files[0]!.cases[1]!.failures[0], {
      ...json.files[0]!.cases[1]!.failures[0],
      line: 15,
      actual: 'Lisbon: Sunny, 24 degrees (metric).',
    });
  });
});
