// The environments file (agent-workflows.yaml): its problems with their places, the declarations it
// gives, and how an environment is chosen and turns an agent's deployment into a target; the file is
// found on disk by walking up from a folder; completion offers its keys and names, hover explains them.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { environmentsCompletions } from '../../src/core/environments/environmentsCompletion';
import { environmentsHover } from '../../src/core/environments/environmentsHover';
import { environmentChecks, ENVIRONMENTS_FILE_NAME, parseEnvironmentsFile } from '../../src/core/environments/environmentsFile';
import type { EnvironmentsFile } from '../../src/core/environments/environmentsFile';
import {
  environmentDeployment,
  findEnvironmentsFile,
  replacedBaseUrl,
  selectEnvironment,
} from '../../src/core/environments/resolveEnvironment';
import { MAX_ENVIRONMENTS, MAX_ENVIRONMENTS_FILE_BYTES } from '../../src/core/limits';
import environmentsSchema from '../../schemas/agent-workflows.schema.json';
import { ServiceError } from '../../src/core/service/serviceError';
import { validateAgentText } from '../../src/core/validation/validate';
import { makeTempDir } from '../support/tempDir';

const GOOD = `default: dev
environments:
  dev:
    baseUrl: http://127.0.0.1:8787
    account: local
  prod:
    baseUrl: https://agents.example.com
    account: acme
    statusPath: '{baseUrl}/api/{account}/agent/{executionId}/status'
    protected: true
`;

function problemsOf(text: string): string[] {
  return parseEnvironmentsFile(text).problems.map((p) => `${p.range.line}:${p.range.column} ${p.severity} ${p.code} ${p.message}`);
}

function fileOf(text: string): EnvironmentsFile {
  const result = parseEnvironmentsFile(text);
  assert.deepEqual(result.problems, []);
  assert.ok(result.file);
  return result.file;
}

describe('environments file', () => {
  it('reads each environment, its default and where its name is', () => {
    const file = fileOf(GOOD);
    assert.equal(file.defaultName, 'dev');
    assert.deepEqual([...file.environments.keys()], ['dev', 'prod']);
    assert.deepEqual(file.environments.get('dev'), {
      name: 'dev',
      baseUrl: 'http://127.0.0.1:8787',
      account: 'local',
      protected: false,
      allowAgentOverride: false,
      offset: GOOD.indexOf('dev:'),
    });
    const prod = file.environments.get('prod')!;
    assert.equal(prod.protected, true);
    assert.equal(prod.statusPath, '{baseUrl}/api/{account}/agent/{executionId}/status');
  });

  it('reports unknown keys, missing fields, bad names and wrong types, each at its place, and gives no file', () => {
    const text = `environments:
  dev:
    baseUrl: http://127.0.0.1:8787
    acount: local
  9prod:
    baseUrl: https://agents.example.com
    account: acme
  stage:
    baseUrl: https://stage.example.com
    account: acme
    protected: "yes"
colour: blue
`;
    const result = parseEnvironmentsFile(text);
    assert.equal(result.file, undefined);
    const problems = problemsOf(text);
    assert.ok(
      problems.some((p) => /^4:5 error unknown-property Environment "dev" has no key "acount"\. Did you mean "account"\?/.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => /^2:3 error missing-property Environment "dev" is missing "account"/.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) =>
        /^5:3 error invalid-name Environment name "9prod" may contain only letters, digits, "_" and "-", and must start with a letter; e\.g\. "env9prod"/.test(
          p,
        ),
      ),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => /^11:16 error wrong-type The protected of environment "stage" must be a boolean/.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => /^12:1 error unknown-property The environments file has no key "colour"/.test(p)),
      problems.join('\n'),
    );
  });

  it('refuses a base URL that is not one, and warns about plain http to another machine without refusing the file', () => {
    const bad =
      'environments:\n  dev:\n    baseUrl: ftp://x.example\n    account: a\n  qa:\n    baseUrl: https://qa.example.com?x=1\n    account: a\n';
    const problems = problemsOf(bad);
    assert.ok(
      problems.some((p) => /^3:14 error invalid-url The baseUrl of environment "dev" must start with https:\/\//.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => /^6:14 error invalid-url Environment "qa": The base URL must not contain a user name, password, query/.test(p)),
      problems.join('\n'),
    );
    assert.equal(parseEnvironmentsFile(bad).file, undefined);

    const unparsable = problemsOf('environments:\n  dev:\n    baseUrl: "https://user:s3cret@exa mple.com"\n    account: a\n');
    assert.deepEqual(unparsable, [
      '3:14 error invalid-url Environment "dev": the baseUrl is not a valid URL. Check the host and port, e.g. "https://agents.example.com".',
    ]);

    const insecure = 'environments:\n  lab:\n    baseUrl: http://lab.internal:8080\n    account: a\n';
    const result = parseEnvironmentsFile(insecure);
    assert.deepEqual(
      result.problems.map((p) => `${p.range.line}:${p.range.column} ${p.severity} ${p.code}`),
      ['3:14 warning insecure-base-url'],
    );
    assert.equal(result.file?.environments.get('lab')?.baseUrl, 'http://lab.internal:8080');
  });

  it('refuses a status path that leaves the base URL or has no {executionId}', () => {
    const away = `environments:\n  prod:\n    baseUrl: https://agents.example.com\n    account: a\n    statusPath: '{baseUrl}@evil.example/{executionId}'\n`;
    assert.ok(
      problemsOf(away).some((p) =>
        /^5:17 error invalid-value Environment "prod": The status path template .* leads away from https:\/\/agents\.example\.com/.test(p),
      ),
    );
    const noId = `environments:\n  prod:\n    baseUrl: https://agents.example.com\n    account: a\n    statusPath: /status\n`;
    assert.ok(problemsOf(noId).some((p) => /error invalid-value .*has no \{executionId\}/.test(p)));
  });

  it('refuses a status path with a query or fragment, without quoting it (a token would be there)', () => {
    for (const statusPath of ['/x/{executionId}?token=sk-STATUSSECRET-1', '/x/{executionId}#sk-STATUSSECRET-1']) {
      const text = `environments:\n  prod:\n    baseUrl: https://agents.example.com\n    account: a\n    statusPath: '${statusPath}'\n`;
      const problems = problemsOf(text);
      assert.deepEqual(problems, [
        '5:17 error invalid-value Environment "prod": The status path template "/x/{executionId}…" has a query or fragment: it must be a path only, like the default {baseUrl}/api/{account}/agent/{executionId}/status; the API key is sent in the Authorization header.',
      ]);
    }
  });

  it('reports a default that names no environment, with the closest name, and a name given twice', () => {
    const problems = problemsOf('default: prd\nenvironments:\n  prod: { baseUrl: https://a.example, account: a }\n');
    assert.deepEqual(problems, [
      '1:10 error unknown-default-environment default names environment "prd", which this file does not declare. Did you mean "prod"?',
    ]);
    const twice = problemsOf(
      'environments:\n  dev: { baseUrl: https://a.example, account: a }\n  dev: { baseUrl: https://b.example, account: b }\n',
    );
    assert.ok(
      twice.some((p) => /^3:3 error duplicate-key/.test(p)),
      twice.join('\n'),
    );
  });

  it('says what an empty file, a list, broken YAML and a file over the limit are, in words about environments', () => {
    assert.match(problemsOf('')[0]!, /^1:1 error empty-file The file is empty\. Add "environments:" with one entry per deployment/);
    assert.match(problemsOf(`environments: ${'['.repeat(300)}\n`).join('\n'), /an environments file nests lists and mappings at most/);
    assert.match(problemsOf('environments: {}\n---\nx: 1\n').join('\n'), /An environments file holds one YAML document.*what follows\./);
    assert.match(
      problemsOf('- dev\n')[0]!,
      /not-a-mapping The file is a list, but an environments file is a mapping of keys: environments and default\./,
    );
    assert.match(problemsOf('environments: [\n')[0]!, /error yaml-syntax/);
    assert.deepEqual(problemsOf('environments: {}\n'), ['1:15 error invalid-value The environments must have at least 1 entry; add one.']);
    const huge = `environments:\n  dev: { baseUrl: https://a.example, account: a }\n${'#'.repeat(MAX_ENVIRONMENTS_FILE_BYTES)}\n`;
    const result = parseEnvironmentsFile(huge);
    assert.equal(result.file, undefined);
    assert.deepEqual(
      result.problems.map((p) => p.code),
      ['file-too-large'],
    );
    assert.match(result.problems[0]!.message, /environments files are checked up to 256 KB\. It should list a few deployments only\./);
  });

  it('takes up to MAX_ENVIRONMENTS environments, refuses more, and checks them quickly', function () {
    this.timeout(10_000);
    assert.equal(environmentsSchema.properties.environments.maxProperties, MAX_ENVIRONMENTS, 'the schema and limits.ts agree');
    const many = `environments:\n${Array.from({ length: MAX_ENVIRONMENTS }, (_, i) => `  env${i}: { baseUrl: https://e${i}.example.com, account: a${i} }\n`).join('')}`;
    const start = Date.now();
    assert.equal(parseEnvironmentsFile(many).file?.environments.size, MAX_ENVIRONMENTS);
    const tooMany = `${many}  extra: { baseUrl: https://x.example.com, account: x }\n`;
    assert.ok(
      problemsOf(tooMany).some((p) =>
        new RegExp(`error invalid-value The environments may have at most ${MAX_ENVIRONMENTS} entries; remove some\\.`).test(p),
      ),
    );
    assert.ok(Date.now() - start < 2000);
  });
});

describe('choosing an environment', () => {
  const file = (): EnvironmentsFile => fileOf(GOOD);

  it('takes the flag, else the setting, else the default, else none', () => {
    assert.deepEqual(
      ['flag', 'setting', 'default'].map((level) => {
        const requested = level === 'flag' ? { flag: 'prod', setting: 'dev' } : level === 'setting' ? { setting: 'prod' } : {};
        const selected = selectEnvironment(file(), requested);
        return `${selected?.name} ${selected?.source}`;
      }),
      ['prod flag', 'prod setting', 'dev default'],
    );
    assert.equal(selectEnvironment(fileOf('environments:\n  a: { baseUrl: https://a.example, account: a }\n'), {}), undefined);
    assert.equal(selectEnvironment(undefined, { flag: '  ', setting: '' }), undefined);
  });

  it('refuses an unknown name, listing the known ones, and a name when there is no file, saying where it looked', () => {
    assert.throws(
      () => selectEnvironment(file(), { setting: 'staging' }),
      (error: unknown) =>
        error instanceof ServiceError &&
        error.kind === 'config' &&
        error.message === 'Unknown environment "staging": known environments are dev, prod (in agent-workflows.yaml).',
    );
    assert.throws(
      () => selectEnvironment(undefined, { flag: 'prod' }, { where: '/work/project and its parents' }),
      /Environment "prod" is asked for, but there is no environments file: none was found \(looked for \/work\/project and its parents\)/,
    );
  });

  it("makes the deployment: the agent's override, then the environment, then the plain deployment block", () => {
    const agent = validateAgentText(`version: 1
name: Triage
deployment:
  baseUrl: https://plain.example.com
  account: plain
  agent: triage
  environments:
    prod: { agent: triage-v2 }
    dev: { account: dev-team }
`);
    assert.deepEqual(agent.problems, []);
    const model = agent.model!;
    assert.deepEqual(environmentDeployment(model, undefined), { baseUrl: 'https://plain.example.com', account: 'plain', agent: 'triage' });
    assert.deepEqual(environmentDeployment(model, selectEnvironment(file(), { flag: 'prod' })), {
      baseUrl: 'https://agents.example.com',
      account: 'acme',
      agent: 'triage-v2',
      statusPath: '{baseUrl}/api/{account}/agent/{executionId}/status',
    });
    assert.deepEqual(environmentDeployment(model, selectEnvironment(file(), {})), {
      baseUrl: 'http://127.0.0.1:8787',
      account: 'dev-team',
      agent: 'triage',
    });
    const bare = validateAgentText('version: 1\nname: Bare\n').model!;
    assert.deepEqual(environmentDeployment(bare, selectEnvironment(file(), {})), { baseUrl: 'http://127.0.0.1:8787', account: 'local' });
  });

  it("refuses an agent's override of a protected environment's baseUrl or account, unless the environments file allows it", () => {
    const text =
      'version: 1\nname: T\ndeployment:\n  agent: t\n  environments:\n    prod: { baseUrl: "https://elsewhere.example/x", account: other }\n    dev: { baseUrl: "https://mine.example" }\n';
    const model = validateAgentText(text).model!;
    assert.throws(
      () => environmentDeployment(model, selectEnvironment(file(), { flag: 'prod' }, { fileName: 'team/agent-workflows.yaml' })),
      (error: Error) =>
        error.message ===
        'Environment "prod" is protected in team/agent-workflows.yaml, and the agent file sets its baseUrl (https://elsewhere.example) and account (other) in deployment.environments.prod: a protected environment\'s runs and API key go only to the service and account its environments file names. Remove baseUrl and account there, or add "allowAgentOverride: true" to prod in team/agent-workflows.yaml.',
    );
    // Not protected: the override applies as before.
    assert.equal(environmentDeployment(model, selectEnvironment(file(), { flag: 'dev' })).baseUrl, 'https://mine.example');
    // Allowed by the file: the override applies.
    const opened = fileOf(GOOD.replace('protected: true', 'protected: true\n    allowAgentOverride: true'));
    assert.deepEqual(environmentDeployment(model, selectEnvironment(opened, { flag: 'prod' })), {
      baseUrl: 'https://elsewhere.example/x',
      account: 'other',
      agent: 't',
      statusPath: '{baseUrl}/api/{account}/agent/{executionId}/status',
    });
    // The same rule in the agent file's check, at each field, given what the environments file says.
    assert.deepEqual(environmentChecks(file()), { names: ['dev', 'prod'], locked: ['prod'] });
    assert.deepEqual(environmentChecks(opened), { names: ['dev', 'prod'], locked: [] });
    assert.deepEqual(
      validateAgentText(text, { environments: environmentChecks(file()) }).problems.map(
        (p) => `${p.range.line}:${p.range.column} ${p.severity} ${p.code} ${p.message}`,
      ),
      ['baseUrl', 'account'].map(
        (field) =>
          `6:${field === 'baseUrl' ? 22 : 62} error protected-environment-override Environment "prod" is protected in agent-workflows.yaml: an agent file cannot change its ${field}, so that its runs and API key go only to the service and account that file names. Remove ${field} here, or add "allowAgentOverride: true" to prod in agent-workflows.yaml.`,
      ),
    );
    assert.deepEqual(validateAgentText(text, { environments: environmentChecks(opened) }).problems, []);
  });

  it("says when an environment replaces the agent's own base URL with another origin", () => {
    const own = validateAgentText('version: 1\nname: T\ndeployment:\n  baseUrl: https://mine.example/api\n').model!;
    const dev = selectEnvironment(file(), { flag: 'dev' });
    assert.deepEqual(replacedBaseUrl(own, dev), { agentOrigin: 'https://mine.example', environmentOrigin: 'http://127.0.0.1:8787' });
    assert.equal(replacedBaseUrl(own, undefined), undefined, 'no environment');
    assert.equal(replacedBaseUrl(own, dev, 'https://flag.example'), undefined, 'a --base-url flag decides');
    const same = validateAgentText('version: 1\nname: T\ndeployment:\n  baseUrl: http://127.0.0.1:8787/v2\n').model!;
    assert.equal(replacedBaseUrl(same, dev), undefined, 'the same origin');
    const overridden = validateAgentText(
      'version: 1\nname: T\ndeployment:\n  baseUrl: https://mine.example\n  environments:\n    dev: { baseUrl: "https://other.example" }\n',
    ).model!;
    assert.equal(replacedBaseUrl(overridden, dev), undefined, "the agent's own override for the environment");
    assert.equal(replacedBaseUrl(validateAgentText('version: 1\nname: T\n').model!, dev), undefined, 'no base URL of its own');
  });

  it("checks an override's base URL like the deployment's", () => {
    const text =
      'version: 1\nname: T\ndeployment:\n  environments:\n    lab: { baseUrl: "http://lab.internal" }\n    qa: { baseUrl: "https://qa.example?x=1" }\n';
    assert.deepEqual(
      validateAgentText(text).problems.map((p) => `${p.range.line}:${p.range.column} ${p.severity} ${p.code}`),
      ['5:21 warning insecure-base-url', '6:20 error invalid-url'],
    );
  });

  it('warns about an override for an environment the workspace does not declare, only when told the names', () => {
    const text = 'version: 1\nname: T\ndeployment:\n  environments:\n    prd: { agent: x }\n    dev: { agent: y }\n';
    assert.deepEqual(validateAgentText(text).problems, []);
    assert.deepEqual(
      validateAgentText(text, { environments: { names: ['dev', 'prod'], locked: [] } }).problems.map(
        (p) => `${p.range.line}:${p.range.column} ${p.severity} ${p.code} ${p.message}`,
      ),
      [
        '5:5 warning unknown-environment The workspace\'s agent-workflows.yaml declares no environment "prd", so this override is never used. Did you mean "prod"?',
      ],
    );
    const bad = validateAgentText('version: 1\nname: T\ndeployment:\n  environments:\n    prod: { agnet: x, account: "a b" }\n').problems;
    assert.ok(
      bad.some(
        (p) =>
          p.code === 'unknown-property' &&
          /^The deployment's override for environment "prod" has no key "agnet"\. Did you mean "agent"\?/.test(p.message),
      ),
    );
    assert.ok(
      bad.some(
        (p) =>
          p.code === 'invalid-value' &&
          /The account of the deployment's override for environment "prod" must be one path segment/.test(p.message),
      ),
    );
  });
});

describe('finding the environments file', () => {
  it('finds the nearest one walking up, stops at the stop folder, and finds none where there is none', async () => {
    const dir = makeTempDir();
    try {
      const top = dir.write(ENVIRONMENTS_FILE_NAME, GOOD);
      const inner = dir.write(join('team', ENVIRONMENTS_FILE_NAME), GOOD);
      dir.write(join('team', 'agents', 'deep', 'a.agent.yaml'), 'version: 1\nname: a\n');
      dir.write(join('other', 'b.agent.yaml'), 'version: 1\nname: b\n');
      assert.equal(await findEnvironmentsFile(join(dir.path, 'team', 'agents', 'deep')), inner);
      assert.equal(await findEnvironmentsFile(join(dir.path, 'other')), top);
      assert.equal(await findEnvironmentsFile(join(dir.path, 'other'), join(dir.path, 'other')), undefined);
      // A folder of that name is not the file.
      dir.write(join('other', ENVIRONMENTS_FILE_NAME, 'x'), '');
      assert.equal(await findEnvironmentsFile(join(dir.path, 'other'), join(dir.path, 'other')), undefined);
    } finally {
      dir.remove();
    }
  });
});

describe('environments file completion', () => {
  const at = (textWithCursor: string) => {
    const offset = textWithCursor.indexOf('|');
    return environmentsCompletions(textWithCursor.replace('|', ''), offset);
  };

  it('offers the top-level keys not yet written, with the schema descriptions', () => {
    const top = at('|');
    assert.deepEqual(
      top.items.map((item) => item.label),
      ['default', 'environments'],
    );
    assert.match(top.items[0]!.documentation!, /used when none is chosen/);
    assert.deepEqual(
      at('environments:\n  dev: { baseUrl: https://a.example, account: a }\nde|').items.map((item) => [item.label, item.kind]),
      [['default', 'property']],
    );
  });

  it("offers an environment's keys, required first, leaving out those it has", () => {
    const result = at('environments:\n  dev:\n    baseUrl: https://a.example\n    |');
    const labels = result.items.map((item) => item.label);
    assert.deepEqual(labels.sort(), ['account', 'allowAgentOverride', 'protected', 'statusPath']);
    const account = result.items.find((item) => item.label === 'account')!;
    assert.equal(account.detail, 'Account path (required)');
    assert.equal(account.insertText, 'account: ');
    assert.ok(account.sortText! < result.items.find((item) => item.label === 'protected')!.sortText!);
    // No keys are offered for the names of environments: they are the user's.
    assert.deepEqual(at('environments:\n  |').items, []);
  });

  it('offers the declared environment names after default:, and true or false after protected:', () => {
    const text =
      'default: |\nenvironments:\n  dev: { baseUrl: https://a.example, account: a }\n  prod:\n    baseUrl: https://b.example\n    account: b\n';
    const names = at(text);
    assert.deepEqual(
      names.items.map((item) => [item.label, item.kind, item.insertText]),
      [
        ['dev', 'value', 'dev'],
        ['prod', 'value', 'prod'],
      ],
    );
    const typed = at('default: pr|\nenvironments:\n  prod: { baseUrl: https://b.example, account: b }\n');
    assert.deepEqual(typed.replace, { start: 9, end: 11 });
    assert.deepEqual(
      at('environments:\n  prod:\n    protected: |\n').items.map((item) => item.label),
      ['true', 'false'],
    );
    assert.deepEqual(
      at('environments:\n  prod:\n    protected: true\n    allowAgentOverride: |\n').items.map((item) => item.label),
      ['true', 'false'],
    );
    const opening = at('environments:\n  prod:\n    protected: true\n    allow|\n').items.find(
      (item) => item.label === 'allowAgentOverride',
    );
    assert.equal(opening?.insertText, 'allowAgentOverride: true');
    assert.match(String(opening?.documentation), /let agent files set their own baseUrl and account/);
  });
});

describe('environments file hover', () => {
  it("describes a key from the schema and an environment's name by what it stands for", () => {
    const key = environmentsHover(GOOD, GOOD.indexOf('protected') + 2);
    assert.match(key!.contents, /^\*\*Protected\*\*\n\nAsk for confirmation, naming the environment/);
    assert.deepEqual(key!.span, { start: GOOD.indexOf('protected'), end: GOOD.indexOf('protected') + 'protected'.length });
    assert.equal(
      environmentsHover(GOOD, GOOD.indexOf('prod:') + 1)?.contents,
      '**Environment `prod`**: service `https://agents.example.com`, account `acme`, **protected**: every run asks for confirmation, and agent files cannot change its service or account',
    );
    const opened = GOOD.replace('protected: true', 'protected: true\n    allowAgentOverride: true');
    assert.equal(
      environmentsHover(opened, opened.indexOf('prod:') + 1)?.contents,
      '**Environment `prod`**: service `https://agents.example.com`, account `acme`, **protected**: every run asks for confirmation; agent files may set their own service and account for it (`allowAgentOverride`)',
    );
    assert.equal(
      environmentsHover(GOOD, GOOD.indexOf('dev:'))?.contents,
      '**Environment `dev`**: service `http://127.0.0.1:8787`, account `local`, the default',
    );
    assert.match(environmentsHover(GOOD, 2)!.contents, /^\*\*Default environment\*\*/);
    assert.equal(environmentsHover(GOOD, GOOD.indexOf('acme') + 1), undefined, 'a value has no hover');
  });
});
