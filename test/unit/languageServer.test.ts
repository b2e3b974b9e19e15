// `agent-workflows lsp --stdio` driven by a real client (vscode-languageserver-protocol's JSON-RPC
// connection) over the standard input and output of the built command line, on files in a
// temporary folder: diagnostics with the codes and ranges the core gives, completion, hover, quick
// fixes and their edits, definition, references, rename, symbols, cross-file checks, bad input, and
// shutdown/exit. Nothing sleeps: every step waits for the notification or answer it expects.
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  CodeAction,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  MarkupContent,
  Position,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';
import { SymbolKind } from 'vscode-languageserver-protocol/node';
import { LineIndex } from '../../src/core/document/lineIndex';
import { validateAgentText } from '../../src/core/validation/validate';
import { DocumentStore } from '../../src/lsp/documentStore';
import { FakeClock } from '../support/fakeClock';
import { inProcessLanguageServer, spawnLanguageServer } from '../support/lspClient';
import type { LspClient } from '../support/lspClient';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const AGENT = `version: 1
name: Weather
inputs:
  city: { type: string, required: true }
nodes:
  forecast:
    type: api
    method: GETT
    url: "https://api.example.com/forecast?q={{ inputs.city }}"
    settings:
      - "Authorization: Bearer sk_live_abcdef1234567890"
  summary:
    type: template
    text: "Weather in {{ inputs.city }}: {{ nodes.forecast.body.text }}"
outputs:
  text: { from: "{{ nodes.summary.body }}" }
`;

const TEST_FILE = `cases:
  sunny:
    inputs: { city: Paris }
    mocks:
      forecast: { body: { text: sunny } }
    expect:
      outputs:
        temperature: 20
`;

/** Where `needle` (the `nth` one) starts in `text`, as an LSP position. */
function positionOf(text: string, needle: string, nth = 0, within = 0): Position {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = text.indexOf(needle, offset + 1);
  assert.ok(offset >= 0, `${needle} is in the text`);
  const { line, column } = new LineIndex(text).position(offset + within);
  return { line: line - 1, character: column - 1 };
}

function rangeOf(text: string, needle: string, nth = 0): { start: Position; end: Position } {
  const start = positionOf(text, needle, nth);
  return { start, end: { line: start.line, character: start.character + needle.length } };
}

/** A text with edits applied (LSP ranges), as a client applies them. */
function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const lines = new LineIndex(text);
  const offset = (position: Position): number => lines.lineStart(position.line + 1) + position.character;
  return [...edits]
    .sort((a, b) => offset(b.range.start) - offset(a.range.start))
    .reduce((result, edit) => result.slice(0, offset(edit.range.start)) + edit.newText + result.slice(offset(edit.range.end)), text);
}

/** Go to Definition at a position of a document. */
const definitionAt = (client: LspClient, uri: string, position: Position): Promise<Location | null> =>
  client.connection.sendRequest('textDocument/definition', { textDocument: { uri }, position }) as Promise<Location | null>;

/** Find All References (the declaration included) at a position of a document. */
const referencesAt = (client: LspClient, uri: string, position: Position): Promise<Location[]> =>
  client.connection.sendRequest('textDocument/references', {
    textDocument: { uri },
    position,
    context: { includeDeclaration: true },
  }) as Promise<Location[]>;

/** Rename at a position of a document. */
const renameAt = (client: LspClient, uri: string, position: Position, newName: string): Promise<WorkspaceEdit> =>
  client.connection.sendRequest('textDocument/rename', { textDocument: { uri }, position, newName }) as Promise<WorkspaceEdit>;

const messageOf = (diagnostic: Diagnostic): string =>
  typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value;
const codes = (diagnostics: readonly Diagnostic[]): string[] => diagnostics.map((diagnostic) => String(diagnostic.code)).sort();

describe('language server (agent-workflows lsp --stdio)', function () {
  this.timeout(20_000);
  let dir: TempDir;
  let server: ReturnType<typeof spawnLanguageServer>;
  let agentUri: string;

  beforeEach(async () => {
    dir = makeTempDir();
    agentUri = pathToFileURL(dir.write('weather.agent.yaml', AGENT)).href;
    server = spawnLanguageServer(dir.path);
    await server.initialize({
      workspaceFolders: [{ uri: pathToFileURL(dir.path).href, name: 'work' }],
      initializationOptions: { validationDelay: 10 },
    });
  });

  afterEach(() => {
    server.dispose();
    dir.remove();
  });

  it('publishes the diagnostics of a broken agent file with the codes and ranges of the core', async () => {
    await server.open(agentUri, AGENT);
    const { diagnostics, version } = await server.diagnostics(agentUri);
    assert.equal(version, 1);
    assert.deepEqual(codes(diagnostics), ['literal-credential', 'unknown-http-method']);
    const method = diagnostics.find((diagnostic) => diagnostic.code === 'unknown-http-method')!;
    assert.deepEqual(method.range, rangeOf(AGENT, 'GETT'));
    assert.equal(method.severity, 1);
    assert.equal(method.source, 'agent-workflows');
    assert.match(messageOf(method), /Did you mean "GET"\?/);
    assert.match(method.codeDescription!.href, /agent-yaml\.md#unknown-http-method$/);
    // Exactly what the core reports, one diagnostic per problem, at its span.
    const problems = validateAgentText(AGENT).problems;
    assert.deepEqual(
      diagnostics.map((diagnostic) => [diagnostic.code, messageOf(diagnostic)]),
      problems.map((problem) => [problem.code, problem.message]),
    );
  });

  it('checks the document again after a change, and clears its diagnostics when it closes', async () => {
    await server.open(agentUri, AGENT);
    await server.diagnostics(agentUri, (_, version) => version === 1);
    await server.change(agentUri, AGENT.replace('GETT', 'GET'), 2);
    const changed = await server.diagnostics(agentUri, (_, version) => version === 2);
    assert.deepEqual(codes(changed.diagnostics), ['literal-credential']);
    await server.close(agentUri);
    const closed = await server.diagnostics(agentUri, (diagnostics, version) => version === undefined && diagnostics.length === 0);
    assert.deepEqual(closed.diagnostics, []);
  });

  it('completes, hovers, goes to definitions, finds references, renames and lists symbols', async () => {
    await server.open(agentUri, AGENT);
    const textDocument = { uri: agentUri };

    const completion = (await server.connection.sendRequest('textDocument/completion', {
      textDocument,
      position: positionOf(AGENT, '{{ inputs.city }}', 1, '{{ inputs.'.length),
    })) as CompletionList;
    assert.ok(
      completion.items.some((item) => item.label === 'city'),
      completion.items.map((item) => item.label).join(', '),
    );

    const hover = (await server.connection.sendRequest('textDocument/hover', {
      textDocument,
      position: positionOf(AGENT, 'inputs.city', 0, 'inputs.c'.length),
    })) as Hover;
    assert.equal((hover.contents as MarkupContent).kind, 'markdown');
    assert.match((hover.contents as MarkupContent).value, /city/);

    const declaration = rangeOf(AGENT, 'city');
    const definition = await definitionAt(server, agentUri, positionOf(AGENT, 'inputs.city', 1, 'inputs.c'.length));
    assert.deepEqual(definition, { uri: agentUri, range: declaration });

    const references = await referencesAt(server, agentUri, declaration.start);
    assert.deepEqual(
      references.map((location) => location.range),
      [declaration, rangeOf(AGENT, 'city', 1), rangeOf(AGENT, 'city', 2)],
    );

    const prepared = (await server.connection.sendRequest('textDocument/prepareRename', { textDocument, position: declaration.start })) as {
      placeholder: string;
    };
    assert.equal(prepared.placeholder, 'city');
    const renamed = await renameAt(server, agentUri, declaration.start, 'town');
    assert.equal(applyEdits(AGENT, renamed.changes![agentUri]!), AGENT.replace(/\bcity\b/g, 'town'));
    await assert.rejects(renameAt(server, agentUri, declaration.start, 'not a name'), /"not a name" is not a valid name/);
    await assert.rejects(
      server.connection.sendRequest('textDocument/prepareRename', { textDocument, position: positionOf(AGENT, 'Weather') }),
      /Only input names, node ids and output names can be renamed/,
    );

    const symbols = (await server.connection.sendRequest('textDocument/documentSymbol', { textDocument })) as DocumentSymbol[];
    assert.deepEqual(
      symbols.map((symbol) => [symbol.name, symbol.children?.map((child) => child.name)]),
      [
        ['inputs', ['city']],
        ['nodes', ['forecast', 'summary']],
        ['outputs', ['text']],
      ],
    );
  });

  it('offers quick fixes as edits; one that moves a credential names the secret to set, never its value', async () => {
    await server.open(agentUri, AGENT);
    const { diagnostics } = await server.diagnostics(agentUri);
    const methodRange = rangeOf(AGENT, 'GETT');
    const methodActions = (await server.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: agentUri },
      range: methodRange,
      context: { diagnostics: diagnostics.filter((d) => d.code === 'unknown-http-method') },
    })) as CodeAction[];
    assert.deepEqual(
      methodActions.map((action) => [action.title, action.kind, action.isPreferred]),
      [['Change to "GET"', 'quickfix', true]],
    );
    assert.deepEqual(
      methodActions[0]!.diagnostics,
      diagnostics.filter((d) => d.code === 'unknown-http-method'),
    );
    assert.equal(applyEdits(AGENT, methodActions[0]!.edit!.changes![agentUri]!), AGENT.replace('GETT', 'GET'));

    // A client that sends no diagnostics in the context still gets the fixes of the range.
    const secretActions = (await server.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: agentUri },
      range: rangeOf(AGENT, 'sk_live'),
      context: { diagnostics: [] },
    })) as CodeAction[];
    const move = secretActions.find((action) => action.command !== undefined)!;
    assert.ok(move, secretActions.map((action) => action.title).join(', '));
    const fixed = applyEdits(AGENT, move.edit!.changes![agentUri]!);
    assert.ok(fixed.includes('"Authorization: Bearer {{ secrets.FORECAST_TOKEN }}"') || /Bearer \{\{ secrets\.\w+ \}\}/.test(fixed), fixed);
    const name = /secrets\.(\w+)/.exec(fixed)![1]!;
    assert.ok(!JSON.stringify(move).includes('sk_live_abcdef1234567890'), 'the value is not sent back to the client');
    await server.connection.sendRequest('workspace/executeCommand', { command: move.command!.command, arguments: move.command!.arguments });
    const message = await server.message((text) => text.includes(name));
    assert.match(message, new RegExp(`AGENT_SECRET_${name}`));
    assert.ok(!message.includes('sk_live'), message);
  });

  it('checks a test file against its agent, and again when the agent changes', async () => {
    const testUri = pathToFileURL(dir.write('weather.agent.test.yaml', TEST_FILE)).href;
    await server.open(testUri, TEST_FILE);
    const first = await server.diagnostics(testUri);
    assert.deepEqual(codes(first.diagnostics), ['unknown-output']);
    const unknown = first.diagnostics[0]!;
    assert.deepEqual(unknown.range, rangeOf(TEST_FILE, 'temperature'));
    // The agent, open with unsaved text that declares the output, is what the test file is checked against.
    await server.open(agentUri, AGENT.replace('outputs:\n', 'outputs:\n  temperature: { from: "{{ nodes.forecast.body.t }}" }\n'));
    const again = await server.diagnostics(testUri, (diagnostics) => diagnostics.length === 0);
    assert.deepEqual(again.diagnostics, []);
  });

  it('watches agent, test and environments files, and checks an open test file again when its agent changes on disk', async () => {
    const testUri = pathToFileURL(dir.write('weather.agent.test.yaml', TEST_FILE)).href;
    await server.open(testUri, TEST_FILE);
    assert.deepEqual(codes((await server.diagnostics(testUri)).diagnostics), ['unknown-output']);
    const watched = server.registrations.find((registration) => registration.method === 'workspace/didChangeWatchedFiles');
    assert.deepEqual(
      (watched?.registerOptions as { watchers: { globPattern: string }[] }).watchers.map((watcher) => watcher.globPattern),
      ['**/*.agent.yaml', '**/*.agent.yml', '**/*.agent.test.yaml', '**/*.agent.test.yml', '**/agent-workflows.yaml'],
    );
    dir.write('weather.agent.yaml', AGENT.replace('outputs:\n', 'outputs:\n  temperature: { from: "{{ nodes.forecast.body.t }}" }\n'));
    await server.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: agentUri, type: 2 }] });
    assert.deepEqual((await server.diagnostics(testUri, (diagnostics) => diagnostics.length === 0)).diagnostics, []);
  });

  it('checks an agent file against its environments file, and again when that file changes', async () => {
    const environments = 'environments:\n  prod:\n    baseUrl: https://agents.example.com\n    account: acme\n    protected: true\n';
    const envsUri = pathToFileURL(dir.write('agent-workflows.yaml', environments)).href;
    const agent = AGENT.replace('GETT', 'GET').replace(
      'inputs:',
      'deployment:\n  agent: weather\n  environments:\n    staging: { baseUrl: https://staging.example.com }\ninputs:',
    );
    await server.open(agentUri, agent);
    const first = await server.diagnostics(agentUri);
    assert.ok(codes(first.diagnostics).includes('unknown-environment'), codes(first.diagnostics).join(', '));
    await server.open(envsUri, environments);
    await server.diagnostics(envsUri, (diagnostics) => diagnostics.length === 0);
    await server.change(envsUri, `${environments}  staging:\n    baseUrl: https://staging.example.com\n    account: acme\n`, 2);
    const again = await server.diagnostics(agentUri, (diagnostics) => !codes(diagnostics).includes('unknown-environment'));
    assert.deepEqual(codes(again.diagnostics), ['literal-credential']);
    // The environments file's own problems, with its code.
    await server.change(envsUri, `default: prodd\n${environments}`, 3);
    const envs = await server.diagnostics(envsUri, (_, version) => version === 3);
    assert.deepEqual(codes(envs.diagnostics), ['unknown-default-environment']);
    assert.deepEqual(envs.diagnostics[0]!.range, rangeOf(`default: prodd\n${environments}`, 'prodd'));
  });

  it('goes from a test file to the agent file and to the declarations of the names a case uses', async () => {
    const testText = `agent: weather.agent.yaml\n${TEST_FILE}`;
    const testUri = pathToFileURL(dir.write('weather.agent.test.yaml', testText)).href;
    await server.open(testUri, testText);
    const definitionOf = (needle: string, nth = 0): Promise<Location | null> =>
      definitionAt(server, testUri, positionOf(testText, needle, nth, 1));
    // The agent under test: the file itself.
    assert.deepEqual(await definitionOf('weather.agent.yaml'), {
      uri: agentUri,
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    });
    // A case's input, and a mocked node: their declarations in the agent.
    assert.deepEqual(await definitionOf('city'), { uri: agentUri, range: rangeOf(AGENT, 'city') });
    assert.deepEqual(await definitionOf('forecast'), { uri: agentUri, range: rangeOf(AGENT, 'forecast') });
    // An output the agent does not declare has no definition.
    assert.equal(await definitionOf('temperature'), null);
    // The agent open with unsaved text declaring it: its place in that text.
    const edited = AGENT.replace('outputs:\n', 'outputs:\n  temperature: { from: "{{ nodes.forecast.body.t }}" }\n');
    await server.open(agentUri, edited);
    assert.deepEqual(await definitionOf('temperature'), { uri: agentUri, range: rangeOf(edited, 'temperature') });
  });

  it("renames an agent's names in the test files of that agent, and finds references from a test file", async () => {
    // On disk only, found by walking the workspace folder; open with unsaved text; another agent's.
    const besideUri = pathToFileURL(dir.write('weather.agent.test.yaml', TEST_FILE)).href;
    const nested = `agent: ../weather.agent.yaml\ncases:\n  quoted:\n    inputs: { 'city': Rome }\n    mocks:\n      forecast: { body: { text: rain } }\n`;
    const nestedUri = pathToFileURL(dir.write('cases/rome.agent.test.yaml', 'agent: ../weather.agent.yaml\ncases: {}\n')).href;
    const otherText = `agent: other.agent.yaml\ncases:\n  a:\n    inputs: { city: Oslo }\n`;
    const otherUri = pathToFileURL(dir.write('other.agent.test.yaml', otherText)).href;
    await server.open(agentUri, AGENT);
    await server.open(nestedUri, nested);

    const renamed = await renameAt(server, agentUri, positionOf(AGENT, 'city'), 'town');
    assert.deepEqual(Object.keys(renamed.changes!).sort(), [besideUri, nestedUri, agentUri].sort());
    assert.equal(applyEdits(AGENT, renamed.changes![agentUri]!), AGENT.replace(/\bcity\b/g, 'town'));
    assert.equal(applyEdits(TEST_FILE, renamed.changes![besideUri]!), TEST_FILE.replace('city', 'town'));
    assert.equal(applyEdits(nested, renamed.changes![nestedUri]!), nested.replace("'city'", "'town'"));
    assert.equal(renamed.changes![otherUri], undefined);

    // From the mocked node of the open test file: the agent's declaration and references, and each test file's mock.
    const references = await referencesAt(server, nestedUri, positionOf(nested, 'forecast', 0, 2));
    assert.deepEqual(references, [
      { uri: agentUri, range: rangeOf(AGENT, 'forecast') },
      { uri: agentUri, range: rangeOf(AGENT, 'forecast', 2) },
      { uri: nestedUri, range: rangeOf(nested, 'forecast') },
      { uri: besideUri, range: rangeOf(TEST_FILE, 'forecast') },
    ]);

    // Rename from a test file: its input (inside the quotes); an output the agent does not declare is refused.
    const prepared = (await server.connection.sendRequest('textDocument/prepareRename', {
      textDocument: { uri: nestedUri },
      position: positionOf(nested, "'city'", 0, 2),
    })) as { range: unknown; placeholder: string };
    assert.deepEqual(prepared, { range: rangeOf(nested, 'city'), placeholder: 'city' });
    const fromTest = await renameAt(server, nestedUri, positionOf(nested, 'forecast', 0, 2), 'outlook');
    assert.equal(
      applyEdits(AGENT, fromTest.changes![agentUri]!),
      AGENT.replace('  forecast:', '  outlook:').replace('nodes.forecast', 'nodes.outlook'),
    );
    assert.equal(applyEdits(TEST_FILE, fromTest.changes![besideUri]!), TEST_FILE.replace('forecast', 'outlook'));
    await server.open(besideUri, TEST_FILE);
    await assert.rejects(
      server.connection.sendRequest('textDocument/prepareRename', {
        textDocument: { uri: besideUri },
        position: positionOf(TEST_FILE, 'temperature'),
      }),
      /The agent under test has no output "temperature" to rename/,
    );
  });

  it('reads, suggests from and edits no file outside the workspace folder, through a path or a link', async () => {
    const outside = makeTempDir();
    try {
      const victim = outside.write('victim.agent.yaml', AGENT.replace(/\bcity\b/g, 'victimInput'));
      const victimUri = pathToFileURL(victim).href;
      // A test file naming it by a path out of the folder, and one by a link in the folder that leads there.
      const byPath = `agent: ${relative(dir.path, victim)}\ncases:\n  a:\n    inputs: { victimInpt: 1 }\n`;
      const byPathUri = pathToFileURL(dir.write('out.agent.test.yaml', byPath)).href;
      symlinkSync(victim, join(dir.path, 'linked.agent.yaml'));
      const byLink = `agent: linked.agent.yaml\ncases:\n  a:\n    inputs: { victimInpt: 1 }\n`;
      const byLinkUri = pathToFileURL(dir.write('linked.agent.test.yaml', byLink)).href;
      await server.open(byPathUri, byPath);
      await server.open(byLinkUri, byLink);

      const problemOf = async (uri: string): Promise<Diagnostic> => {
        const { diagnostics } = await server.diagnostics(uri);
        assert.ok(
          diagnostics.every((diagnostic) => !messageOf(diagnostic).includes('victimInput')),
          'no name of the outside file is suggested',
        );
        assert.deepEqual(codes(diagnostics), ['unknown-agent']);
        return diagnostics[0]!;
      };
      const pathProblem = await problemOf(byPathUri);
      assert.deepEqual(pathProblem.range, rangeOf(byPath, relative(dir.path, victim)));
      assert.match(
        messageOf(pathProblem),
        /cannot be read: .*victim\.agent\.yaml: it is outside the workspace folder \(.*\): the language server reads no file outside them\. Open its folder as a workspace folder, or move the file into one\./,
      );
      assert.match(
        messageOf(await problemOf(byLinkUri)),
        /linked\.agent\.yaml: it is a link to .*victim\.agent\.yaml, outside the workspace folder/,
      );

      // Neither references nor rename reach it; completion offers none of its names.
      for (const [uri, text] of [
        [byPathUri, byPath],
        [byLinkUri, byLink],
      ] as const) {
        await assert.rejects(
          renameAt(server, uri, positionOf(text, 'victimInpt', 0, 2), 'renamed'),
          /cannot be read .*outside the workspace folder/,
        );
        assert.deepEqual(await referencesAt(server, uri, positionOf(text, 'victimInpt', 0, 2)), []);
        assert.equal(await definitionAt(server, uri, positionOf(text, 'agent: ', 0, 8)), null);
        const completion = (await server.connection.sendRequest('textDocument/completion', {
          textDocument: { uri },
          position: positionOf(text, 'victimInpt', 0, 1),
        })) as CompletionList | null;
        assert.ok(!JSON.stringify(completion ?? {}).includes('victimInput'));
      }

      // A test file of the folder that is a link to one outside: a rename of the agent's input leaves it alone.
      const outsideTest = outside.write('weather.agent.test.yaml', `agent: weather.agent.yaml\n${TEST_FILE}`);
      symlinkSync(outsideTest, join(dir.path, 'weather.agent.test.yaml'));
      await server.open(agentUri, AGENT);
      const renamed = await renameAt(server, agentUri, positionOf(AGENT, 'city'), 'town');
      assert.deepEqual(Object.keys(renamed.changes!), [agentUri]);
      assert.ok(!JSON.stringify(renamed).includes(victimUri));
    } finally {
      outside.remove();
    }
  });

  it('offers the suggested name as a quick fix in test files and the environments file', async () => {
    const testText = `cases:\n  sunny:\n    inputs: { "citty": Paris }\n    mocks:\n      forcast: { body: { text: sunny } }\n    expect:\n      outputs:\n        txt: sunny\n`;
    const testUri = pathToFileURL(dir.write('weather.agent.test.yaml', testText)).href;
    await server.open(testUri, testText);
    const { diagnostics } = await server.diagnostics(testUri);
    assert.deepEqual(codes(diagnostics), ['missing-mock', 'unknown-input', 'unknown-node', 'unknown-output']);
    const fixed = async (uri: string, text: string, needle: string): Promise<string[]> => {
      const actions = (await server.connection.sendRequest('textDocument/codeAction', {
        textDocument: { uri },
        range: rangeOf(text, needle),
        context: { diagnostics: [] },
      })) as CodeAction[];
      // Each fix applied: its title, and the line it changed as it reads after.
      const line = positionOf(text, needle).line;
      return actions.map((action) => `${action.title} → ${applyEdits(text, action.edit!.changes![uri]!).split('\n')[line]!.trim()}`);
    };
    // A quoted key keeps its quotes.
    assert.deepEqual(await fixed(testUri, testText, '"citty"'), ['Change to "city" → inputs: { "city": Paris }']);
    assert.deepEqual(await fixed(testUri, testText, 'forcast'), ['Change to "forecast" → forecast: { body: { text: sunny } }']);
    assert.deepEqual(await fixed(testUri, testText, 'txt'), ['Change to "text" → text: sunny']);

    const environments = 'default: prodd\nenvironments:\n  prod:\n    baseUrl: https://agents.example.com\n    account: acme\n';
    const envsUri = pathToFileURL(dir.write('agent-workflows.yaml', environments)).href;
    await server.open(envsUri, environments);
    assert.deepEqual(codes((await server.diagnostics(envsUri)).diagnostics), ['unknown-default-environment']);
    assert.deepEqual(await fixed(envsUri, environments, 'prodd'), ['Change to "prod" → default: prod']);
  });

  it('lists the symbols of test files and of the environments file', async () => {
    const testText = `agent: weather.agent.yaml\ndefaults:\n  inputs: { city: Oslo }\n${TEST_FILE.replace('  sunny:\n', '  sunny:\n    description: A sunny day\n')}  rainy:\n    inputs: { city: Bergen }\n`;
    const testUri = pathToFileURL(dir.write('weather.agent.test.yaml', testText)).href;
    await server.open(testUri, testText);
    const testSymbols = (await server.connection.sendRequest('textDocument/documentSymbol', {
      textDocument: { uri: testUri },
    })) as DocumentSymbol[];
    const outline = (symbols: readonly DocumentSymbol[]): unknown =>
      symbols.map((symbol) => [
        symbol.name,
        symbol.detail ?? '',
        symbol.kind,
        ...(symbol.children?.length ? [outline(symbol.children)] : []),
      ]);
    assert.deepEqual(outline(testSymbols), [
      ['agent', 'weather.agent.yaml', SymbolKind.Field],
      ['defaults', '', SymbolKind.Namespace, [['inputs', '1 entry', SymbolKind.Field]]],
      [
        'cases',
        '2 cases',
        SymbolKind.Namespace,
        [
          [
            'sunny',
            'A sunny day',
            SymbolKind.Method,
            [
              ['inputs', '1 entry', SymbolKind.Field],
              ['mocks', '1 entry', SymbolKind.Field],
              ['expect', '1 entry', SymbolKind.Field],
            ],
          ],
          ['rainy', 'inputs', SymbolKind.Method, [['inputs', '1 entry', SymbolKind.Field]]],
        ],
      ],
    ]);
    // A case's symbol spans the case, its name is where the selection goes.
    const sunny = testSymbols[2]!.children![0]!;
    assert.deepEqual(sunny.selectionRange, rangeOf(testText, 'sunny'));
    assert.deepEqual(sunny.range.start, positionOf(testText, 'sunny'));
    assert.deepEqual(sunny.range.end, positionOf(testText, '        temperature: 20', 0, '        temperature: 20'.length));

    const environments =
      'default: staging\nenvironments:\n  staging:\n    baseUrl: https://staging.example.com/v1\n    account: acme\n  prod:\n    baseUrl: https://agents.example.com\n    account: acme\n    protected: true\n';
    const envsUri = pathToFileURL(dir.write('agent-workflows.yaml', environments)).href;
    await server.open(envsUri, environments);
    const envSymbols = (await server.connection.sendRequest('textDocument/documentSymbol', {
      textDocument: { uri: envsUri },
    })) as DocumentSymbol[];
    assert.deepEqual(outline(envSymbols), [
      ['default', 'staging', SymbolKind.Field],
      [
        'environments',
        '2 environments',
        SymbolKind.Namespace,
        [
          ['staging', 'https://staging.example.com · acme', SymbolKind.Object],
          ['prod', 'https://agents.example.com · acme · protected', SymbolKind.Object],
        ],
      ],
    ]);
  });

  it('goes to, finds and renames environment names in the environments file', async () => {
    const environments = 'default: staging\nenvironments:\n  staging:\n    baseUrl: https://staging.example.com\n    account: acme\n';
    const envsUri = pathToFileURL(dir.write('agent-workflows.yaml', environments)).href;
    await server.open(envsUri, environments);
    const textDocument = { uri: envsUri };
    const declaration = rangeOf(environments, 'staging', 1);
    const definition = await definitionAt(server, envsUri, positionOf(environments, 'staging', 0, 2));
    assert.deepEqual(definition, { uri: envsUri, range: declaration });
    const references = await referencesAt(server, envsUri, declaration.start);
    assert.deepEqual(
      references.map((location) => location.range),
      [declaration, rangeOf(environments, 'staging')],
    );
    const prepared = (await server.connection.sendRequest('textDocument/prepareRename', { textDocument, position: declaration.start })) as {
      placeholder: string;
    };
    assert.equal(prepared.placeholder, 'staging');
    const renamed = await renameAt(server, envsUri, declaration.start, 'stage');
    assert.equal(applyEdits(environments, renamed.changes![envsUri]!), environments.replace(/staging(?=\n|:)/g, 'stage'));
    await assert.rejects(renameAt(server, envsUri, declaration.start, '9lives'), /not a valid environment name/);
  });

  it('renames an environment in the overrides of the agent files it applies to, on disk and open, not past a nearer environments file', async () => {
    const environments = 'environments:\n  staging:\n    baseUrl: https://staging.example.com\n    account: acme\n';
    const envsUri = pathToFileURL(dir.write('agent-workflows.yaml', environments)).href;
    const overriding = (name: string): string =>
      `version: 1\nname: ${name}\ndeployment:\n  agent: weather\n  environments:\n    staging: { agent: ${name} }\nnodes:\n  hello: { type: template, text: staging }\n`;
    const onDiskUri = pathToFileURL(dir.write('sub/on-disk.agent.yaml', overriding('on-disk'))).href;
    // Open with text not saved: the open text is what is renamed.
    const openPath = dir.write('sub/open.agent.yaml', 'version: 1\nname: saved\n');
    const openText = overriding('open');
    await server.open(pathToFileURL(openPath).href, openText);
    dir.write('nested/agent-workflows.yaml', environments);
    const nestedUri = pathToFileURL(dir.write('nested/inner.agent.yaml', overriding('inner'))).href;
    await server.open(envsUri, environments);
    const declaration = rangeOf(environments, 'staging');

    const references = await referencesAt(server, envsUri, declaration.start);
    assert.deepEqual(
      references.map((location) => [location.uri, location.range.start.line]),
      [
        [envsUri, 1],
        [onDiskUri, 5],
        [pathToFileURL(openPath).href, 5],
      ],
    );
    const renamed = await renameAt(server, envsUri, declaration.start, 'stage');
    assert.deepEqual(Object.keys(renamed.changes!).sort(), [envsUri, onDiskUri, pathToFileURL(openPath).href].sort());
    assert.equal(applyEdits(openText, renamed.changes![pathToFileURL(openPath).href]!), openText.replace('staging:', 'stage:'));
    assert.equal(applyEdits(overriding('on-disk'), renamed.changes![onDiskUri]!), overriding('on-disk').replace('staging:', 'stage:'));
    assert.equal(renamed.changes![nestedUri], undefined);
    // An agent overriding both names: the rename is refused, saying which file.
    dir.write('sub/both.agent.yaml', overriding('both').replace('    staging:', '    stage: { agent: x }\n    staging:'));
    await assert.rejects(renameAt(server, envsUri, declaration.start, 'stage'), /both\.agent\.yaml overrides both "staging" and "stage"/);
  });

  it('says what is wrong with a document too large or binary, ignores other files, and keeps serving', async () => {
    const large = `${dir.path}/large.agent.yaml`;
    const largeUri = pathToFileURL(large).href;
    await server.open(largeUri, `name: x\n${'#'.repeat(800 * 1024)}\n`);
    const tooLarge = await server.diagnostics(largeUri);
    assert.deepEqual(codes(tooLarge.diagnostics), ['file-too-large']);
    assert.match(messageOf(tooLarge.diagnostics[0]!), /checked up to 768 KB/);
    assert.equal(
      await server.connection.sendRequest('textDocument/hover', { textDocument: { uri: largeUri }, position: { line: 0, character: 1 } }),
      null,
    );

    const binaryUri = pathToFileURL(`${dir.path}/binary.agent.yaml`).href;
    await server.open(binaryUri, 'name: \u0000\u0001\u0002');
    assert.deepEqual(codes((await server.diagnostics(binaryUri)).diagnostics), ['not-text']);

    const readmeUri = pathToFileURL(`${dir.path}/README.md`).href;
    await server.open(readmeUri, '# not an agent file');
    // Notifications are handled in order: had the server published for README.md, it would be here by now.
    assert.equal(
      await server.connection.sendRequest('textDocument/hover', { textDocument: { uri: readmeUri }, position: { line: 0, character: 0 } }),
      null,
    );
    assert.equal(
      server.published.some((params) => params.uri === readmeUri),
      false,
    );
    // Requests with parameters it cannot use: an empty answer or a clear error, never a crash.
    assert.equal(await server.connection.sendRequest('textDocument/hover', {}), null);
    assert.deepEqual(await server.connection.sendRequest('textDocument/codeAction', { textDocument: { uri: agentUri } }), []);
    await assert.rejects(
      server.connection.sendRequest('workspace/executeCommand', {
        command: 'agent-workflows.secretToSet',
        arguments: ['no spaces allowed'],
      }),
      /no secret name given/,
    );
    // Still serving.
    await server.open(agentUri, AGENT);
    assert.deepEqual(codes((await server.diagnostics(agentUri)).diagnostics), ['literal-credential', 'unknown-http-method']);
  });

  it('reads no more requests while the client leaves its answers unread, and answers them all once it reads', async function () {
    this.timeout(120_000);
    await server.open(agentUri, AGENT);
    await server.diagnostics(agentUri);
    const resident = (field: 'VmRSS' | 'VmHWM'): number | undefined => {
      try {
        const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1];
        return kib === undefined ? undefined : Number(kib) * 1024;
      } catch {
        return undefined;
      }
    };
    const before = resident('VmRSS');
    // The client stops reading: the answers fill the pipe, and the server stops reading requests.
    server.child.stdout.pause();
    const paused = new Promise<string>((resolve) => {
      const seen = (): void => {
        if (/reads no more requests/.test(server.stderr())) resolve(server.stderr());
      };
      server.child.stderr.on('data', seen);
      seen();
    });
    const position = positionOf(AGENT, 'inputs.city', 0, 7);
    const answers: Promise<unknown>[] = [];
    for (let i = 0; i < 20_000; i++)
      answers.push(server.connection.sendRequest('textDocument/completion', { textDocument: { uri: agentUri }, position }));
    assert.match(
      await paused,
      /agent-workflows lsp: the client has \d+ requests unanswered and has not read the last \d+ messages \(\d+ bytes\) the server sent: the server reads no more requests until half of them are gone \(said once\)\./,
    );
    // It reads again: every request is answered, none dropped.
    server.child.stdout.resume();
    const last = (await Promise.all(answers)).at(-1) as CompletionList;
    assert.ok(last.items.some((item) => item.label === 'city'));
    const peak = resident('VmHWM');
    // A guard against a gross leak only (answering all 20,000 peaks about 75 MB above the start);
    // the bound itself is read from the pause line above. 20,000 requests, 20 times the bound,
    // take a fifth of the time 50,000 took.
    if (before !== undefined && peak !== undefined) assert.ok(peak - before < 100 * 1024 * 1024, `grew by ${peak - before} bytes`);
    assert.equal(server.stderr().match(/reads no more requests/g)?.length, 1);
  });

  it('exits with 0 after shutdown and exit', async () => {
    await server.connection.sendRequest('shutdown');
    await server.connection.sendNotification('exit');
    assert.equal(await server.exited, 0);
  });

  it('exits with 1 when its standard input closes without shutdown, even with a live client process', async () => {
    const client = spawnLanguageServer(dir.path);
    try {
      await client.initialize({ processId: process.pid });
      client.child.stdin.end();
      // A server that stays (exit code null) fails the test instead of keeping mocha running.
      const limit = setTimeout(() => client.child.kill('SIGKILL'), 10_000);
      const code = await client.exited;
      clearTimeout(limit);
      assert.equal(code, 1);
    } finally {
      client.dispose();
    }
  });

  it('refuses to start without --stdio, saying how to start it', async () => {
    const { runCliCaptured } = await import('../support/cli');
    const run = await runCliCaptured(['lsp'], { cwd: dir.path, env: {} });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /agent-workflows lsp --stdio/);
  });
});

describe('language server: debounced checks and bounded documents', () => {
  let client: LspClient | undefined;
  afterEach(() => client?.dispose());

  it('checks once after a burst of changes, when the delay has passed since the last one', async () => {
    const clock = new FakeClock();
    client = inProcessLanguageServer({ clock });
    await client.initialize();
    const uri = 'file:///nowhere/burst.agent.yaml';
    await client.open(uri, AGENT);
    await client.diagnostics(uri, (_, version) => version === 1);
    for (let version = 2; version <= 4; version++) await client.change(uri, AGENT.replace('GETT', version === 4 ? 'GET' : 'GETT'), version);
    // Handled in order: once this answers, the three changes are in, and one check is waiting.
    await client.connection.sendRequest('agentWorkflows/serverStatus');
    assert.equal(clock.pending, 1);
    assert.equal(client.published.length, 1);
    clock.advance(299);
    assert.equal(clock.pending, 1);
    clock.advance(1);
    const checked = await client.diagnostics(uri, (_, version) => version === 4);
    assert.deepEqual(codes(checked.diagnostics), ['literal-credential']);
    assert.equal(client.published.length, 2);
  });

  it('keeps at most the texts its bounds allow, and brings one back with its next change', async () => {
    const store = new DocumentStore({ documents: 2, characters: 1_000_000 });
    client = inProcessLanguageServer({ store });
    await client.initialize();
    const uris = [1, 2, 3].map((n) => `file:///nowhere/a${n}.agent.yaml`);
    for (const uri of uris) await client.open(uri, AGENT);
    const status = (await client.connection.sendRequest('agentWorkflows/serverStatus')) as Record<string, number>;
    assert.deepEqual([status.openDocuments, status.keptDocuments, status.evictions], [3, 2, 1]);
    // The first was let go: its diagnostics stay; a request on it has no answer until it changes.
    const position = positionOf(AGENT, 'inputs.city', 0, 'inputs.c'.length);
    assert.equal(await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: uris[0] }, position }), null);
    await client.change(uris[0]!, AGENT, 2);
    assert.notEqual(await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: uris[0] }, position }), null);
  });
});
