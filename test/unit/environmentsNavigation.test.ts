// Definition, references and rename of environment names in agent-workflows.yaml.
import assert from 'node:assert/strict';
import {
  environmentReferencesAcross,
  environmentsDefinition,
  environmentsReferences,
  prepareEnvironmentRename,
  renameEnvironment,
  renameEnvironmentAcross,
} from '../../src/core/environments/environmentsNavigation';
import { RenameError } from '../../src/core/language/navigation';
import type { TextEdit } from '../../src/core/language/quickFixes';

const FILE = `default: "staging"
environments:
  staging:
    baseUrl: https://staging.example.com
    account: acme
  prod:
    baseUrl: https://agents.example.com
    account: acme
`;

/** The span of the n-th (0-based) `word` in text. */
function spanOf(text: string, word: string, nth = 0): { start: number; end: number } {
  let start = -1;
  for (let i = 0; i <= nth; i++) start = text.indexOf(word, start + 1);
  assert.ok(start >= 0, `${word} #${nth} is in the text`);
  return { start, end: start + word.length };
}

function apply(text: string, edits: readonly TextEdit[]): string {
  return [...edits]
    .sort((a, b) => b.span.start - a.span.start)
    .reduce((out, e) => out.slice(0, e.span.start) + e.newText + out.slice(e.span.end), text);
}

describe('environments file navigation', () => {
  it('goes from the default to the environment it names, and from a name to itself', () => {
    const declared = spanOf(FILE, 'staging', 1);
    assert.deepEqual(environmentsDefinition(FILE, spanOf(FILE, 'staging').start + 2), declared);
    assert.deepEqual(environmentsDefinition(FILE, declared.start), declared);
    assert.equal(environmentsDefinition(FILE, spanOf(FILE, 'baseUrl').start), undefined);
  });

  it('finds the declaration and the default naming it, inside its quotes', () => {
    assert.deepEqual(environmentsReferences(FILE, spanOf(FILE, 'staging', 1).start, true), [
      spanOf(FILE, 'staging', 1),
      spanOf(FILE, 'staging'),
    ]);
    assert.deepEqual(environmentsReferences(FILE, spanOf(FILE, 'staging').start, false), [spanOf(FILE, 'staging')]);
    assert.deepEqual(environmentsReferences(FILE, spanOf(FILE, 'prod').start, true), [spanOf(FILE, 'prod')]);
  });

  it('renames an environment and the default naming it, keeping the quotes', () => {
    assert.deepEqual(prepareEnvironmentRename(FILE, spanOf(FILE, 'staging').start + 1), { name: 'staging', span: spanOf(FILE, 'staging') });
    const renamed = apply(FILE, renameEnvironment(FILE, spanOf(FILE, 'staging', 1).start, 'stage'));
    assert.equal(renamed, FILE.replace(/staging:/, 'stage:').replace('"staging"', '"stage"'));
  });

  it('refuses a name that is not valid, one already taken, and what is no environment name', () => {
    const at = spanOf(FILE, 'prod').start;
    assert.throws(
      () => renameEnvironment(FILE, at, 'not a name'),
      (error: unknown) => error instanceof RenameError && /not a valid environment name/.test(error.message),
    );
    assert.throws(() => renameEnvironment(FILE, at, 'staging'), /There is already an environment "staging"/);
    assert.throws(() => prepareEnvironmentRename(FILE, spanOf(FILE, 'account').start), /Only environment names can be renamed/);
    const undeclared = 'default: dve\nenvironments:\n  dev:\n    baseUrl: https://dev.example.com\n    account: a\n';
    assert.throws(() => prepareEnvironmentRename(undeclared, spanOf(undeclared, 'dve').start), /There is no environment "dve" to rename/);
  });

  it('answers nothing for a file that does not parse', () => {
    assert.deepEqual(environmentsReferences('environments: [\n', 3, true), []);
    assert.equal(environmentsDefinition('', 0), undefined);
  });

  describe('across the agent files the environments file applies to', () => {
    const ENVIRONMENTS = { path: '/w/agent-workflows.yaml', text: FILE };
    const OVERRIDING = `version: 1
name: Overriding
deployment:
  agent: weather
  environments:
    "staging": { agent: weather-staging }
    prod: { agent: weather }
nodes:
  hello: { type: template, text: "staging" }
`;
    const PLAIN = 'version: 1\nname: Plain\nnodes:\n  hello: { type: template, text: staging }\n';
    const agents = [
      { path: '/w/a/overriding.agent.yaml', text: OVERRIDING },
      { path: '/w/plain.agent.yaml', text: PLAIN },
      { path: '/w/broken.agent.yaml', text: 'deployment: [\n' },
    ];

    it('finds the overrides of the environment, inside their quotes, and nothing else of the name', () => {
      assert.deepEqual(environmentReferencesAcross(ENVIRONMENTS, spanOf(FILE, 'staging', 1).start, true, agents), [
        { path: ENVIRONMENTS.path, span: spanOf(FILE, 'staging', 1) },
        { path: ENVIRONMENTS.path, span: spanOf(FILE, 'staging') },
        { path: '/w/a/overriding.agent.yaml', span: spanOf(OVERRIDING, 'staging') },
      ]);
      assert.deepEqual(environmentReferencesAcross(ENVIRONMENTS, spanOf(FILE, 'account').start, true, agents), []);
    });

    it('renames the overrides with the environment, and leaves other agents alone', () => {
      const changes = renameEnvironmentAcross(ENVIRONMENTS, spanOf(FILE, 'staging', 1).start, 'stage', agents);
      assert.deepEqual(
        changes.map((change) => change.path),
        [ENVIRONMENTS.path, '/w/a/overriding.agent.yaml'],
      );
      assert.equal(apply(OVERRIDING, changes[1]!.edits), OVERRIDING.replace('"staging":', '"stage":'));
      assert.equal(apply(FILE, changes[0]!.edits), FILE.replace(/staging:/, 'stage:').replace('"staging"', '"stage"'));
    });

    it('refuses a new name an agent already overrides, naming the agent file', () => {
      const withBoth = `${FILE}  stage:\n    baseUrl: https://stage.example.com\n    account: acme\n`;
      const prodToo = OVERRIDING.replace('prod:', 'stage:');
      assert.throws(
        () =>
          renameEnvironmentAcross({ path: ENVIRONMENTS.path, text: FILE }, spanOf(FILE, 'staging', 1).start, 'stage', [
            { path: '/w/a/overriding.agent.yaml', text: prodToo },
          ]),
        (error: unknown) =>
          error instanceof RenameError && /overriding\.agent\.yaml overrides both "staging" and "stage"/.test(error.message),
      );
      // The environments file's own refusal comes first.
      assert.throws(
        () => renameEnvironmentAcross({ path: ENVIRONMENTS.path, text: withBoth }, spanOf(withBoth, 'staging', 1).start, 'stage', agents),
        /There is already an environment "stage"/,
      );
    });
  });
});
