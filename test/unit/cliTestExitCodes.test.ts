// `agent-workflows test` exit codes that CI relies on, through the in-process CLI and real files: a
// --grep that selects no case is exit 2 (a typo is not a green run).
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
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
});
