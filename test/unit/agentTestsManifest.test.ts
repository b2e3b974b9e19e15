// The manifest gives agent test files (NAME.agent.test.yaml) their own language, with the agent
// grammar, the test schema for the YAML extension, snippets, an activation event, and the commands
// of agent tests where they belong.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/paths';

interface Manifest {
  activationEvents: string[];
  contributes: {
    languages: { id: string; extensions: string[] }[];
    grammars: { language: string; scopeName: string; path: string }[];
    snippets: { language: string; path: string }[];
    yamlValidation: { fileMatch: string[]; url: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
  };
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
const contributes = manifest.contributes;

describe('manifest: agent test files', () => {
  it('contributes the agent-test-yaml language for .agent.test.yaml and .agent.test.yml, activating on it', () => {
    const language = contributes.languages.find((entry) => entry.id === 'agent-test-yaml');
    assert.deepEqual(language?.extensions, ['.agent.test.yaml', '.agent.test.yml']);
    // VS Code gives a file the language of its longest matching extension: the test extensions
    // end with the agent ones, so they must be longer and distinct.
    const agent = contributes.languages.find((entry) => entry.id === 'agent-yaml');
    for (const extension of language!.extensions)
      assert.ok(
        agent!.extensions.some((agentExtension) => extension.length > agentExtension.length && !agent!.extensions.includes(extension)),
      );
    assert.ok(manifest.activationEvents.includes('onLanguage:agent-test-yaml'));
  });

  it('highlights test files with the agent grammar, and validates them with the test schema and snippets', () => {
    const grammar = contributes.grammars.find((entry) => entry.language === 'agent-test-yaml');
    assert.ok(grammar);
    const file = JSON.parse(readFileSync(join(repoRoot, grammar.path), 'utf8')) as { scopeName: string; patterns: { include: string }[] };
    assert.equal(file.scopeName, grammar.scopeName);
    assert.deepEqual(file.patterns, [{ include: 'source.agent-yaml' }]);
    assert.ok(contributes.grammars.some((entry) => entry.scopeName === 'source.agent-yaml'));
    const validation = contributes.yamlValidation.find((entry) => entry.url === './schemas/agent-test.schema.json');
    assert.deepEqual(validation?.fileMatch, ['*.agent.test.yaml', '*.agent.test.yml']);
    const snippets = contributes.snippets.find((entry) => entry.language === 'agent-test-yaml');
    assert.ok(snippets && JSON.parse(readFileSync(join(repoRoot, snippets.path), 'utf8')));
  });

  it('offers New Test Case only on finished executions with outputs, and Run Tests only when trusted', () => {
    const newCase = contributes.menus['view/item/context']?.find((entry) => entry.command === 'agentWorkflows.executions.newTestCase');
    assert.match(newCase?.when ?? '', /viewItem =~ \/\^execution-finished-\.\*-outputs\$\//);
    for (const entry of Object.values(contributes.menus)
      .flat()
      .filter((item) => item.command === 'agentWorkflows.runAgentTests'))
      assert.match(entry.when ?? '', /isWorkspaceTrusted/);
  });
});
