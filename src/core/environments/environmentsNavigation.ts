// Go to Definition, references and rename of environment names in the environments file
// (agent-workflows.yaml): an environment is declared by its key under `environments:`, named by
// `default:`, and by the keys of the `deployment.environments` overrides of the agent files the
// file applies to. Which agent files those are (the file is the nearest above them) is the
// caller's to say: it knows how to list and read files.
import { isMap } from 'yaml';
import { parseAgentFile } from '../document/parse';
import type { Span } from '../document/problems';
import { entries, getStringScalar, getValue, spanOf } from '../document/yamlAst';
import { insideQuotes, RenameError } from '../language/navigation';
import type { FileEdits, FileSpan, FileText, TextEdit } from '../language/quickFixes';
import { ENVIRONMENT_NAME } from './environmentsFile';

interface EnvironmentNames {
  /** Each declared environment's key, by name (the first of a name written twice). */
  readonly declarations: ReadonlyMap<string, Span>;
  /** The value of `default:`, when it is a string. */
  readonly defaultName?: { readonly name: string; readonly span: Span };
}

function environmentNames(text: string): EnvironmentNames | undefined {
  const { root } = parseAgentFile(text, 'environments');
  if (!root) return undefined;
  const declarations = new Map<string, Span>();
  const environments = getValue(root, 'environments');
  if (isMap(environments)) {
    for (const { key, keyNode } of entries(environments)) {
      if (!declarations.has(key)) declarations.set(key, insideQuotes(text, spanOf(keyNode)));
    }
  }
  const defaultNode = getStringScalar(root, 'default');
  return {
    declarations,
    ...(defaultNode ? { defaultName: { name: defaultNode.value, span: insideQuotes(text, spanOf(defaultNode)) } } : {}),
  };
}

const within = (span: Span, offset: number): boolean => offset >= span.start && offset <= span.end;

/** The environment name at an offset (an environment's key or the default's value), with the file's names. */
function nameAt(text: string, offset: number): { names: EnvironmentNames; name: string; span: Span } | undefined {
  const names = environmentNames(text);
  if (!names) return undefined;
  if (names.defaultName && within(names.defaultName.span, offset)) return { names, ...names.defaultName };
  for (const [name, span] of names.declarations) if (within(span, offset)) return { names, name, span };
  return undefined;
}

/** Where an environment is written: its declaration (when asked and declared) and the default naming it. */
function spansOf(names: EnvironmentNames, name: string, includeDeclaration: boolean): Span[] {
  const declaration = includeDeclaration ? names.declarations.get(name) : undefined;
  const uses = names.defaultName?.name === name ? [names.defaultName.span] : [];
  return declaration ? [declaration, ...uses] : uses;
}

/** The declaration of the environment named at the offset. */
export function environmentsDefinition(text: string, offset: number): Span | undefined {
  const at = nameAt(text, offset);
  return at?.names.declarations.get(at.name);
}

export function environmentsReferences(text: string, offset: number, includeDeclaration: boolean): Span[] {
  const at = nameAt(text, offset);
  return at ? spansOf(at.names, at.name, includeDeclaration) : [];
}

const NOT_RENAMABLE = 'Only environment names can be renamed here.';

export function prepareEnvironmentRename(text: string, offset: number): { span: Span; name: string } {
  const at = nameAt(text, offset);
  if (!at) throw new RenameError(NOT_RENAMABLE);
  if (!at.names.declarations.has(at.name)) throw new RenameError(`There is no environment "${at.name}" to rename.`);
  return { span: at.span, name: at.name };
}

/** Edits that rename an environment at its declaration and where `default:` names it. */
export function renameEnvironment(text: string, offset: number, newName: string): TextEdit[] {
  return renameEdits(nameAt(text, offset), newName);
}

function renameEdits(at: ReturnType<typeof nameAt>, newName: string): TextEdit[] {
  if (!at) throw new RenameError(NOT_RENAMABLE);
  if (!ENVIRONMENT_NAME.test(newName))
    throw new RenameError(`"${newName}" is not a valid environment name: up to 64 letters, digits, "_" and "-", starting with a letter.`);
  if (newName !== at.name && at.names.declarations.has(newName)) throw new RenameError(`There is already an environment "${newName}".`);
  return spansOf(at.names, at.name, true).map((span) => ({ span, newText: newName }));
}

/** The keys of an agent file's `deployment.environments` overrides, by name (inside their quotes). */
function overridesOf(agentText: string): Map<string, Span[]> {
  const overrides = new Map<string, Span[]>();
  const { root } = parseAgentFile(agentText);
  const deployment = root ? getValue(root, 'deployment') : undefined;
  const environments = isMap(deployment) ? getValue(deployment, 'environments') : undefined;
  if (!isMap(environments)) return overrides;
  for (const { key, keyNode } of entries(environments)) {
    const spans = overrides.get(key) ?? [];
    spans.push(insideQuotes(agentText, spanOf(keyNode)));
    overrides.set(key, spans);
  }
  return overrides;
}

/**
 * References of the environment named at the offset of the environments file: in the file (see
 * environmentsReferences) and in the overrides of the agent files it applies to.
 */
export function environmentReferencesAcross(
  environments: FileText,
  offset: number,
  includeDeclaration: boolean,
  agents: readonly FileText[],
): FileSpan[] {
  const at = nameAt(environments.text, offset);
  if (!at) return [];
  const found: FileSpan[] = spansOf(at.names, at.name, includeDeclaration).map((span) => ({ path: environments.path, span }));
  for (const agent of agents) for (const span of overridesOf(agent.text).get(at.name) ?? []) found.push({ path: agent.path, span });
  return found;
}

/**
 * Renames the environment named at the offset of the environments file there (see
 * renameEnvironment) and in the overrides of the agent files it applies to. Refused when an agent
 * file already overrides the new name: the two overrides would become one key written twice.
 */
export function renameEnvironmentAcross(environments: FileText, offset: number, newName: string, agents: readonly FileText[]): FileEdits[] {
  const at = nameAt(environments.text, offset);
  const changes: FileEdits[] = [{ path: environments.path, edits: renameEdits(at, newName) }];
  if (!at || newName === at.name) return changes;
  for (const agent of agents) {
    const overrides = overridesOf(agent.text);
    const spans = overrides.get(at.name);
    if (!spans) continue;
    if (overrides.has(newName))
      throw new RenameError(
        `The agent file ${agent.path.split(/[\\/]/).pop() ?? agent.path} overrides both "${at.name}" and "${newName}" under deployment.environments: merge or remove one of them first.`,
      );
    changes.push({ path: agent.path, edits: spans.map((span) => ({ span, newText: newName })) });
  }
  return changes;
}
