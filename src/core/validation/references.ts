// Expressions and what they reference: unknown inputs and nodes, bad paths, secret names, cycles,
// outputs and inputs that nothing uses.
import { findCycles, cyclePath } from '../graph/graph';
import { EXPRESSION_ROOTS, NODE_RESULT_FIELDS, SECRET_NAME, scanExpressions } from '../document/expressions';
import type { Expression, Reference } from '../document/expressions';
import type { AgentModel, StringField } from '../document/model';
import type { ProblemSink } from '../document/problemSink';
import { closestMatch, listSomeWords, listWords, NameSuggester } from '../document/suggest';
import { spanOf, valueSpanToSource } from '../document/yamlAst';

/** A reference found in a string, with the string it was found in. */
export interface FoundReference {
  readonly field: StringField;
  readonly expression: Expression;
  readonly reference: Reference;
}

export interface ReferenceIndex {
  /** For each node id, the node ids it references (its dependencies). */
  readonly dependencies: ReadonlyMap<string, ReadonlySet<string>>;
  /** Input names referenced anywhere. */
  readonly usedInputs: ReadonlySet<string>;
}

export function checkReferences(model: AgentModel, text: string, sink: ProblemSink): ReferenceIndex {
  const dependencies = new Map<string, Set<string>>();
  const usedInputs = new Set<string>();
  const names: Suggesters = { inputs: new NameSuggester(model.inputs.keys()), nodes: new NameSuggester(model.nodes.keys()) };

  const visit = (field: StringField, ownerNode: string | undefined): Expression[] => {
    const expressions = scanExpressions(field.value);
    const at = (start: number, end: number) => valueSpanToSource(text, field.scalar, start, end);
    for (const expression of expressions) {
      if (sink.full) break;
      if (expression.error || !expression.reference) {
        // The inputs it names count as used: "unused" would mislead while the expression is broken.
        for (const match of expression.inner.matchAll(INPUT_MENTION)) usedInputs.add(match[1]!);
        sink.add('expression-syntax', at(expression.start, expression.end), expression.error ?? 'This expression cannot be read.');
        continue;
      }
      const found = checkReference(model, expression.reference, at, sink, names);
      if (found?.kind === 'input') usedInputs.add(found.name);
      if (found?.kind === 'node' && ownerNode !== undefined) {
        let set = dependencies.get(ownerNode);
        if (!set) dependencies.set(ownerNode, (set = new Set()));
        set.add(found.name);
      }
    }
    return expressions;
  };

  for (const node of model.nodes.values()) {
    dependencies.set(node.id, dependencies.get(node.id) ?? new Set());
    for (const field of node.evaluated) visit(field, node.id);
  }
  for (const output of model.outputs.values()) {
    if (sink.full) break;
    if (!output.from) continue;
    const expressions = visit(output.from, undefined);
    // Only secrets, or nothing at all: a broken reference is reported on its own instead.
    if (!expressions.some((e) => e.error || (e.reference && e.reference.root !== 'secrets'))) {
      sink.add(
        'output-without-reference',
        spanOf(output.from.scalar),
        `Output "${output.name}" references no input or node, so it is always this fixed text. Use an expression such as "{{ nodes.ID.body }}" or "{{ inputs.NAME }}".`,
      );
    }
  }

  for (const members of sink.full ? [] : findCycles(dependencies)) {
    const memberSet = new Set(members);
    // One circle through the component; its members are told that circle from their own place, so
    // a circle of thousands of nodes costs one search, not one per node.
    const circle = cyclePath(members[0]!, memberSet, dependencies).slice(0, -1);
    const onCircle = new Map(circle.map((id, index) => [id, index]));
    let searches = 0;
    for (const id of members) {
      if (sink.full) break;
      const node = model.nodes.get(id);
      if (!node) continue;
      const index = onCircle.get(id);
      // On the circle, the member's own path is the circle turned to start at it: read in place, as
      // copying the circle for each member was quadratic in its length.
      const path: PathView | undefined =
        index !== undefined
          ? circleFrom(circle, index)
          : searches++ < MAX_CYCLE_SEARCHES
            ? pathView(cyclePath(id, memberSet, dependencies))
            : undefined;
      sink.add(
        'cycle',
        spanOf(node.keyNode),
        path?.length === 2
          ? `Node "${id}" references itself, so it could never run. A node can only use the results of other nodes.`
          : `Nodes depend on each other in a circle: ${path ? shortPath(path) : `${id} → … → ${id}, through ${shortPath(circleFrom(circle, 0))}`}. A node runs after every node it references, so remove one of these references.`,
      );
    }
  }

  for (const input of model.inputs.values()) {
    if (sink.full) break;
    if (!usedInputs.has(input.name)) {
      sink.add(
        'unused-input',
        spanOf(input.keyNode),
        `Input "${input.name}" is not used by any node or output. Reference it as {{ inputs.${input.name} }} or remove it.`,
      );
    }
  }
  return { dependencies, usedInputs };
}

/** "inputs.NAME" in the text of an expression that cannot be read. */
const INPUT_MENTION = /\binputs\s*\.\s*([A-Za-z_][A-Za-z0-9_-]*)/g;

/** How many members of one circle off its main path get a path of their own. */
const MAX_CYCLE_SEARCHES = 20;

/** A path of node ids, read by position (a circle turned to start anywhere is read in place). */
interface PathView {
  readonly length: number;
  at(index: number): string;
}

function pathView(path: readonly string[]): PathView {
  return { length: path.length, at: (index) => path[index]! };
}

/** The circle turned to start at its member at `index`, and back to it. */
function circleFrom(circle: readonly string[], index: number): PathView {
  return { length: circle.length + 1, at: (i) => circle[(index + i) % circle.length]! };
}

/** A path for a message: "a → b → c", with the middle left out when it is long. */
function shortPath(path: PathView): string {
  const part = (from: number, to: number): string => {
    const ids: string[] = [];
    for (let index = from; index < to; index++) ids.push(path.at(index));
    return ids.join(' → ');
  };
  if (path.length <= 8) return part(0, path.length);
  return `${part(0, 4)} → … (${path.length - 7} more) → ${part(path.length - 3, path.length)}`;
}

interface Suggesters {
  readonly inputs: NameSuggester;
  readonly nodes: NameSuggester;
}

function checkReference(
  model: AgentModel,
  reference: Reference,
  at: (start: number, end: number) => { start: number; end: number },
  sink: ProblemSink,
  names: Suggesters,
): { kind: 'input' | 'node'; name: string } | undefined {
  const { root, path } = reference;
  // Spans are computed only for problems: mapping offsets costs more than the checks themselves.
  const rootSpan = () => at(reference.rootStart, reference.rootEnd);
  if (!(EXPRESSION_ROOTS as readonly string[]).includes(root)) {
    const suggestion = closestMatch(root, EXPRESSION_ROOTS);
    sink.add(
      'unknown-expression-root',
      rootSpan(),
      `"${root}" is not something an expression can read; start with ${listWords([...EXPRESSION_ROOTS])}.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
      suggestion ? { data: { replacement: suggestion } } : {},
    );
    return undefined;
  }
  const first = path[0];
  if (!first || typeof first.name !== 'string') {
    const example = root === 'inputs' ? 'inputs.NAME' : root === 'nodes' ? 'nodes.ID.body' : 'secrets.NAME';
    sink.add('expression-syntax', rootSpan(), `"${root}" needs a name after it, e.g. {{ ${example} }}.`);
    return undefined;
  }
  const name = first.name;
  const nameSpan = () => at(first.start, first.end);

  if (root === 'inputs') {
    if (!model.inputs.has(name)) {
      const suggestion = names.inputs.suggest(name);
      sink.add(
        'unknown-input',
        nameSpan(),
        `There is no input "${name}".${suggestion ? ` Did you mean "${suggestion}"?` : model.inputs.size ? ` The inputs are ${listSomeWords(model.inputs.keys(), model.inputs.size, 'and')}.` : ''} Declare it under "inputs:" to use it.`,
        suggestion ? { data: { replacement: suggestion } } : {},
      );
      return undefined;
    }
    return { kind: 'input', name };
  }

  if (root === 'secrets') {
    if (!SECRET_NAME.test(name) || path.length > 1) {
      sink.add(
        'invalid-secret-name',
        at(first.start, path[path.length - 1]!.end),
        `"${path.map((p) => p.name).join('.')}" is not a secret name: a secret is one name of letters, digits and "_" (it is also read from the environment as AGENT_SECRET_<NAME>), e.g. {{ secrets.API_TOKEN }}.`,
      );
    }
    return undefined;
  }

  // nodes
  const node = model.nodes.get(name);
  if (!node) {
    const suggestion = names.nodes.suggest(name);
    sink.add(
      'unknown-node',
      nameSpan(),
      `There is no node "${name}".${suggestion ? ` Did you mean "${suggestion}"?` : model.nodes.size ? ` The nodes are ${listSomeWords(model.nodes.keys(), model.nodes.size, 'and')}.` : ''}`,
      suggestion ? { data: { replacement: suggestion } } : {},
    );
    return undefined;
  }
  const field = path[1];
  if (!field) {
    sink.add(
      'invalid-node-field',
      nameSpan(),
      `Say which part of node "${name}" to use: {{ nodes.${name}.body }}, {{ nodes.${name}.status }} or {{ nodes.${name}.headers.NAME }}.`,
      { data: { replacement: `${name}.body` } },
    );
    return { kind: 'node', name };
  }
  const fieldName = String(field.name);
  if (!(NODE_RESULT_FIELDS as readonly string[]).includes(fieldName)) {
    const suggestion = closestMatch(fieldName, NODE_RESULT_FIELDS);
    sink.add(
      'invalid-node-field',
      at(field.start, field.end),
      `A node result has body, status and headers, not "${fieldName}".${suggestion ? ` Did you mean "${suggestion}"?` : ` To read a field of the response, write {{ nodes.${name}.body.${fieldName} }}.`}`,
      { data: { replacement: suggestion ?? `body.${fieldName}` } },
    );
  } else if (node.type === 'template' && fieldName !== 'body') {
    sink.add(
      'invalid-node-field',
      at(field.start, field.end),
      `Node "${name}" is a template node; its result is only {{ nodes.${name}.body }} (the rendered text).`,
      { data: { replacement: 'body' } },
    );
  }
  return { kind: 'node', name };
}
