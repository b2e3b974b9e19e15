// An imported API node written as agent-file YAML: the `inputs:` it needs and the node under
// `nodes:`, header strings double-quoted as the service's editor writes them.
import { Document, isMap, isSeq, Scalar } from 'yaml';
import type { ApiNodeSpec, ImportedApiNode, ImportedInput } from './apiNodeFromCurl';
import type { ImportedDeployment } from './deploymentFromCommand';

/** The node's YAML (with an `inputs:` block first when it needs inputs), ending in a newline. */
export function importedNodeYaml(imported: ImportedApiNode): string {
  const fragment: Record<string, unknown> = {};
  if (imported.inputs.length > 0)
    fragment['inputs'] = Object.fromEntries(imported.inputs.map((input) => [input.name, inputDeclaration(input)]));
  fragment['nodes'] = { [imported.id]: imported.node };
  const document = new Document(fragment);
  const nodes = document.get('nodes');
  if (isMap(nodes)) quoteSettings(nodes.get(imported.id));
  const inputs = document.get('inputs');
  if (isMap(inputs)) for (const pair of inputs.items) if (isMap(pair.value)) pair.value.flow = true;
  return document.toString({ lineWidth: 0 });
}

/** The `deployment:` block of a pasted execute URL or command (and the inputs a start request gives). */
export function importedDeploymentYaml(deployment: ImportedDeployment): string {
  const fragment: Record<string, unknown> = {
    deployment: {
      baseUrl: deployment.baseUrl,
      account: deployment.account,
      ...(deployment.agent !== undefined ? { agent: deployment.agent } : {}),
    },
  };
  if (deployment.inputs.length > 0)
    fragment['inputs'] = Object.fromEntries(deployment.inputs.map((input) => [input.name, { type: input.type }]));
  const document = new Document(fragment);
  const inputs = document.get('inputs');
  if (isMap(inputs)) for (const pair of inputs.items) if (isMap(pair.value)) pair.value.flow = true;
  return document.toString({ lineWidth: 0 });
}

/** One node as `id:` and its fields, header strings double-quoted. */
export function nodeDocument(id: string, node: ApiNodeSpec): Document {
  const document = new Document({ [id]: node });
  if (isMap(document.contents)) quoteSettings(document.contents.get(id));
  return document;
}

function quoteSettings(node: unknown): void {
  const settings = isMap(node) ? node.get('settings', true) : undefined;
  if (isSeq(settings)) for (const item of settings.items) if (item instanceof Scalar) item.type = Scalar.QUOTE_DOUBLE;
}

/** An input's declaration: `{ type, required, enum, description }` (a required string unless it says more). */
export function inputDeclaration(input: ImportedInput): Record<string, unknown> {
  return {
    type: input.type ?? 'string',
    ...(input.enum !== undefined && input.enum.length > 0 ? { enum: [...input.enum] } : {}),
    ...(input.required === false ? {} : { required: true }),
    ...(input.description !== undefined && input.description.trim() !== '' ? { description: input.description.trim().split('\n')[0] } : {}),
  };
}

/** One input's declaration line, `name: { type: string, required: true }`. */
export function inputDeclarationLine(input: ImportedInput): string {
  const document = new Document({ [input.name]: inputDeclaration(input) });
  if (isMap(document.contents)) for (const pair of document.contents.items) if (isMap(pair.value)) pair.value.flow = true;
  return document.toString({ lineWidth: 0 }).trimEnd();
}
