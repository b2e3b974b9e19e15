// `agent-workflows test` exit codes that CI relies on, through the in-process CLI and real files: a
// --grep that selects no case is exit 2 (a typo is not a green run); a case marked deployed: true
// that cannot reach a deployment (no target, no key) fails alone, the rest of the run goes on.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const run = (args: string[], cwd: string, env: Record<string, string> = {}) => runCliCaptured(args, { cwd, env });

const LOCAL_CASE = (name: string): string => `  ${name}:
    inputs: { city: Lisbon }
    secrets: { WEATHER_API_KEY: k }
    mocks: { current: { body: { summary: Sunny, temperature: 24 } } }
    expect:
      outputs:
        report: { $contains: Sunny }
`;

describe('agent-workflows test: exit codes', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    for (const folder of ['a', 'b'])
      copyFileSync(join(repoRoot, 'examples', 'weather-report.agent.yaml'), dir.write(`${folder}/weather-report.agent.yaml`, ''));
  });
  afterEach(() => dir.remove());

  it('exits 2 when --grep selects no case in any test file, naming the text and the files searched', async () => {
    dir.write('a/weather-report.agent.test.yaml', `cases:\n${LOCAL_CASE('sunny lisbon')}`);
    dir.write('b/weather-report.agent.test.yaml', `cases:\n${LOCAL_CASE('sunny porto')}`);
    const typo = await run(['test', '--grep', 'sunyn'], dir.path);
    assert.equal(typo.code, 2, typo.stdout + typo.stderr);
    assert.match(typo.stderr, /No case name contains "sunyn" in 2 test files; check --grep\./);
    const one = await run(['test', 'a', '--grep', 'sunyn', '--reporter', 'junit'], dir.path);
    assert.equal(one.code, 2);
    assert.match(one.stderr, /No case name contains "sunyn" in 1 test file; check --grep\./);
    // A match in one file is enough: the other file simply has no case to run.
    const some = await run(['test', '--grep', 'PORTO'], dir.path);
    assert.equal(some.code, 0, some.stdout + some.stderr);
    assert.match(some.stdout, /1 case: 1 passed, 0 failed/);
  });

  it('fails only the deployed: true cases when there is no deployment or key: the rest runs, the report is written, exit 2', async () => {
    dir.write(
      'a/weather-report.agent.test.yaml',
      `cases:\n${LOCAL_CASE('local in a')}  on the service:\n    deployed: true\n    inputs: { city: Oslo }\n`,
    );
    dir.write('b/weather-report.agent.test.yaml', `cases:\n${LOCAL_CASE('local in b')}`);
    const noTarget = await run(['test', 'a', 'b', '--reporter', 'junit', '--output', 'report.xml'], dir.path, {
      AGENT_WORKFLOWS_API_KEY: 'a-key-that-is-never-sent',
    });
    assert.equal(noTarget.code, 2, noTarget.stdout + noTarget.stderr);
    const missing = /a\/weather-report\.agent\.yaml: .*--base-url, --account and --agent/;
    assert.match(noTarget.stderr, missing);
    assert.match(noTarget.stderr, /3 cases: 2 passed, 1 failed/);
    assert.match(noTarget.stderr, /report written to report\.xml/);
    const report = readFileSync(join(dir.path, 'report.xml'), 'utf8');
    assert.match(report, /<testcase name="local in a"[^>]*\/>/);
    assert.match(report, /<testcase name="local in b"[^>]*\/>/);
    assert.match(
      report,
      /<testcase name="on the service"[^>]*>\s*<failure message="Not run on the deployment: [^"]*a\/weather-report\.agent\.yaml: /,
    );

    const noKey = await run(['test', 'a', 'b'], dir.path);
    assert.equal(noKey.code, 2, noKey.stdout + noKey.stderr);
    assert.equal(noKey.stderr.match(/No API key: set the AGENT_WORKFLOWS_API_KEY/g)?.length, 1, noKey.stderr);
    assert.match(
      noKey.stdout,
      /✓ local in a[\s\S]*✗ on the service \(0 ms\)\n\s+a\/weather-report\.agent\.test\.yaml:\d+: Not run on the deployment: No API key/,
    );
    assert.match(noKey.stdout, /b\/weather-report\.agent\.test\.yaml\n {2}✓ local in b/);
    assert.match(noKey.stdout, /3 cases: 2 passed, 1 failed/);
  });
});
