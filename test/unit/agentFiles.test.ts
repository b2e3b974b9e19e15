// Which files are agent files, and the one directory walk the command line and the local server
// share (src/core/document/agentFiles.ts), on real folders.
import assert from 'node:assert/strict';
import { join, relative, sep } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { AGENT_FILE, AGENT_FILE_ANY_CASE, findFilesUnder, SKIPPED_DIRECTORIES } from '../../src/core/document/agentFiles';
import { AgentDirectory } from '../../src/core/server/agentDirectory';
import { TEST_FILE } from '../../src/core/testing/testFileName';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const VALID =
  'version: 1\nname: Valid\nnodes:\n  hello: { type: template, text: hi }\noutputs:\n  out: { from: "{{ nodes.hello.body }}" }\n';

describe('agent files', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir();
    for (const file of ['b/two.agent.yml', 'a/one.agent.yaml', 'zero.agent.yaml', 'a/one.agent.test.yaml', 'notes.yaml', 'a/agent.yaml'])
      dir.write(file, VALID);
    for (const skipped of SKIPPED_DIRECTORIES) dir.write(`${skipped}/hidden.agent.yaml`, VALID);
    dir.write('a/node_modules/pkg/hidden.agent.yaml', VALID);
  });
  afterEach(() => dir.remove());

  const names = (paths: readonly string[]): string[] => paths.map((path) => relative(dir.path, path).split(sep).join('/'));

  it('tells agent files from other YAML and from agent test files', () => {
    for (const name of ['x.agent.yaml', 'x.agent.yml', 'a.b.agent.yaml']) assert.match(name, AGENT_FILE, name);
    for (const name of ['x.yaml', 'agent.yaml', 'x.agent.test.yaml', 'x.agent.yaml.bak', 'X.Agent.YAML'])
      assert.doesNotMatch(name, AGENT_FILE, name);
    // The editor's variant differs only in case.
    assert.match('X.Agent.YAML', AGENT_FILE_ANY_CASE);
    assert.doesNotMatch('x.agent.test.yaml', AGENT_FILE_ANY_CASE);
  });

  it('walks depth first in name order, skipping dependency, version control and build folders', async () => {
    assert.deepEqual(names(await findFilesUnder(dir.path, AGENT_FILE)), ['a/one.agent.yaml', 'b/two.agent.yml', 'zero.agent.yaml']);
    assert.deepEqual(names(await findFilesUnder(dir.path, TEST_FILE)), ['a/one.agent.test.yaml']);
  });

  it('stops once it found as many files as asked for', async () => {
    assert.deepEqual(names(await findFilesUnder(dir.path, AGENT_FILE, undefined, 2)), ['a/one.agent.yaml', 'b/two.agent.yml']);
  });

  it('finds nothing in a folder that is gone, and reports other errors', async () => {
    assert.deepEqual(await findFilesUnder(join(dir.path, 'removed'), AGENT_FILE), []);
    await assert.rejects(findFilesUnder(join(dir.path, 'notes.yaml'), AGENT_FILE), { code: 'ENOTDIR' });
  });

  it('is the same set of agent files for the command line and the local server', async () => {
    // validate also checks the test files it finds; the agent files among what it checked are the served ones.
    const { stdout } = await runCliCaptured(['validate', '--format', 'json', '.'], { cwd: dir.path, env: {} });
    const checked = (JSON.parse(stdout) as { files: { file: string }[] }).files.map((entry) => entry.file.split(sep).join('/'));
    assert.deepEqual(checked, ['a/one.agent.test.yaml', 'a/one.agent.yaml', 'b/two.agent.yml', 'zero.agent.yaml']);
    const served = await AgentDirectory.open(dir.path, { watch: false });
    try {
      assert.deepEqual(
        served.list().map((agent) => agent.file),
        checked.filter((file) => AGENT_FILE.test(file)),
      );
    } finally {
      await served.close();
    }
  });
});
