// Completion for the environments file (agent-workflows.yaml): the keys at each level, with the
// schema's descriptions, and the declared environment names after "default:". Read from the lines
// around the cursor like agent file completion (cursorContext), so it works while the YAML is
// incomplete; the VS Code side turns the entries into CompletionItems like the agent file's.
import { isMap } from 'yaml';
import { parseAgentFile } from '../document/parse';
import { entries, getValue } from '../document/yamlAst';
import { keysPresent } from '../language/completion';
import type { CompletionEntry, CompletionResult } from '../language/completion';
import { cursorContext } from '../language/cursorContext';
import { ENVIRONMENT_KEYS, REQUIRED_ENVIRONMENT_KEYS, TOP_KEYS } from './environmentsSchemaKeys';

/** What to insert after each key: the line's start of its value. */
const KEY_INSERTS: Record<string, string> = {
  default: 'default: ',
  environments: 'environments:\n  ',
  baseUrl: 'baseUrl: ',
  account: 'account: ',
  statusPath: "statusPath: '{baseUrl}/api/{account}/agent/{executionId}/status'",
  protected: 'protected: true',
  allowAgentOverride: 'allowAgentOverride: true',
};

export function environmentsCompletions(text: string, offset: number): CompletionResult {
  const context = cursorContext(text, offset);
  const none: CompletionResult = { items: [], replace: { start: offset, end: offset } };
  if (context.kind === 'key') {
    const path = context.path;
    const keys = path.length === 0 ? TOP_KEYS : path.length === 2 && path[0] === 'environments' ? ENVIRONMENT_KEYS : undefined;
    if (!keys) return none;
    // Without the word being typed, which would make the YAML broken (or be a key itself).
    const present = keysPresent(text.slice(0, context.partial.start) + text.slice(context.partial.end), path);
    const items = Object.entries(keys)
      .filter(([key]) => !present.has(key))
      .map(([key, property]): CompletionEntry => {
        const required = path.length === 2 && REQUIRED_ENVIRONMENT_KEYS.includes(key);
        return {
          label: key,
          kind: 'property',
          insertText: KEY_INSERTS[key] ?? `${key}: `,
          ...(property.title ? { detail: `${property.title}${required ? ' (required)' : ''}` } : {}),
          ...(property.description ? { documentation: property.description } : {}),
          sortText: `${required ? 0 : 1}${key}`,
        };
      });
    return { items, replace: context.partial };
  }
  if (context.kind === 'value') {
    if (context.path.length === 0 && context.key === 'default') {
      const items = declaredNames(text).map((name): CompletionEntry => ({
        label: name,
        kind: 'value',
        insertText: name,
        detail: 'Environment',
      }));
      return { items, replace: context.partial };
    }
    const key = context.key;
    if (context.path.length === 2 && context.path[0] === 'environments' && (key === 'protected' || key === 'allowAgentOverride')) {
      const items = ['true', 'false'].map((value): CompletionEntry => ({
        label: value,
        kind: 'value',
        insertText: value,
        ...(value === 'true' ? { documentation: ENVIRONMENT_KEYS[key]?.description ?? '' } : {}),
      }));
      return { items, replace: context.partial };
    }
  }
  return none;
}

/** The environment names the file declares, in its order (the YAML as far as it parses). */
function declaredNames(text: string): string[] {
  const root = parseAgentFile(text).root;
  const environments = root ? getValue(root, 'environments') : undefined;
  return isMap(environments) ? [...entries(environments)].map((entry) => entry.key) : [];
}
