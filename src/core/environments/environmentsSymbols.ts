// The outline of the environments file (agent-workflows.yaml): the default, and each environment
// with its origin, account and whether it is protected.
import { isMap, isScalar } from 'yaml';
import type { YAMLMap } from 'yaml';
import { entrySymbol } from '../document/outlineSymbol';
import type { OutlineSymbol } from '../document/outlineSymbol';
import { parseAgentFile } from '../document/parse';
import { countWords } from '../document/suggest';
import { entries, getStringScalar, getValue } from '../document/yamlAst';
import { displayOrigin } from './environmentsFileName';

export function environmentsSymbols(text: string): OutlineSymbol[] {
  const root = parseAgentFile(text, 'environments').root;
  if (!root) return [];
  const symbols: OutlineSymbol[] = [];
  for (const { key, keyNode, value } of entries(root)) {
    if (key === 'environments' && isMap(value)) {
      const environments = [...entries(value)].map((environment) =>
        entrySymbol(
          text,
          { name: environment.key, kind: 'environment', detail: isMap(environment.value) ? environmentDetail(environment.value) : '' },
          environment.keyNode,
          environment.value,
        ),
      );
      symbols.push(
        entrySymbol(
          text,
          { name: key, kind: 'section', detail: countWords(environments.length, 'environment') },
          keyNode,
          value,
          environments,
        ),
      );
    } else {
      const detail = isScalar(value) && value.value !== null ? String(value.value) : '';
      symbols.push(entrySymbol(text, { name: key, kind: 'field', detail }, keyNode, value));
    }
  }
  return symbols;
}

/** "https://api.example.com · acme · protected". */
function environmentDetail(fields: YAMLMap): string {
  const baseUrl = getStringScalar(fields, 'baseUrl')?.value;
  const account = getStringScalar(fields, 'account')?.value;
  const protectedValue = getValue(fields, 'protected');
  const isProtected = isScalar(protectedValue) && protectedValue.value === true;
  return [baseUrl !== undefined ? displayOrigin(baseUrl) : undefined, account, isProtected ? 'protected' : undefined]
    .filter((part) => part !== undefined && part !== '')
    .join(' · ');
}
