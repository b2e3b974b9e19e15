// The curl corpus: commands copied from public API documentation (test/fixtures/curl-corpus), each
// with the page it comes from. Every one must import to a node that validates with no problem at
// all and holds no credential: the secret scan finds nothing in the file, no value the import
// returned as a secret is in it, and nothing the node sends is a shell variable sent as text.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiNodeFromCurl } from '../../src/core/import/apiNodeFromCurl';
import { CurlCommandError, parseCurlCommand } from '../../src/core/import/curlCommand';
import { importedNodeYaml } from '../../src/core/import/nodeYaml';
import { findSecrets } from '../../src/core/validation/secretScan';
import { validateAgentText } from '../../src/core/validation/validate';
import { runCliCaptured } from '../support/cli';
import { agentAround, importCurl } from '../support/curlImport';
import { fixturesDir } from '../support/paths';

interface CorpusEntry {
  readonly page: string;
  /** "# expect: code [option]" (errors.txt) or "# keep: code why" (a warning that is right to keep). */
  readonly directives: ReadonlyMap<string, string>;
  readonly command: string;
}

/** Entries of a corpus file: "# <page>", optional "# name: value" lines, the command, a blank line. */
function readCorpus(name: string): CorpusEntry[] {
  const text = readFileSync(join(fixturesDir, 'curl-corpus', name), 'utf8');
  const entries: CorpusEntry[] = [];
  for (const block of text.split(/\n(?=# https?:\/\/)/)) {
    const lines = block.split('\n');
    const page = /^# (https?:\/\/\S+)$/.exec(lines[0] ?? '')?.[1];
    if (!page) continue;
    const directives = new Map<string, string>();
    let at = 1;
    for (; at < lines.length && /^# [a-z]+: /.test(lines[at]!); at++) {
      const [, key, value] = /^# ([a-z]+): (.*)$/.exec(lines[at]!)!;
      directives.set(key!, value!);
    }
    entries.push({ page, directives, command: lines.slice(at).join('\n').trim() });
  }
  return entries;
}

const commands = readCorpus('commands.txt');
const refused = readCorpus('errors.txt');

describe('curl corpus: commands from public API docs', () => {
  it('holds at least 40 commands, each with its page', () => {
    assert.ok(commands.length >= 40, `${commands.length} commands`);
    for (const entry of commands) assert.match(entry.command, /^.{0,12}curl(\.exe)?\s/, entry.page);
  });

  for (const [index, entry] of commands.entries()) {
    it(`#${index + 1} imports to a node that validates and holds no credential (${entry.page})`, () => {
      const imported = importCurl(entry.command);
      const text = agentAround(imported);
      const context = `${entry.command}\n---\n${text}`;
      const kept = entry.directives.get('keep')?.split(' ')[0];
      const problems = validateAgentText(text).problems;
      assert.deepEqual(
        problems.map((problem) => `${problem.severity} ${problem.code}`),
        kept ? [`warning ${kept}`] : [],
        `${problems.map((problem) => `${problem.code}: ${problem.message}`).join('\n')}\n${context}`,
      );
      assert.deepEqual(findSecrets(text), [], context);
      for (const secret of imported.secrets)
        if (secret.value !== undefined) assert.ok(!text.includes(secret.value), `the value of ${secret.name} is in the file\n${context}`);
      // A value is kept only where the command holds one: placeholders and shell variables are not values.
      assert.deepEqual(
        imported.secrets.filter((secret) => secret.value !== undefined).map((secret) => secret.name),
        entry.directives.get('stores')?.split(' ') ?? [],
        `secrets with a value\n${JSON.stringify(imported.secrets)}\n${context}`,
      );
      // Every secret the node refers to is one the import names (to store or to set), and back.
      const referred = new Set([...text.matchAll(/\{\{ secrets\.([A-Z0-9_]+) \}\}/g)].map((match) => match[1]));
      assert.deepEqual([...referred].sort(), imported.secrets.map((secret) => secret.name).sort(), context);
      // So is every input: a command's text is never written as an expression of its own.
      const inputs = new Set([...text.matchAll(/\{\{ inputs\.([A-Za-z0-9_-]+) \}\}/g)].map((match) => match[1]));
      assert.deepEqual([...inputs].sort(), imported.inputs.map((input) => input.name).sort(), context);
      // What the node sends holds no shell variable or docs placeholder sent as text.
      for (const sent of [imported.node.url, ...(imported.node.settings ?? [])]) {
        const literal = sent.replace(/\{\{[^}]*\}\}/g, '');
        assert.doesNotMatch(literal, /\$\{?[A-Za-z_]/, `a shell variable is sent as text: ${sent}\n${context}`);
        assert.doesNotMatch(
          literal,
          /[<>{}]|\/[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?=[/?]|$)/,
          `a placeholder is sent as text: ${sent}\n${context}`,
        );
      }
    });
  }
});

describe('curl corpus: commands an API node cannot take', () => {
  for (const entry of refused) {
    const [code, option] = (entry.directives.get('expect') ?? '').split(' ');
    it(`gives ${code} for ${entry.page}`, () => {
      let error: unknown;
      try {
        apiNodeFromCurl(parseCurlCommand(entry.command));
      } catch (caught) {
        error = caught;
      }
      assert.ok(error instanceof CurlCommandError, `no CurlCommandError for\n${entry.command}`);
      assert.equal(error.code, code, error.message);
      if (option) assert.equal(error.option, option, error.message);
    });
  }
});

describe('curl corpus: through agent-workflows import curl', () => {
  it('prints each node, names each secret and never prints a value the command held', async () => {
    for (const entry of commands) {
      const imported = importCurl(entry.command);
      // A Basic secret is the Base64 of user:password: neither form may be printed.
      const values = imported.secrets.flatMap((secret) =>
        secret.value === undefined
          ? []
          : secret.from === '-u'
            ? [secret.value, Buffer.from(secret.value, 'base64').toString('utf8')]
            : [secret.value],
      );
      const result = await runCliCaptured(['import', 'curl', entry.command], { cwd: process.cwd(), env: {} }, values);
      assert.equal(result.code, 0, `${entry.page}\n${result.stderr}`);
      assert.equal(result.stdout, importedNodeYaml(imported), entry.page);
      for (const secret of imported.secrets)
        assert.match(result.stderr, new RegExp(`secret ${secret.name}: .*AGENT_SECRET_${secret.name}`), entry.page);
    }
  });

  it('exits 2 with the reason for each command it cannot take', async () => {
    for (const entry of refused) {
      const result = await runCliCaptured(['import', 'curl', entry.command], { cwd: process.cwd(), env: {} });
      assert.equal(result.code, 2, entry.page);
      assert.notEqual(result.stderr.trim(), '', entry.page);
      assert.equal(result.stdout, '', entry.page);
    }
  });
});
