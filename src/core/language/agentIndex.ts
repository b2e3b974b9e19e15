// Everything the editor features need to know about one agent file: its declarations and every
// reference with exact source spans. Built from whatever the parser could read, so it works while
// the user is typing and the YAML is briefly broken.
import { isMap } from 'yaml';
import type { YAMLMap } from 'yaml';
import { scanExpressions } from '../document/expressions';
import type { Expression, Reference } from '../document/expressions';
import { readModel } from '../document/model';
import type { AgentModel, StringField } from '../document/model';
import { parseAgentFile } from '../document/parse';
import type { ParsedAgentFile } from '../document/parse';
import type { Span } from '../document/problems';
import { spanOf, valueSpanToSource } from '../document/yamlAst';

export type SymbolKind = 'input' | 'node';
/** What a name of an agent file declares: what expressions refer to, and outputs (which test files expect). */
export type DeclarationKind = SymbolKind | 'output';

export interface ReferenceSite {
  readonly kind: SymbolKind;
  /** The input name or node id referenced. */
  readonly name: string;
  /** Where the name is written, inside the expression. */
  readonly nameSpan: Span;
  /** The whole `{{ … }}`. */
  readonly expressionSpan: Span;
  readonly reference: Reference;
  /** The node whose settings hold the reference, or undefined for outputs. */
  readonly ownerNode?: string;
  /** The output whose `from` holds the reference. */
  readonly ownerOutput?: string;
}

export interface ExpressionSite {
  readonly field: StringField;
  readonly expression: Expression;
  readonly span: Span;
  readonly ownerNode?: string;
  readonly ownerOutput?: string;
}

export interface AgentIndex {
  readonly text: string;
  readonly file: ParsedAgentFile;
  readonly root?: YAMLMap;
  readonly model?: AgentModel;
  readonly references: readonly ReferenceSite[];
  readonly expressions: readonly ExpressionSite[];
  /** Secret names referenced in the file. */
  readonly secrets: ReadonlySet<string>;
}

export function indexAgentText(text: string): AgentIndex {
  const file = parseAgentFile(text);
  const contents = file.document?.contents;
  const root = file.root ?? (isMap(contents) ? contents : undefined);
  if (!root) return { text, file, references: [], expressions: [], secrets: new Set() };
  const model = readModel(root);
  const references: ReferenceSite[] = [];
  const expressions: ExpressionSite[] = [];
  const secrets = new Set<string>();

  const visit = (field: StringField, owner: { ownerNode?: string; ownerOutput?: string }): void => {
    for (const expression of scanExpressions(field.value)) {
      const span = valueSpanToSource(text, field.scalar, expression.start, expression.end);
      expressions.push({ field, expression, span, ...owner });
      const reference = expression.reference;
      const first = reference?.path[0];
      if (!reference || !first || typeof first.name !== 'string') continue;
      if (reference.root === 'secrets') {
        secrets.add(first.name);
      } else if (reference.root === 'inputs' || reference.root === 'nodes') {
        references.push({
          kind: reference.root === 'inputs' ? 'input' : 'node',
          name: first.name,
          nameSpan: valueSpanToSource(text, field.scalar, first.start, first.end),
          expressionSpan: span,
          reference,
          ...owner,
        });
      }
    }
  };
  for (const node of model.nodes.values()) for (const field of node.evaluated) visit(field, { ownerNode: node.id });
  for (const output of model.outputs.values()) if (output.from) visit(output.from, { ownerOutput: output.name });
  return { text, file, root, model, references, expressions, secrets };
}

/** The declaration key of an input, node or output. */
export function declarationSpan(index: AgentIndex, kind: DeclarationKind, name: string): Span | undefined {
  const declaration =
    kind === 'input' ? index.model?.inputs.get(name) : kind === 'node' ? index.model?.nodes.get(name) : index.model?.outputs.get(name);
  return declaration ? spanOf(declaration.keyNode) : undefined;
}

/** The symbol under the cursor: a declaration key (of an input, node or output) or a reference's name. */
export function symbolAt(index: AgentIndex, offset: number): { kind: DeclarationKind; name: string; span: Span } | undefined {
  for (const site of index.references) {
    if (contains(site.nameSpan, offset)) return { kind: site.kind, name: site.name, span: site.nameSpan };
  }
  for (const input of index.model?.inputs.values() ?? []) {
    const span = spanOf(input.keyNode);
    if (contains(span, offset)) return { kind: 'input', name: input.name, span };
  }
  for (const node of index.model?.nodes.values() ?? []) {
    const span = spanOf(node.keyNode);
    if (contains(span, offset)) return { kind: 'node', name: node.id, span };
  }
  for (const output of index.model?.outputs.values() ?? []) {
    const span = spanOf(output.keyNode);
    if (contains(span, offset)) return { kind: 'output', name: output.name, span };
  }
  return undefined;
}

/** Node ids that depend on `id`, directly or through other nodes (using one would make a cycle). */
export function dependentsOf(index: AgentIndex, id: string): Set<string> {
  const dependents = new Map<string, Set<string>>();
  for (const site of index.references) {
    if (site.kind !== 'node' || site.ownerNode === undefined) continue;
    let set = dependents.get(site.name);
    if (!set) dependents.set(site.name, (set = new Set()));
    set.add(site.ownerNode);
  }
  const found = new Set<string>();
  const queue = [id];
  while (queue.length > 0) {
    for (const next of dependents.get(queue.pop()!) ?? []) {
      if (!found.has(next)) {
        found.add(next);
        queue.push(next);
      }
    }
  }
  return found;
}

/** True when offset is inside the span or at its end (where the cursor sits after typing). */
export function contains(span: Span, offset: number): boolean {
  return offset >= span.start && offset <= span.end;
}
