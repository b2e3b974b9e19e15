// The manifest (package.json) and the source agree where nothing else checks it before a user
// does: every contributed command is registered (VS Code would say "command not found"), no
// command is registered twice (activation would fail), commands the code runs exist, the context
// keys `when` clauses test are set by the code, and the settings the code reads are contributed
// with the same defaults and bounds. Read from the source text, like coreIsolation.test.ts.
// manifest.test.ts checks the manifest against itself.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { COMMANDS, COMMANDS_LOADED_ON_USE, DESKTOP_ONLY_COMMANDS } from '../../src/commandIds';
import { DEFAULT_MAX_OUTPUT_CHARS } from '../../src/core/executions/runReport';
import { DEFAULT_STATUS_PATH } from '../../src/core/service/target';
import { LANGUAGE_MODEL_TOOLS } from '../../src/languageModelTools/toolNames';
import { repoRoot } from '../support/paths';

interface Property {
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

interface Manifest {
  contributes: {
    commands: { command: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    views: Record<string, { id: string }[]>;
    viewsWelcome: { view: string; contents: string; when?: string }[];
    languages: { id: string }[];
    configuration: { properties: Record<string, Property> };
  };
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
const contributed = new Set(manifest.contributes.commands.map((entry) => entry.command));
const views = new Set(Object.values(manifest.contributes.views).flatMap((list) => list.map((view) => view.id)));
const properties = manifest.contributes.configuration.properties;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// src/lazyCommands.ts registers placeholders for COMMANDS_LOADED_ON_USE (checked below), not commands;
// src/commands/desktopOnly.ts registers, in the browser build only, the commands that say they need
// the desktop (DESKTOP_ONLY_COMMANDS, checked below).
const LAZY_PLACEHOLDERS = join('src', 'lazyCommands.ts');
const DESKTOP_ONLY = join('src', 'commands', 'desktopOnly.ts');
const sources = sourceFiles(join(repoRoot, 'src'))
  .map((path) => ({ path: relative(repoRoot, path), text: readFileSync(path, 'utf8') }))
  .filter((file) => file.path !== LAZY_PLACEHOLDERS && file.path !== DESKTOP_ONLY);

/** The source files a file imports, directly or not (relative imports only). */
function reachableFrom(path: string): Set<string> {
  const byPath = new Map(sources.map((file) => [file.path, file.text]));
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file) || !byPath.has(file)) return;
    seen.add(file);
    for (const [, target] of byPath.get(file)!.matchAll(/^import (?!type )[^;]*? from '(\.[^']+)';/gm))
      visit(join(file, '..', `${target!}.ts`));
  };
  visit(path);
  return seen;
}

/** Every `const NAME = 'text'` in src (exported or not); a name defined twice with different text is left out. */
const constants = new Map<string, string | null>();
for (const { text } of sources) {
  for (const [, name, value] of text.matchAll(/\bconst (\w+) = '([^'\\]*)'/g)) {
    constants.set(name!, constants.has(name!) && constants.get(name!) !== value ? null : value!);
  }
}

/** The string an argument stands for: a literal, COMMANDS.x, or a string constant. */
function resolve(expression: string, where: string): string {
  const source = expression.trim();
  const literal = /^(['"])(.*)\1$/.exec(source);
  if (literal) return literal[2]!;
  const command = /^COMMANDS\.(\w+)$/.exec(source);
  if (command) {
    const value = (COMMANDS as Record<string, string>)[command[1]!];
    assert.ok(value, `${where}: ${source} is not in COMMANDS`);
    return value;
  }
  const value = constants.get(source);
  assert.ok(value, `${where}: cannot tell which string ${source} is; use a literal, COMMANDS.x or a string constant`);
  return value;
}

/** The first arguments of `call(` across src, resolved, with where each is. */
function firstArguments(call: RegExp): { value: string; where: string }[] {
  return sources.flatMap(({ path, text }) =>
    [...text.matchAll(call)].map((match) => {
      const where = `${path}:${text.slice(0, match.index).split('\n').length}`;
      return { value: resolve(match[1]!, where), where };
    }),
  );
}

const registered = firstArguments(/\bregisterCommand\(\s*([^,()]+?)\s*,/g);
const registeredIds = new Set(registered.map((entry) => entry.value));
/** Commands the code registers for its own use (arguments VS Code cannot supply from a menu). */
const INTERNAL = ['agentWorkflows.storeMovedSecret'];
/** `<view id>.focus` and friends: VS Code provides them for every contributed view. */
const viewCommand = (command: string): boolean => [...views].some((view) => command === `${view}.focus`);

describe('manifest and source', () => {
  it('finds the command registrations it checks', () => {
    assert.ok(
      registered.length >= contributed.size,
      `found ${registered.length} registerCommand calls for ${contributed.size} contributed commands`,
    );
  });

  it('registers every contributed command', () => {
    assert.deepEqual(
      [...contributed].filter((command) => !registeredIds.has(command)),
      [],
    );
  });

  it('registers the commands loaded on use in the commands feature, and only there', () => {
    const feature = reachableFrom(join('src', 'commands', 'commandsFeature.ts'));
    assert.ok(feature.size > 10, `the commands feature reaches ${feature.size} files`);
    const inFeature = new Set(registered.filter((entry) => feature.has(entry.where.split(':')[0]!)).map((entry) => entry.value));
    assert.deepEqual(
      [...COMMANDS_LOADED_ON_USE].filter((id) => !inFeature.has(id)),
      [],
      'loaded on use but not registered when the feature loads',
    );
    const elsewhere = registered.filter(
      (entry) => !feature.has(entry.where.split(':')[0]!) && COMMANDS_LOADED_ON_USE.includes(entry.value),
    );
    assert.deepEqual(elsewhere, [], 'registered at activation too: VS Code refuses a command id twice');
    const activation = reachableFrom(join('src', 'extension.ts'));
    assert.deepEqual(
      [...feature].filter((file) => activation.has(file) && /src\/commands\//.test(file)),
      [],
      'activation imports no command file',
    );
  });

  it('in the browser build, registers every contributed command or says it needs the desktop', () => {
    // The browser's root, and the commands it loads on first use (src/webFeatures.ts).
    const web = new Set(
      [join('src', 'extensionWeb.ts'), join('src', 'commands', 'showGraph.ts'), join('src', 'commands', 'addApiNodeFromCurl.ts')].flatMap(
        (file) => [...reachableFrom(file)],
      ),
    );
    const inBrowser = new Set(registered.filter((entry) => web.has(entry.where.split(':')[0]!)).map((entry) => entry.value));
    const desktopOnly = Object.keys(DESKTOP_ONLY_COMMANDS);
    assert.ok(inBrowser.has(COMMANDS.showGraph) && inBrowser.has(COMMANDS.selectEnvironment), [...inBrowser].join(', '));
    assert.deepEqual(
      desktopOnly.filter((command) => inBrowser.has(command)),
      [],
      'registered by the browser build and said to need the desktop: VS Code refuses a command id twice',
    );
    assert.deepEqual(
      [...contributed].filter((command) => !inBrowser.has(command) && !desktopOnly.includes(command) && !viewCommand(command)),
      [],
      'contributed, but neither registered in the browser nor said to need the desktop',
    );
    assert.deepEqual(
      desktopOnly.filter((command) => !contributed.has(command)),
      [],
    );
  });

  it('registers each command once', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const { value, where } of registered) {
      if (seen.has(value)) twice.push(`${value} at ${seen.get(value)} and ${where}`);
      else seen.set(value, where);
    }
    assert.deepEqual(twice, []);
  });

  it('contributes every command it registers, but for the internal ones', () => {
    assert.deepEqual([...registeredIds].filter((command) => !contributed.has(command)).sort(), [...INTERNAL].sort());
    for (const command of INTERNAL)
      assert.ok(!Object.values(COMMANDS).includes(command as never), `${command} is internal, not in COMMANDS`);
  });

  it('has COMMANDS name only registered commands or the focus command of a contributed view', () => {
    for (const [name, command] of Object.entries(COMMANDS))
      assert.ok(registeredIds.has(command) || viewCommand(command), `COMMANDS.${name} = ${command}`);
  });

  it('runs, and attaches to code lenses and code actions, only extension commands that exist', () => {
    const used = [
      ...firstArguments(/\bexecuteCommand\(\s*([^,()]+?)\s*[,)]/g),
      ...firstArguments(/\bcommand(?::| =) ((?:COMMANDS\.\w+)|(?:[A-Z_]+_COMMAND)|(?:'agentWorkflows\.[^']*'))/g),
    ];
    const ours = used.filter(({ value }) => value.startsWith('agentWorkflows.'));
    assert.ok(ours.length >= 5, `found ${ours.length} uses`);
    for (const { value, where } of ours) assert.ok(registeredIds.has(value) || viewCommand(value), `${where}: ${value}`);
  });

  it('sets every extension context key that a `when` clause tests', () => {
    const set = new Set(firstArguments(/\bexecuteCommand\(\s*'setContext',\s*([^,()]+?)\s*,/g).map((entry) => entry.value));
    const clauses = [...Object.values(manifest.contributes.menus).flat(), ...manifest.contributes.viewsWelcome].map(
      (entry) => entry.when ?? '',
    );
    const keys = new Set(
      // A value compared with (`testMessage == agentWorkflows.snapshot`) is no key.
      clauses
        .flatMap((when) => [...when.matchAll(/(?<!==\s*)\bagentWorkflows\.[\w.]+/g)].map((match) => match[0]))
        .filter((key) => !views.has(key)),
    );
    assert.ok(keys.size > 0);
    assert.deepEqual(
      [...keys].filter((key) => !set.has(key)),
      [],
    );
  });

  it('names only contributed languages in `editorLangId ==` clauses', () => {
    const languages = new Set(manifest.contributes.languages.map((language) => language.id));
    for (const entry of Object.values(manifest.contributes.menus).flat()) {
      for (const match of entry.when?.matchAll(/editorLangId == ([\w-]+)/g) ?? [])
        assert.ok(languages.has(match[1]!), `${entry.command}: ${match[1]}`);
    }
  });

  describe('settings', () => {
    const config = sources.find((file) => file.path === join('src', 'config.ts'));
    const prefix = 'agentWorkflows.';
    /**
     * `config.get<T>('name', fallback)` in src/config.ts (the `http` section is read as `http.get`),
     * and `config.inspect<T>('name')?.globalValue ?? fallback` for a setting read from user settings only.
     */
    const reads = [
      ...(config?.text ?? '').matchAll(/\bconfig\.get<[^>]+>\('([\w.]+)',\s*([^)]+)\)/g),
      ...(config?.text ?? '').matchAll(/\bconfig\.inspect<[^>]+>\('([\w.]+)'\)\?\.globalValue \?\? ([^;]+);/g),
    ].map(([, name, fallback]) => ({
      name: prefix + name!,
      fallback: fallback!.trim(),
    }));
    /** `clamp(config.get<number>('name', fallback), min, max)`. */
    const clamps = [...(config?.text ?? '').matchAll(/\bclamp\(config\.get<number>\('([\w.]+)',[^)]*\),\s*([^,]+),\s*([^)]+)\)/g)].map(
      ([, name, min, max]) => ({ name: prefix + name!, min: min!.trim(), max: max!.trim() }),
    );

    function value(expression: string): unknown {
      if (/^'[^']*'$/.test(expression)) return expression.slice(1, -1);
      if (expression === 'true' || expression === 'false') return expression === 'true';
      if (expression === '[]') return [];
      if (/^[\d_.]+(?:\s*\*\s*[\d_.]+)*$/.test(expression))
        return expression.split('*').reduce((product, factor) => product * Number(factor.trim().replace(/_/g, '')), 1);
      return resolve(expression, 'src/config.ts');
    }

    it('reads every contributed setting, and only contributed ones', () => {
      assert.ok(config, 'src/config.ts');
      assert.deepEqual([...new Set(reads.map((read) => read.name))].sort(), Object.keys(properties).sort());
    });

    it('falls back to the default the manifest declares', () => {
      for (const { name, fallback } of reads) assert.deepEqual(value(fallback), properties[name]?.default, name);
    });

    it('clamps numbers to the minimum and maximum the manifest declares', () => {
      assert.ok(clamps.length > 0);
      for (const { name, min, max } of clamps) {
        assert.deepEqual([value(min), value(max)], [properties[name]?.minimum, properties[name]?.maximum], name);
      }
      const numbers = Object.entries(properties)
        .filter(([, property]) => typeof property.default === 'number')
        .map(([name]) => name);
      assert.deepEqual(clamps.map((clamp) => clamp.name).sort(), numbers.sort(), 'every number setting is clamped');
    });

    it('uses the manifest defaults where the core has its own copy', () => {
      assert.equal(properties['agentWorkflows.statusPath']?.default, DEFAULT_STATUS_PATH);
      assert.equal(properties['agentWorkflows.results.maxOutputLength']?.default, DEFAULT_MAX_OUTPUT_CHARS);
    });
  });
});

describe('language model tools wiring', () => {
  interface ToolContribution {
    name: string;
    toolReferenceName?: string;
    canBeReferencedInPrompt?: boolean;
    modelDescription?: string;
    inputSchema?: { type?: string; properties?: Record<string, unknown>; required?: string[] };
  }
  const raw = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    activationEvents: string[];
    contributes: { languageModelTools?: ToolContribution[] };
  };
  const tools = raw.contributes.languageModelTools ?? [];
  const registered = Object.values(LANGUAGE_MODEL_TOOLS);

  it('contributes each tool the code registers, and only those', () => {
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [...registered].sort());
    const registration = readFileSync(join(repoRoot, 'src', 'languageModelTools', 'registerLanguageModelTools.ts'), 'utf8');
    assert.match(registration, /for \(const name of Object\.values\(LANGUAGE_MODEL_TOOLS\)\)/);
    assert.match(registration, /vscode\.lm\.registerTool\(name, tool\)/);
    const feature = readFileSync(join(repoRoot, 'src', 'languageModelTools', 'toolsFeature.ts'), 'utf8');
    for (const key of Object.keys(LANGUAGE_MODEL_TOOLS))
      assert.ok(feature.includes(`[LANGUAGE_MODEL_TOOLS.${key},`), `toolsFeature.ts implements ${key}`);
  });

  it('activates the extension for each tool, and references each with # by a unique name', () => {
    for (const name of registered) assert.ok(raw.activationEvents.includes(`onLanguageModelTool:${name}`), name);
    const references = tools.map((tool) => tool.toolReferenceName);
    assert.equal(new Set(references).size, tools.length);
    for (const tool of tools) {
      assert.ok(tool.canBeReferencedInPrompt, tool.name);
      assert.match(tool.toolReferenceName ?? '', /^[A-Za-z][A-Za-z0-9]*$/, tool.name);
      assert.ok((tool.modelDescription ?? '').length > 40, tool.name);
      assert.equal(tool.inputSchema?.type, 'object', tool.name);
      for (const required of tool.inputSchema?.required ?? [])
        assert.ok(tool.inputSchema?.properties?.[required], `${tool.name}: ${required}`);
    }
  });

  it('takes no key or secret in any argument', () => {
    for (const tool of tools)
      for (const name of Object.keys(tool.inputSchema?.properties ?? {}))
        assert.doesNotMatch(name, /key|secret|token|password/i, `${tool.name}: ${name}`);
  });
});
