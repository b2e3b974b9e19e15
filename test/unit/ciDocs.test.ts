// docs/ci.md's GitHub Actions workflow and GitLab CI job, read as their runners read them: both
// YAML blocks parse, have the shape each runner needs, and every `agent-workflows` command in them
// names a verb and options the command line has (its own --help lists them), so the page cannot
// drift from the command line.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { split } from 'shlex';
import { parse } from 'yaml';
import { runCliCaptured } from '../support/cli';
import { repoRoot } from '../support/paths';

const page = readFileSync(join(repoRoot, 'docs', 'ci.md'), 'utf8');
const yamlBlocks = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);

interface Step {
  readonly run?: string;
  readonly uses?: string;
}

/** The `agent-workflows …` commands of a shell script: each as its words, up to a shell operator. */
function commandsIn(script: string): string[][] {
  const commands: string[][] = [];
  // A folded (`>`) step is one line already; a literal (`|`) step a line a command.
  for (const line of script.split('\n')) {
    const at = line.indexOf('agent-workflows ');
    if (at < 0) continue;
    const words = split(line.slice(at));
    const end = words.findIndex((word) => ['||', '&&', ')', ';', '|'].includes(word) || word.endsWith(')'));
    commands.push(end < 0 ? words : words.slice(0, end));
  }
  return commands;
}

async function helpOf(verb: string): Promise<string> {
  const { stdout, stderr } = await runCliCaptured([verb, '--help'], { cwd: repoRoot, env: {} });
  return stdout + stderr;
}

/** Each option a command gives is one its verb's --help lists; returns what was checked. */
async function checkCommand(words: readonly string[]): Promise<string> {
  assert.equal(words[0], 'agent-workflows');
  const verb = words[1]!;
  const help = await helpOf(verb);
  assert.doesNotMatch(help, /unknown command/, `agent-workflows ${verb} is a verb of the command line`);
  for (const word of words.slice(2).filter((w) => w.startsWith('-'))) {
    const option = word.split('=')[0]!;
    assert.match(help, new RegExp(`(^|[\\s,])${option}\\b`), `agent-workflows ${verb} has the option ${option}`);
  }
  for (const reporter of words.flatMap((word, i) => (words[i - 1] === '--reporter' ? [word.split(':')[0]!] : [])))
    assert.match(help, new RegExp(`\\b${reporter}\\b`), `agent-workflows ${verb} has the reporter ${reporter}`);
  return `${verb} ${words.filter((w) => w.startsWith('-')).join(' ')}`;
}

describe('docs/ci.md', () => {
  it('has a GitHub Actions workflow and a GitLab CI job', () => {
    assert.equal(yamlBlocks.length, 2);
  });

  it('the GitHub Actions workflow runs on pull requests and validates, tests and compares with known options', async function () {
    this.timeout(20_000);
    const workflow = parse(yamlBlocks[0]!) as { on: Record<string, unknown>; jobs: Record<string, { 'runs-on': string; steps: Step[] }> };
    assert.ok('pull_request' in workflow.on, 'runs on a pull request');
    const [job] = Object.values(workflow.jobs);
    assert.ok(job && typeof job['runs-on'] === 'string' && Array.isArray(job.steps));
    for (const step of job.steps) assert.ok((step.run === undefined) !== (step.uses === undefined), 'a step either runs or uses');
    const commands = job.steps.flatMap((step) => (step.run ? commandsIn(step.run) : []));
    const checked = await Promise.all(commands.map(checkCommand));
    assert.deepEqual(
      checked.map((line) => line.split(' ')[0]),
      ['validate', 'test', 'test', 'compare'],
    );
    // The reports the comparison and the artifact name are the ones the test step writes.
    const tested = commands[2]!;
    for (const file of ['agent-tests.xml', 'ctrf-report.json', 'agent-tests.json'])
      assert.ok(tested.some((word) => word.endsWith(`:${file}`)) && yamlBlocks[0]!.includes(`            ${file}`), file);
    assert.ok(commands[3]!.includes('agent-tests.json'));
  });

  it('the GitLab CI job runs on merge requests and keeps the JUnit report it writes', async function () {
    this.timeout(20_000);
    const jobs = parse(yamlBlocks[1]!) as Record<
      string,
      { script: string[]; rules: { if: string }[]; artifacts: { when: string; reports: { junit: string }; paths: string[] } }
    >;
    const job = jobs.agents!;
    assert.match(job.rules[0]!.if, /merge_request_event/);
    const commands = job.script.flatMap(commandsIn);
    const checked = await Promise.all(commands.map(checkCommand));
    assert.deepEqual(
      checked.map((line) => line.split(' ')[0]),
      ['validate', 'test', 'test', 'compare'],
    );
    assert.ok(commands[2]!.includes(`junit:${job.artifacts.reports.junit}`), 'the JUnit report kept is the one written');
    assert.equal(job.artifacts.when, 'always');
  });
});
