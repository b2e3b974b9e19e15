// The agent's declarations (inputs, nodes, outputs) read from the YAML AST, keeping the nodes that
// carry their source ranges. Tolerant: wrong shapes are left out here and reported by the schema.
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode, Pair, Scalar, YAMLMap } from 'yaml';
import { entries, firstValues, getStringScalar, getValue, isStringScalar } from './yamlAst';

export interface StringField {
  readonly value: string;
  readonly scalar: Scalar<string>;
}

export interface InputDeclaration {
  readonly name: string;
  readonly keyNode: Scalar;
  readonly map?: YAMLMap;
  readonly type?: string;
  readonly required: boolean;
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly accept?: readonly string[];
}

export interface NodeDeclaration {
  readonly id: string;
  readonly keyNode: Scalar;
  readonly map?: YAMLMap;
  readonly type?: string;
  readonly description?: string;
  readonly method?: string;
  readonly url?: StringField;
  readonly settings: readonly StringField[];
  readonly bodyPair?: Pair;
  readonly text?: StringField;
  /** Every string that is evaluated when the node runs (url, settings, body strings, text). */
  readonly evaluated: readonly StringField[];
}

export interface OutputDeclaration {
  readonly name: string;
  readonly keyNode: Scalar;
  readonly from?: StringField;
  readonly description?: string;
}

export interface DeploymentDeclaration {
  readonly baseUrl?: StringField;
  readonly account?: string;
  readonly agent?: string;
  /** Overrides by environment name, in the file's order. */
  readonly environments?: ReadonlyMap<string, DeploymentOverride>;
}

/** The deployment fields an agent uses in one environment of the workspace (deployment.environments). */
export type DeploymentOverride = Omit<DeploymentDeclaration, 'environments'> & {
  /** Where the environment's name starts in the file. */
  readonly offset: number;
  /** The account's scalar, for problems about it. */
  readonly accountScalar?: Scalar<string>;
};

export interface AgentModel {
  readonly name?: string;
  readonly description?: string;
  readonly deployment?: DeploymentDeclaration;
  readonly inputs: ReadonlyMap<string, InputDeclaration>;
  readonly nodes: ReadonlyMap<string, NodeDeclaration>;
  readonly outputs: ReadonlyMap<string, OutputDeclaration>;
}

export function readModel(root: YAMLMap): AgentModel {
  const inputs = new Map<string, InputDeclaration>();
  const nodes = new Map<string, NodeDeclaration>();
  const outputs = new Map<string, OutputDeclaration>();

  const inputsMap = getValue(root, 'inputs');
  if (isMap(inputsMap)) {
    for (const { key, keyNode, value } of entries(inputsMap)) {
      if (inputs.has(key)) continue;
      const map = isMap(value) ? value : undefined;
      inputs.set(key, {
        name: key,
        keyNode,
        ...(map ? readInput(map) : { required: false }),
        ...(map ? { map } : {}),
      });
    }
  }

  const nodesMap = getValue(root, 'nodes');
  if (isMap(nodesMap)) {
    for (const { key, keyNode, value } of entries(nodesMap)) {
      if (nodes.has(key)) continue;
      nodes.set(key, readNode(key, keyNode, isMap(value) ? value : undefined));
    }
  }

  const outputsMap = getValue(root, 'outputs');
  if (isMap(outputsMap)) {
    for (const { key, keyNode, value } of entries(outputsMap)) {
      if (outputs.has(key)) continue;
      const map = isMap(value) ? value : undefined;
      const from = map ? stringField(map, 'from') : undefined;
      const description = map ? plainString(map, 'description') : undefined;
      outputs.set(key, { name: key, keyNode, ...(from ? { from } : {}), ...(description !== undefined ? { description } : {}) });
    }
  }

  const deploymentMap = getValue(root, 'deployment');
  let deployment: DeploymentDeclaration | undefined;
  if (isMap(deploymentMap)) {
    const environmentsMap = getValue(deploymentMap, 'environments');
    const environments = isMap(environmentsMap) ? readOverrides(environmentsMap) : undefined;
    deployment = { ...readDeploymentFields(deploymentMap), ...(environments ? { environments } : {}) };
  }
  const name = plainString(root, 'name');
  const description = plainString(root, 'description');
  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(deployment ? { deployment } : {}),
    inputs,
    nodes,
    outputs,
  };
}

function readOverrides(map: YAMLMap): Map<string, DeploymentOverride> {
  const overrides = new Map<string, DeploymentOverride>();
  for (const { key, keyNode, value } of entries(map)) {
    if (overrides.has(key)) continue;
    const accountScalar = isMap(value) ? getStringScalar(value, 'account') : undefined;
    overrides.set(key, {
      ...(isMap(value) ? readDeploymentFields(value) : {}),
      offset: keyNode.range?.[0] ?? 0,
      ...(accountScalar ? { accountScalar } : {}),
    });
  }
  return overrides;
}

/** The fields of a deployment block: the plain one, or one environment's override. */
function readDeploymentFields(map: YAMLMap): Omit<DeploymentDeclaration, 'environments'> {
  const baseUrl = stringField(map, 'baseUrl');
  const account = plainString(map, 'account');
  const agent = plainString(map, 'agent');
  return {
    ...(baseUrl ? { baseUrl } : {}),
    ...(account !== undefined ? { account } : {}),
    ...(agent !== undefined ? { agent } : {}),
  };
}

function readInput(map: YAMLMap): Omit<InputDeclaration, 'name' | 'keyNode' | 'map'> {
  const {
    type,
    description,
    required: requiredNode,
    default: defaultNode,
    enum: enumNode,
    accept: acceptNode,
  } = firstValues(map, INPUT_KEYS).values;
  return {
    ...(isStringScalar(type) ? { type: type.value } : {}),
    ...(isStringScalar(description) ? { description: description.value } : {}),
    required: isScalar(requiredNode) && requiredNode.value === true,
    ...(isScalar(defaultNode) ? { default: defaultNode.value } : {}),
    ...(isSeq(enumNode) ? { enum: enumNode.items.map((item) => (isScalar(item) ? item.value : undefined)) } : {}),
    ...(isSeq(acceptNode) ? { accept: acceptNode.items.flatMap((item) => (isStringScalar(item) ? [item.value] : [])) } : {}),
  };
}

const INPUT_KEYS = ['type', 'description', 'required', 'default', 'enum', 'accept'] as const;
const NODE_KEYS = ['type', 'description', 'method', 'url', 'text', 'settings', 'body'] as const;

function readNode(id: string, keyNode: Scalar, map: YAMLMap | undefined): NodeDeclaration {
  if (!map) return { id, keyNode, settings: [], evaluated: [] };
  const { values: found, pairs } = firstValues(map, NODE_KEYS);
  const type = isStringScalar(found.type) ? found.type.value : undefined;
  const description = isStringScalar(found.description) ? found.description.value : undefined;
  const method = isStringScalar(found.method) ? found.method.value : undefined;
  const url = isStringScalar(found.url) ? { value: found.url.value, scalar: found.url } : undefined;
  const text = isStringScalar(found.text) ? { value: found.text.value, scalar: found.text } : undefined;
  const settingsNode = found.settings;
  const settings: StringField[] = [];
  if (isSeq(settingsNode)) {
    for (const item of settingsNode.items) {
      if (isStringScalar(item)) settings.push({ value: item.value, scalar: item });
    }
  }
  const bodyPair = pairs.body;
  const evaluated: StringField[] = [];
  if (url) evaluated.push(url);
  evaluated.push(...settings);
  if (bodyPair) collectStrings(bodyPair.value as YamlNode | null, evaluated);
  if (text) evaluated.push(text);
  return {
    id,
    keyNode,
    map,
    ...(type !== undefined ? { type } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(method !== undefined ? { method } : {}),
    ...(url ? { url } : {}),
    settings,
    ...(bodyPair ? { bodyPair } : {}),
    ...(text ? { text } : {}),
    evaluated,
  };
}

/** Every string scalar in a value (mapping values and list items, not keys). */
function collectStrings(node: YamlNode | null, into: StringField[]): void {
  if (isStringScalar(node)) {
    into.push({ value: node.value, scalar: node });
  } else if (isMap(node)) {
    for (const pair of node.items) collectStrings(pair.value as YamlNode | null, into);
  } else if (isSeq(node)) {
    for (const item of node.items) collectStrings(item as YamlNode | null, into);
  }
}

function stringField(map: YAMLMap, key: string): StringField | undefined {
  const scalar = getStringScalar(map, key);
  return scalar ? { value: scalar.value, scalar } : undefined;
}

function plainString(map: YAMLMap, key: string): string | undefined {
  return getStringScalar(map, key)?.value;
}
