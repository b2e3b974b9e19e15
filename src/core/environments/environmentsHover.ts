// Hover for the environments file (agent-workflows.yaml): a key shows the schema's description, an
// environment's name what it stands for (origin, account, protected, default).
import { isMap } from 'yaml';
import { parseAgentFile } from '../document/parse';
import { entries, getStringScalar, getValue, spanOf } from '../document/yamlAst';
import type { HoverResult } from '../language/hover';
import { displayOrigin } from './environmentsFileName';
import { ENVIRONMENT_KEYS, TOP_KEYS } from './environmentsSchemaKeys';
import type { SchemaProperty } from './environmentsSchemaKeys';

export function environmentsHover(text: string, offset: number): HoverResult | undefined {
  const root = parseAgentFile(text).root;
  if (!root) return undefined;
  const within = (span: { start: number; end: number }): boolean => offset >= span.start && offset <= span.end;
  for (const { key, keyNode, value } of entries(root)) {
    const keySpan = spanOf(keyNode);
    if (within(keySpan)) return keyHover(TOP_KEYS[key], keySpan);
    if (key !== 'environments' || !isMap(value)) continue;
    for (const environment of entries(value)) {
      const nameSpan = spanOf(environment.keyNode);
      if (within(nameSpan))
        return isMap(environment.value) ? environmentHover(environment.key, environment.value, root, nameSpan) : undefined;
      if (!isMap(environment.value)) continue;
      for (const field of entries(environment.value)) {
        const fieldSpan = spanOf(field.keyNode);
        if (within(fieldSpan)) return keyHover(ENVIRONMENT_KEYS[field.key], fieldSpan);
      }
    }
  }
  return undefined;
}

function keyHover(property: SchemaProperty | undefined, span: { start: number; end: number }): HoverResult | undefined {
  if (!property?.description) return undefined;
  return { contents: `${property.title ? `**${property.title}**\n\n` : ''}${property.description}`, span };
}

function environmentHover(
  name: string,
  fields: Parameters<typeof getValue>[0],
  root: Parameters<typeof getValue>[0],
  span: { start: number; end: number },
): HoverResult {
  const baseUrl = getStringScalar(fields, 'baseUrl')?.value;
  const account = getStringScalar(fields, 'account')?.value;
  const isProtected = getValue(fields, 'protected')?.toJSON() === true;
  const allowsOverride = getValue(fields, 'allowAgentOverride')?.toJSON() === true;
  const isDefault = getStringScalar(root, 'default')?.value === name;
  const facts = [
    baseUrl !== undefined ? `service \`${displayOrigin(baseUrl)}\`` : 'no baseUrl',
    account !== undefined ? `account \`${account}\`` : 'no account',
    ...(isDefault ? ['the default'] : []),
    ...(isProtected
      ? [
          allowsOverride
            ? '**protected**: every run asks for confirmation; agent files may set their own service and account for it (`allowAgentOverride`)'
            : '**protected**: every run asks for confirmation, and agent files cannot change its service or account',
        ]
      : []),
  ];
  return { contents: `**Environment \`${name}\`**: ${facts.join(', ')}`, span };
}
