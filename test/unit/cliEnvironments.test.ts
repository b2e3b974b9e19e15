// Environments on the command line, in-process against two service stand-ins on 127.0.0.1, each
// with its own key: --env, AGENT_WORKFLOWS_ENV and the file's default pick the service; an agent's
// override reaches the URL; a protected environment needs --yes (or a yes); a bad or unknown name
// and a broken file are usage errors; `envs` lists them; `status` and `test --deployed` use them.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCliCaptured } from '../support/cli';
import { startFakeService } from '../support/fakeAgentService';
import type { FakeService } from '../support/fakeAgentService';
import { json } from '../support/httpServer';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const DEV_KEY = 'dev-key-0123456789';
const STAGING_KEY = 'staging-key-0123456789';

const AGENT = `version: 1
name: Triage
nodes:
  say: { type: template, text: hi }
outputs:
  said: { from: "{{ nodes.say.body }}" }
deployment:
  agent: triage
  environments:
    staging: { agent: triage-v2 }
`;

describe('agent-workflows with environments', () => {
  let dev: FakeService;
  let staging: FakeService;
  let dir: TempDir;

  const environmentsFile = (): string => `default: dev
environments:
  dev:
    baseUrl: ${dev.url}
    account: dev-team
  staging:
    baseUrl: ${staging.url}
    account: stage-team
    statusPath: '{baseUrl}/v2/{account}/runs/{executionId}/status'
  prod:
    baseUrl: ${staging.url}
    account: prod-team
    protected: true
`;

  beforeEach(async () => {
    dev = await startFakeService(DEV_KEY);
    staging = await startFakeService(STAGING_KEY);
    dir = makeTempDir();
    dir.write('agent-workflows.yaml', environmentsFile());
    dir.write('agents/triage.agent.yaml', AGENT);
  });

  afterEach(async () => {
    await dev.close();
    await staging.close();
    dir.remove();
  });

  const cli = (args: string[], env: Record<string, string>, confirm?: (question: string) => Promise<boolean>, cwd = dir.path) =>
    runCliCaptured(args, { cwd, env, ...(confirm ? { confirm } : {}) }, [DEV_KEY, STAGING_KEY]);

  const run = (extra: string[], env: Record<string, string>) => cli(['run', 'agents/triage.agent.yaml', '--json', ...extra], env);

  it('runs in the environment --env names, each with its own key, and the override reaches the URL', async () => {
    const inDev = await run(['--env', 'dev'], { AGENT_WORKFLOWS_API_KEY: DEV_KEY });
    assert.equal(inDev.code, 0, inDev.stderr);
    assert.deepEqual(JSON.parse(inDev.stdout).outputs, { ok: true });
    assert.match(inDev.stderr, /started Triage in dev as execution/);
    assert.deepEqual(
      dev.starts.map((start) => start.path),
      ['/api/dev-team/agent/triage/execute'],
    );

    const inStaging = await run(['--env', 'staging'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(inStaging.code, 0, inStaging.stderr);
    assert.deepEqual(
      staging.starts.map((start) => start.path),
      ['/api/stage-team/agent/triage-v2/execute'],
    );
    // The environment's status path, not the default one.
    assert.match(staging.statusRequests[0]!, /^\/v2\/stage-team\/runs\/[0-9a-f-]+\/status$/);
    assert.equal(dev.starts.length, 1, 'nothing more went to dev');

    // The dev key is refused by the staging service: keys are not shared between environments.
    const wrongKey = await run(['--env', 'staging'], { AGENT_WORKFLOWS_API_KEY: DEV_KEY });
    assert.equal(wrongKey.code, 3, wrongKey.stderr);
  });

  it('takes --env over AGENT_WORKFLOWS_ENV over the default; explicit --base-url and --account beat them all', async () => {
    const byDefault = await run([], { AGENT_WORKFLOWS_API_KEY: DEV_KEY });
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.equal(dev.starts.length, 1);

    const byVariable = await run([], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY, AGENT_WORKFLOWS_ENV: 'staging' });
    assert.equal(byVariable.code, 0, byVariable.stderr);
    assert.equal(staging.starts.length, 1);

    const byFlag = await run(['--env', 'dev'], { AGENT_WORKFLOWS_API_KEY: DEV_KEY, AGENT_WORKFLOWS_ENV: 'staging' });
    assert.equal(byFlag.code, 0, byFlag.stderr);
    assert.equal(dev.starts.length, 2);

    const explicit = await run(['--env', 'staging', '--base-url', dev.url, '--account', 'mine', '--agent', 'other'], {
      AGENT_WORKFLOWS_API_KEY: DEV_KEY,
    });
    assert.equal(explicit.code, 0, explicit.stderr);
    assert.equal(dev.starts[2]!.path, '/api/mine/agent/other/execute');
    assert.equal(staging.starts.length, 1);

    const badVariable = await run([], { AGENT_WORKFLOWS_API_KEY: DEV_KEY, AGENT_WORKFLOWS_ENV: 'stagin' });
    assert.equal(badVariable.code, 2);
    assert.match(
      badVariable.stderr,
      /Unknown environment "stagin": known environments are dev, staging, prod \(in agent-workflows\.yaml\)\. \(named by AGENT_WORKFLOWS_ENV\)/,
    );
  });

  it('never runs in a protected environment without --yes or a yes, and says which one', async () => {
    const refused = await run(['--env', 'prod'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Environment "prod" \(http:\/\/127\.0\.0\.1:\d+, account prod-team\) is protected: add --yes to confirm/);
    assert.equal(staging.starts.length, 0, 'nothing was started');

    const questions: string[] = [];
    const answeredNo = await cli(
      ['run', 'agents/triage.agent.yaml', '--env', 'prod'],
      { AGENT_WORKFLOWS_API_KEY: STAGING_KEY },
      async (question) => {
        questions.push(question);
        return false;
      },
    );
    assert.equal(answeredNo.code, 2);
    assert.match(
      questions[0]!,
      /^Environment "prod" \(http:\/\/127\.0\.0\.1:\d+, account prod-team\) is protected\. Run against it\? \[y\/N\] $/,
    );
    assert.match(answeredNo.stderr, /Not run: environment "prod" is protected and the run was not confirmed/);
    assert.equal(staging.starts.length, 0);

    const answeredYes = await cli(
      ['run', 'agents/triage.agent.yaml', '--env', 'prod'],
      { AGENT_WORKFLOWS_API_KEY: STAGING_KEY },
      async () => true,
    );
    assert.equal(answeredYes.code, 0, answeredYes.stderr);
    const withYes = await run(['--env', 'prod', '--yes'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(withYes.code, 0, withYes.stderr);
    assert.deepEqual(
      staging.starts.map((start) => start.path),
      ['/api/prod-team/agent/triage/execute', '/api/prod-team/agent/triage/execute'],
    );
  });

  it("never sends a protected environment's key where an agent file moved it, unless the environments file allows it", async () => {
    // The agent file's override sends prod (declared on the staging service) to the dev service.
    dir.write(
      'agents/moved.agent.yaml',
      `${AGENT.replace('staging: { agent: triage-v2 }', `prod: { baseUrl: "${dev.url}", account: elsewhere }`)}`,
    );
    dir.write('agents/moved.agent.test.yaml', 'cases:\n  one:\n    expect: { outputs: { said: hi } }\n');
    dir.write('rows.jsonl', '{}\n');
    const prodKey = { AGENT_WORKFLOWS_API_KEY: STAGING_KEY };
    const refusal =
      /Environment "prod" is protected in agent-workflows\.yaml, and the agent file sets its baseUrl \(http:\/\/127\.0\.0\.1:\d+\) and account \(elsewhere\) in deployment\.environments\.prod: .*add "allowAgentOverride: true" to prod in agent-workflows\.yaml/;
    for (const args of [
      ['run', 'agents/moved.agent.yaml', '--env', 'prod', '--yes'],
      ['batch', 'agents/moved.agent.yaml', '--data', 'rows.jsonl', '--env', 'prod', '--yes'],
      ['test', 'agents/moved.agent.test.yaml', '--deployed', '--env', 'prod', '--yes'],
    ]) {
      const refused = await cli(args, prodKey);
      assert.equal(refused.code, 2, `${args[0]}: ${refused.stdout}${refused.stderr}`);
      assert.match(refused.stderr, refusal, args[0]);
    }
    const questions: string[] = [];
    const asked = await cli(['run', 'agents/moved.agent.yaml', '--env', 'prod'], prodKey, async (question) => {
      questions.push(question);
      return true;
    });
    assert.equal(asked.code, 2);
    assert.equal(questions.length, 0, 'nothing is asked about a run that is refused');
    assert.equal(dev.server.requests.length + staging.server.requests.length, 0, 'no request reached either service');

    const validated = await cli(['validate', 'agents/moved.agent.yaml'], {});
    assert.equal(validated.code, 1, validated.stdout + validated.stderr);
    assert.match(
      validated.stdout,
      /^agents\/moved\.agent\.yaml:10:\d+: error protected-environment-override Environment "prod" is protected in agent-workflows\.yaml: .*baseUrl/m,
    );
    assert.match(validated.stdout, /^agents\/moved\.agent\.yaml:10:\d+: error protected-environment-override .*account/m);

    // Allowed for prod by the environments file: the run goes where the agent file says, and the
    // confirmation names that origin and account, not the declared ones.
    dir.write('agent-workflows.yaml', environmentsFile().replace('protected: true', 'protected: true\n    allowAgentOverride: true'));
    const allowed = await cli(['validate', 'agents/moved.agent.yaml'], {});
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
    const moved = await cli(['run', 'agents/moved.agent.yaml', '--env', 'prod'], { AGENT_WORKFLOWS_API_KEY: DEV_KEY }, async (question) => {
      questions.push(question);
      return true;
    });
    assert.equal(moved.code, 0, moved.stderr);
    assert.deepEqual(questions, [`Environment "prod" (${dev.url}, account elsewhere) is protected. Run against it? [y/N] `]);
    assert.deepEqual(
      dev.starts.map((start) => start.path),
      ['/api/elsewhere/agent/triage/execute'],
    );
    const unconfirmed = await cli(['run', 'agents/moved.agent.yaml', '--env', 'prod'], { AGENT_WORKFLOWS_API_KEY: DEV_KEY });
    assert.equal(unconfirmed.code, 2);
    assert.match(
      unconfirmed.stderr,
      new RegExp(`Environment "prod" \\(${dev.url.replace(/[.]/g, '\\.')}, account elsewhere\\) is protected: add --yes`),
    );

    // --base-url and --account given with a protected environment: the question names them.
    const flagged = await cli(
      ['run', 'agents/triage.agent.yaml', '--env', 'prod', '--base-url', dev.url, '--account', 'mine'],
      { AGENT_WORKFLOWS_API_KEY: DEV_KEY },
      async (question) => {
        questions.push(question);
        return true;
      },
    );
    assert.equal(flagged.code, 0, flagged.stderr);
    assert.equal(questions[1], `Environment "prod" (${dev.url}, account mine) is protected. Run against it? [y/N] `);
    assert.equal(staging.starts.length, 0);
  });

  it('validate checks overrides against the environments file run would use, and lists that file when it has problems', async () => {
    dir.write('agents/typo.agent.yaml', AGENT.replace('staging: {', 'stagin: {'));
    const checked = await cli(['validate', 'agents/typo.agent.yaml'], {});
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /^agents\/typo\.agent\.yaml:10:5: warning unknown-environment .*Did you mean "staging"\?/m);
    assert.match(checked.stderr, /^1 file checked: 0 errors, 1 warning/m);

    dir.write('agent-workflows.yaml', 'environments:\n  dev:\n    baseUrl: http://127.0.0.1:1\n');
    const broken = await cli(['validate', 'agents/typo.agent.yaml', '--format', 'json'], {});
    assert.equal(broken.code, 1);
    const files = (JSON.parse(broken.stdout) as { files: { file: string; problems: { code: string }[] }[] }).files;
    assert.deepEqual(
      files.map((file) => [file.file, file.problems.map((problem) => problem.code)]),
      [
        ['agent-workflows.yaml', ['missing-property']],
        [join('agents', 'typo.agent.yaml'), []],
      ],
    );
  });

  it('looks for the environments file up to the repository root or the current folder, and says when it moves a run', async () => {
    // A shared folder whose environments file would send every agent below it to "hijack" (staging).
    const shared = makeTempDir();
    try {
      shared.write(
        'agent-workflows.yaml',
        `default: hijack\nenvironments:\n  hijack:\n    baseUrl: ${staging.url}\n    account: dev-team\n`,
      );
      const own = AGENT.replace('deployment:\n', `deployment:\n  baseUrl: ${dev.url}\n  account: dev-team\n`);
      shared.write('me/proj/own.agent.yaml', own);
      const key = { AGENT_WORKFLOWS_API_KEY: DEV_KEY };

      // From the agent's folder (no repository): the search stops there, and the agent's own deployment is used.
      const mine = await cli(['run', 'own.agent.yaml', '--json'], key, undefined, join(shared.path, 'me', 'proj'));
      assert.equal(mine.code, 0, mine.stderr);
      assert.doesNotMatch(mine.stderr, /hijack/);
      // From another folder, outside any repository: only the agent file's own folder.
      const elsewhere = await cli(['run', join(shared.path, 'me', 'proj', 'own.agent.yaml'), '--json'], key);
      assert.equal(elsewhere.code, 0, elsewhere.stderr);
      assert.deepEqual(
        dev.starts.map((start) => start.path),
        ['/api/dev-team/agent/triage/execute', '/api/dev-team/agent/triage/execute'],
      );
      const notFound = await cli(['run', join(shared.path, 'me', 'proj', 'own.agent.yaml'), '--env', 'hijack'], key);
      assert.equal(notFound.code, 2);
      assert.match(
        notFound.stderr,
        /looked for agent-workflows\.yaml in \/.*\/me\/proj only \(it is outside the current folder and any repository\)/,
      );
      assert.equal(staging.server.requests.length, 0, 'the shared file sent nothing anywhere');

      // In a repository: from a subfolder, up to its root (past the current folder), and the run says
      // that the environment replaces the agent file's own base URL, naming both origins and the file.
      shared.write('me/proj/.git', 'gitdir: /elsewhere/.git/worktrees/proj\n');
      shared.write(
        'me/proj/agent-workflows.yaml',
        `default: team\nenvironments:\n  team:\n    baseUrl: ${staging.url}\n    account: stage-team\n`,
      );
      shared.write('me/proj/agents/own.agent.yaml', own);
      const moved = await cli(
        ['run', 'own.agent.yaml', '--json'],
        { AGENT_WORKFLOWS_API_KEY: STAGING_KEY },
        undefined,
        join(shared.path, 'me', 'proj', 'agents'),
      );
      assert.equal(moved.code, 0, moved.stderr);
      assert.match(
        moved.stderr,
        new RegExp(
          `^agent-workflows: environment "team" of ${join(shared.path, 'me', 'proj', 'agent-workflows.yaml').replace(/[.]/g, '\\.')} sends this run to ${staging.url.replace(/[.]/g, '\\.')}, not to the agent file's deployment\\.baseUrl ${dev.url.replace(/[.]/g, '\\.')}$`,
          'm',
        ),
      );
      assert.deepEqual(
        staging.starts.map((start) => start.path),
        ['/api/stage-team/agent/triage/execute'],
      );
      // The same for a batch and deployed test cases.
      shared.write('me/proj/agents/rows.jsonl', '{}\n');
      shared.write('me/proj/agents/own.agent.test.yaml', 'cases:\n  one:\n    expect: { outputs: { said: hi } }\n');
      staging.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'finished', outputs: { said: 'hi' } });
      for (const args of [
        ['batch', 'own.agent.yaml', '--data', 'rows.jsonl'],
        ['test', '.', '--deployed'],
      ]) {
        const ran = await cli(args, { AGENT_WORKFLOWS_API_KEY: STAGING_KEY }, undefined, join(shared.path, 'me', 'proj', 'agents'));
        assert.equal(ran.code, 0, `${args[0]}: ${ran.stdout}${ran.stderr}`);
        assert.match(ran.stderr, /environment "team" of .* sends this run to .*, not to the agent file's deployment\.baseUrl/, args[0]);
      }
      assert.equal(staging.starts.length, 3);
    } finally {
      shared.remove();
    }
  });

  it('reads the environments file --envs-file names instead of the one above the agent', async () => {
    dir.write('configs/envs.yaml', `environments:\n  qa:\n    baseUrl: ${staging.url}\n    account: qa-team\n`);
    const result = await run(['--envs-file', 'configs/envs.yaml', '--env', 'qa'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      staging.starts.map((start) => start.path),
      ['/api/qa-team/agent/triage/execute'],
    );
    const notThere = await run(['--envs-file', 'configs/envs.yaml', '--env', 'dev'], { AGENT_WORKFLOWS_API_KEY: DEV_KEY });
    assert.equal(notThere.code, 2);
    assert.match(notThere.stderr, /Unknown environment "dev": known environments are qa \(in configs\/envs\.yaml\)\./);
  });

  it('refuses an unknown environment, listing the known ones, and a name with no environments file', async () => {
    const unknown = await run(['--env', 'stagin'], { AGENT_WORKFLOWS_API_KEY: DEV_KEY });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown environment "stagin": known environments are dev, staging, prod \(in agent-workflows\.yaml\)\./);

    const elsewhere = makeTempDir();
    try {
      elsewhere.write('triage.agent.yaml', AGENT);
      const none = await cli(['run', 'triage.agent.yaml', '--env', 'dev'], { AGENT_WORKFLOWS_API_KEY: DEV_KEY }, undefined, elsewhere.path);
      assert.equal(none.code, 2);
      assert.match(
        none.stderr,
        /Environment "dev" is asked for, but there is no environments file: none was found \(looked for agent-workflows\.yaml in \. \(the current folder\)\)/,
      );
    } finally {
      elsewhere.remove();
    }
    assert.equal(dev.starts.length + staging.starts.length, 0);
  });

  it('refuses to run with a broken environments file, printing its problems with line and column', async () => {
    dir.write('agent-workflows.yaml', `default: dev\nenvironments:\n  dev:\n    baseUrl: ${dev.url}\n    acount: dev-team\n`);
    for (const args of [['run', 'agents/triage.agent.yaml'], ['envs'], ['status', '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01']]) {
      const broken = await cli(args, { AGENT_WORKFLOWS_API_KEY: DEV_KEY });
      assert.equal(broken.code, 2, args.join(' '));
      assert.match(broken.stderr, /agent-workflows\.yaml:3:3: error missing-property Environment "dev" is missing "account"/);
      assert.match(
        broken.stderr,
        /agent-workflows\.yaml:5:5: error unknown-property Environment "dev" has no key "acount"\. Did you mean "account"\?/,
      );
      assert.match(broken.stderr, /The environments file agent-workflows\.yaml has 2 errors/);
    }
    assert.equal(dev.starts.length, 0);
  });

  it('reads a status in an environment without --base-url and --account, with its status path', async () => {
    staging.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'finished', outputs: { done: 1 } });
    const id = '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01';
    const status = await cli(['status', id, '--env', 'staging', '--json'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(JSON.parse(status.stdout), { executionId: id, status: 'finished', outputs: { done: 1 } });
    assert.deepEqual(staging.statusRequests, [`/v2/stage-team/runs/${id}/status`]);
    // A protected environment's status is only read: no confirmation.
    const prod = await cli(['status', id, '--env', 'prod'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(prod.code, 0, prod.stderr);
    assert.equal(staging.statusRequests[1], `/api/prod-team/agent/${id}/status`);
  });

  it('lists the environments, as text and JSON, and says when there are none', async () => {
    const text = await cli(['envs'], {});
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.split('\n');
    assert.equal(lines[0], 'agent-workflows.yaml:');
    assert.match(lines[1]!, /^\* dev {6}http:\/\/127\.0\.0\.1:\d+ {2}account dev-team {4}\(default\)$/);
    assert.match(lines[2]!, /^ {2}staging {2}http:\/\/127\.0\.0\.1:\d+ {2}account stage-team$/);
    assert.match(lines[3]!, /^ {2}prod {5}http:\/\/127\.0\.0\.1:\d+ {2}account prod-team {3}\(protected\)$/);

    // Above the current folder, in the same repository.
    dir.write('.git/HEAD', 'ref: refs/heads/main\n');
    const listed = await cli(['envs', '--json'], {}, undefined, join(dir.path, 'agents'));
    const parsed = JSON.parse(listed.stdout) as {
      file: string;
      default: string;
      environments: { name: string; origin: string; protected: boolean; default: boolean }[];
    };
    assert.equal(parsed.file, join(dir.path, 'agent-workflows.yaml'), 'a file above the current folder is named by its full path');
    assert.equal(parsed.default, 'dev');
    assert.deepEqual(
      parsed.environments.map((environment) => [environment.name, environment.origin, environment.protected, environment.default]),
      [
        ['dev', dev.url, false, true],
        ['staging', staging.url, false, false],
        ['prod', staging.url, true, false],
      ],
    );

    const empty = makeTempDir();
    try {
      const none = await cli(['envs'], {}, undefined, empty.path);
      assert.equal(none.code, 0);
      assert.equal(none.stdout, '');
      assert.match(none.stderr, /No environments: no agent-workflows\.yaml in \. \(the current folder\)\. Create one/);
      const missing = await cli(['envs', '--envs-file', 'nowhere.yaml'], {}, undefined, empty.path);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /The environments file nowhere\.yaml: no such file or directory/);
    } finally {
      empty.remove();
    }
  });

  it('sends test --deployed cases to the environment, with the override, and asks for --yes in a protected one', async () => {
    dir.write('agents/triage.agent.test.yaml', 'cases:\n  one:\n    expect: { outputs: { said: hi } }\n');
    staging.statusAnswer = (_n, _id, response) => json(response, 200, { status: 'finished', outputs: { said: 'hi' } });
    const tested = await cli(['test', 'agents', '--deployed', '--env', 'staging'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(tested.code, 0, tested.stdout + tested.stderr);
    assert.deepEqual(
      staging.starts.map((start) => start.path),
      ['/api/stage-team/agent/triage-v2/execute'],
    );
    const refused = await cli(['test', 'agents', '--deployed', '--env', 'prod'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Environment "prod" .* is protected: add --yes/);
    assert.equal(staging.starts.length, 1);
    // A local run of cases that are not deployed uses no environment, and says so.
    const local = await cli(['test', 'agents', '--env', 'prod'], {});
    assert.match(local.stderr, /note: --env went unused: no case ran on the deployment/);
    assert.equal(staging.starts.length, 1);
  });

  it('runs a batch in the environment --env names; a protected one needs --yes before any row is sent', async () => {
    dir.write('rows.jsonl', '{}\n{}\n');
    const batch = (extra: string[], env: Record<string, string>) =>
      cli(['batch', 'agents/triage.agent.yaml', '--data', 'rows.jsonl', ...extra], env);
    const inStaging = await batch(['--env', 'staging'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(inStaging.code, 0, inStaging.stderr);
    assert.deepEqual(
      staging.starts.map((start) => start.path),
      ['/api/stage-team/agent/triage-v2/execute', '/api/stage-team/agent/triage-v2/execute'],
    );
    const refused = await batch(['--env', 'prod'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Environment "prod" .* is protected: add --yes/);
    assert.equal(staging.starts.length, 2, 'no row of the refused batch was sent');
    const confirmed = await batch(['--env', 'prod', '--yes'], { AGENT_WORKFLOWS_API_KEY: STAGING_KEY });
    assert.equal(confirmed.code, 0, confirmed.stderr);
    assert.deepEqual(
      staging.starts.slice(2).map((start) => start.path),
      ['/api/prod-team/agent/triage/execute', '/api/prod-team/agent/triage/execute'],
    );
    const local = await batch(['--local', '--env', 'dev'], {});
    assert.equal(local.code, 2);
    assert.match(local.stderr, /--env, --envs-file and --rate do not apply/);
    const localYes = await batch(['--local', '--yes'], {});
    assert.equal(localYes.code, 2, 'a protected environment is not confirmed for a local batch');
    assert.match(localYes.stderr, /--local runs the rows on this machine: .*--yes, --env, --envs-file and --rate do not apply/);
  });
});
