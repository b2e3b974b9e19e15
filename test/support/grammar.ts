// Tokenizes text with the extension's TextMate grammar, as VS Code does (vscode-textmate with
// the Oniguruma engine), for tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import { repoRoot } from './paths';

export interface Token {
  readonly line: number;
  readonly text: string;
  readonly scopes: readonly string[];
}

let grammarPromise: Promise<textmate.IGrammar> | undefined;

function loadGrammar(): Promise<textmate.IGrammar> {
  grammarPromise ??= (async () => {
    const wasm = readFileSync(join(repoRoot, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer);
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (text: string) => new oniguruma.OnigString(text),
      }),
      loadGrammar: async (scopeName: string) => {
        if (scopeName !== 'source.agent-yaml') return null;
        const path = join(repoRoot, 'syntaxes', 'agent-yaml.tmLanguage.json');
        return textmate.parseRawGrammar(readFileSync(path, 'utf8'), path);
      },
    });
    const grammar = await registry.loadGrammar('source.agent-yaml');
    if (!grammar) throw new Error('the agent-yaml grammar did not load');
    return grammar;
  })();
  return grammarPromise;
}

export async function tokenize(text: string): Promise<Token[]> {
  const grammar = await loadGrammar();
  const tokens: Token[] = [];
  let state = textmate.INITIAL;
  text.split('\n').forEach((line, index) => {
    const result = grammar.tokenizeLine(line, state);
    for (const token of result.tokens) {
      tokens.push({ line: index + 1, text: line.slice(token.startIndex, token.endIndex), scopes: token.scopes });
    }
    state = result.ruleStack;
  });
  return tokens;
}

/** The scopes of the token(s) covering `text` on a line (1-based); the innermost scope of each. */
export function scopesOf(tokens: readonly Token[], line: number, text: string): string[] {
  const onLine = tokens.filter((token) => token.line === line);
  const joined = onLine.map((token) => token.text).join('');
  const start = joined.indexOf(text);
  if (start === -1) throw new Error(`"${text}" is not on line ${line}: ${joined}`);
  const found: string[] = [];
  let at = 0;
  for (const token of onLine) {
    const end = at + token.text.length;
    if (end > start && at < start + text.length) found.push(token.scopes.join(' '));
    at = end;
  }
  return found;
}
