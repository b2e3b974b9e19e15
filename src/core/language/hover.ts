// Hover for agent files: header strings and credentials, references, declarations and keys.
import { isMap, isScalar } from 'yaml';
import type { Node as YamlNode, Scalar } from 'yaml';
import { scanExpressions } from '../document/expressions';
import { base64Error, decodeBase64Text, parseHeaderString } from '../document/headers';
import type { InputDeclaration, NodeDeclaration } from '../document/model';
import type { Span } from '../document/problems';
import { entries, spanOf, valueSpanToSource } from '../document/yamlAst';
import { contains, indexAgentText } from './agentIndex';
import type { AgentIndex, SymbolKind } from './agentIndex';
import { AUTH_SCHEMES, headerInfo, keyDescription } from './knowledge';

export interface HoverResult {
  /** Markdown. */
  readonly contents: string;
  readonly span: Span;
}

export function hover(text: string, offset: number): HoverResult | undefined {
  const index = indexAgentText(text);
  return (
    referenceHover(index, offset) ??
    headerHover(index, offset) ??
    urlKeyHover(index, offset) ??
    declarationHover(index, offset) ??
    keyHover(index, offset)
  );
}

function referenceHover(index: AgentIndex, offset: number): HoverResult | undefined {
  for (const site of index.expressions) {
    if (!contains(site.span, offset)) continue;
    const reference = site.expression.reference;
    const first = reference?.path[0];
    if (!reference || !first) return undefined;
    if (reference.root === 'secrets') {
      const name = String(first.name);
      return {
        contents: `**Secret \`${name}\`**\n\nNever written in the file. In VS Code it comes from the secret storage; on the command line and the local server from the environment variable \`AGENT_SECRET_${name}\`.`,
        span: site.span,
      };
    }
    if (reference.root === 'inputs') {
      const input = index.model?.inputs.get(String(first.name));
      if (!input) return { contents: `There is no input \`${String(first.name)}\`.`, span: site.span };
      return { contents: describeInput(input), span: site.span };
    }
    if (reference.root === 'nodes') {
      const node = index.model?.nodes.get(String(first.name));
      if (!node) return { contents: `There is no node \`${String(first.name)}\`.`, span: site.span };
      const field = reference.path[1]?.name;
      return {
        contents: `${describeNode(node)}${
          field !== undefined
            ? `\n\nReads its \`${String(field)}\`${
                reference.path.length > 2
                  ? ` at \`${reference.path
                      .slice(2)
                      .map((p) => p.name)
                      .join('.')}\``
                  : ''
              }.`
            : ''
        }`,
        span: site.span,
      };
    }
    return undefined;
  }
  return undefined;
}

/** An input's declaration in words: type, required, default, values, description (Markdown). */
export function describeInput(input: InputDeclaration): string {
  const facts = [`type \`${input.type ?? '?'}\``, input.required ? 'required' : 'optional'];
  if (input.default !== undefined) facts.push(`default \`${JSON.stringify(input.default)}\``);
  if (input.enum) facts.push(`one of ${input.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  return `**Input \`${input.name}\`**: ${facts.join(', ')}${input.description ? `\n\n${input.description}` : ''}`;
}

/** A node's declaration in words: its kind, request or text, header strings (credentials hidden) (Markdown). */
export function describeNode(node: NodeDeclaration): string {
  if (node.type === 'api') {
    const lines = [`**Node \`${node.id}\`**: API node, \`${node.method ?? '?'} ${node.url?.value ?? '?'}\``];
    if (node.settings.length) lines.push('', ...node.settings.map((setting) => `- \`${redactHeader(setting.value)}\``));
    if (node.description) lines.push('', node.description);
    return lines.join('\n');
  }
  if (node.type === 'template')
    return `**Node \`${node.id}\`**: template node${node.text ? `, renders \`${truncate(node.text.value, 80)}\`` : ''}${node.description ? `\n\n${node.description}` : ''}`;
  return `**Node \`${node.id}\`**${node.type ? ` (type \`${node.type}\`)` : ''}`;
}

/** A header string for display: a literal credential is not shown. */
function redactHeader(raw: string): string {
  const header = parseHeaderString(raw);
  if (!header) return raw;
  const lower = header.name.trim().toLowerCase();
  if (!['authorization', 'proxy-authorization', 'x-api-key', 'api-key'].includes(lower) || header.value.includes('{{')) return raw;
  const scheme = /^(\S+)\s/.exec(header.value)?.[1];
  return `${header.name.trim()}: ${scheme && lower.endsWith('authorization') ? `${scheme} ` : ''}•••`;
}

function headerHover(index: AgentIndex, offset: number): HoverResult | undefined {
  for (const node of index.model?.nodes.values() ?? []) {
    for (const field of node.settings) {
      const whole = spanOf(field.scalar);
      if (!contains(whole, offset)) continue;
      const header = parseHeaderString(field.value);
      if (!header) return { contents: 'A header string is `Name: value`, e.g. `Accept: application/json`.', span: whole };
      const nameSpan = valueSpanToSource(index.text, field.scalar, header.nameStart, header.nameEnd);
      const valueSpan = valueSpanToSource(index.text, field.scalar, header.valueStart, header.valueEnd);
      const name = header.name.trim();
      const info = headerInfo(name);
      if (offset <= nameSpan.end + 1 || offset < valueSpan.start) {
        return { contents: `**${name}**\n\n${info?.description ?? 'An HTTP request header sent by this node.'}`, span: nameSpan };
      }
      return {
        contents: credentialHover(header.name.trim(), header.value) ?? `**${name}**: ${info?.description ?? 'an HTTP request header.'}`,
        span: valueSpan,
      };
    }
  }
  return undefined;
}

function credentialHover(name: string, value: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower === 'x-api-key' || lower === 'api-key') {
    return '**API key in a header** (`x-api-key`): the service reads the key from this header on every request. Keep it in a secret: `x-api-key: {{ secrets.API_KEY }}`.';
  }
  if (lower !== 'authorization' && lower !== 'proxy-authorization') return undefined;
  const [scheme = '', ...rest] = value.split(/\s+/);
  const credentials = rest.join(' ');
  const known = AUTH_SCHEMES.find((s) => s.name.toLowerCase() === scheme.toLowerCase());
  if (!known) return `**${name}** with scheme \`${scheme}\`.`;
  if (known.name === 'Bearer') return `**Bearer token** (OAuth 2.0): ${known.description}`;
  // Basic: say what the value decodes to, never the password.
  let decoded: string;
  if (credentials.includes('{{')) {
    decoded =
      scanExpressions(credentials).length === 1 && credentials.trim().startsWith('{{')
        ? 'The secret must hold the Base64 of `user:password`.'
        : 'Basic sends the Base64 of `user:password`; keep the whole encoded value in one secret.';
  } else if (credentials === '') {
    decoded = 'No credentials yet.';
  } else {
    const error = base64Error(credentials);
    const text = error ? undefined : decodeBase64Text(credentials);
    if (error) decoded = `Not valid Base64: ${error}.`;
    else if (text === undefined) decoded = 'Decodes to binary data, not to `user:password`.';
    else if (!text.includes(':')) decoded = 'Decodes to text without `:`, so not `user:password`.';
    else decoded = `Decodes to user \`${text.slice(0, text.indexOf(':'))}\` (password not shown).`;
  }
  return `**Basic authentication**: ${known.description}\n\n${decoded}`;
}

function urlKeyHover(index: AgentIndex, offset: number): HoverResult | undefined {
  for (const node of index.model?.nodes.values() ?? []) {
    const url = node.url;
    if (!url || !contains(spanOf(url.scalar), offset)) continue;
    const match = /[?&](api_key|apikey|api-key)=/i.exec(url.value);
    if (!match) return undefined;
    const span = valueSpanToSource(index.text, url.scalar, match.index + 1, match.index + 1 + match[1]!.length);
    if (!contains(span, offset)) return undefined;
    return {
      contents: `**API key in the URL** (\`${match[1]}\`): the API reads the key from the query string. Meant for GET requests; for other methods send it as \`x-api-key\`. Keep it in a secret: \`${match[1]}={{ secrets.API_KEY }}\`.`,
      span,
    };
  }
  return undefined;
}

function declarationHover(index: AgentIndex, offset: number): HoverResult | undefined {
  const check = (kind: SymbolKind, name: string, keyNode: Scalar): HoverResult | undefined => {
    const span = spanOf(keyNode);
    if (!contains(span, offset)) return undefined;
    const uses = index.references.filter((site) => site.kind === kind && site.name === name);
    const users = [...new Set(uses.map(userOf))];
    const what = kind === 'input' ? `Input \`${name}\`` : `Node \`${name}\``;
    return {
      contents: users.length ? `**${what}** is used by ${users.join(', ')}.` : `**${what}** is not used by any node or output.`,
      span,
    };
  };
  for (const input of index.model?.inputs.values() ?? []) {
    const found = check('input', input.name, input.keyNode);
    if (found) return found;
  }
  for (const node of index.model?.nodes.values() ?? []) {
    const found = check('node', node.id, node.keyNode);
    if (found) return found;
  }
  return undefined;
}

/** A key of the format: its description from the schema. */
function keyHover(index: AgentIndex, offset: number): HoverResult | undefined {
  if (!index.root) return undefined;
  const visit = (map: YamlNode | null | undefined, path: string[]): HoverResult | undefined => {
    if (!isMap(map)) return undefined;
    for (const { key, keyNode, value } of entries(map)) {
      const span = spanOf(keyNode);
      if (contains(span, offset) && isScalar(keyNode)) {
        const nodeType = path[0] === 'nodes' && path.length === 2 ? index.model?.nodes.get(path[1]!)?.type : undefined;
        const description = keyDescription(path, key, nodeType);
        return description ? { contents: `**${key}**\n\n${description}`, span } : undefined;
      }
      const inside = value?.range && offset >= value.range[0] && offset <= value.range[1];
      if (inside) return visit(value, [...path, key]);
    }
    return undefined;
  };
  return visit(index.root, []);
}

/** The node or output an expression belongs to, in words. */
export function userOf(site: { readonly ownerNode?: string; readonly ownerOutput?: string }): string {
  return site.ownerNode !== undefined ? `node \`${site.ownerNode}\`` : `output \`${site.ownerOutput ?? '?'}\``;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
