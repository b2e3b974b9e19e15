// Rules for declarations that the schema cannot express: input defaults and allowed values that
// must match the input's type, the deployment's base URL, and the environments it overrides.
import { isSeq } from 'yaml';
import { isLoopbackHost } from '../http/hosts';
import type { AgentModel, StringField } from '../document/model';
import type { ProblemSink } from '../document/problemSink';
import { closestMatch, listWords } from '../document/suggest';
import { findPair, spanOf } from '../document/yamlAst';
import type { Node as YamlNode } from 'yaml';

const SCALAR_TYPES: Record<string, string> = { string: 'string', number: 'number', boolean: 'boolean' };

export function checkInputs(model: AgentModel, sink: ProblemSink): void {
  for (const input of model.inputs.values()) {
    if (sink.full) return;
    if (!input.map || input.type === undefined) continue;
    const type = input.type;
    const expected = SCALAR_TYPES[type];
    const defaultPair = findPair(input.map, 'default');
    const enumPair = findPair(input.map, 'enum');
    const acceptPair = findPair(input.map, 'accept');
    if (input.type === 'file') {
      if (defaultPair)
        sink.add(
          'invalid-input-default',
          spanOf(defaultPair.key as YamlNode),
          `File input "${input.name}" cannot have a default; a run must pick the file. Remove "default".`,
        );
      if (enumPair)
        sink.add(
          'invalid-input-default',
          spanOf(enumPair.key as YamlNode),
          `File input "${input.name}" cannot list allowed values; use "accept" for the allowed file types.`,
        );
    } else if (expected) {
      if (defaultPair && input.default !== undefined && typeof input.default !== expected) {
        sink.add(
          'invalid-input-default',
          spanOf(defaultPair.value as YamlNode),
          `The default of ${input.type} input "${input.name}" is ${describe(input.default)}; it must be a ${input.type}${hint(input.type, input.default)}.`,
        );
      }
      if (enumPair && isSeq(enumPair.value)) {
        input.enum?.forEach((allowed, index) => {
          if (allowed !== undefined && typeof allowed !== expected) {
            const item = (enumPair.value as { items: YamlNode[] }).items[index];
            sink.add(
              'invalid-input-default',
              spanOf(item),
              `Allowed value ${describe(allowed)} of ${input.type} input "${input.name}" is not a ${input.type}${hint(type, allowed)}.`,
            );
          }
        });
        if (defaultPair && input.default !== undefined && input.enum && !input.enum.includes(input.default)) {
          sink.add(
            'invalid-input-default',
            spanOf(defaultPair.value as YamlNode),
            `The default of input "${input.name}" is not one of its allowed values (${input.enum.map((v) => JSON.stringify(v)).join(', ')}).`,
          );
        }
      }
      if (acceptPair) {
        sink.add(
          'accept-without-file',
          spanOf(acceptPair.key as YamlNode),
          `"accept" only applies to file inputs, and "${input.name}" is a ${input.type} input. Remove it, or make the input "type: file".`,
        );
      }
    }
  }
}

export function checkDeployment(model: AgentModel, sink: ProblemSink): void {
  checkBaseUrlField(model.deployment?.baseUrl, sink);
  for (const override of model.deployment?.environments?.values() ?? []) checkBaseUrlField(override.baseUrl, sink);
}

function checkBaseUrlField(baseUrl: StringField | undefined, sink: ProblemSink): void {
  if (!baseUrl || !/^https?:\/\//i.test(baseUrl.value)) return;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl.value);
  } catch {
    sink.add(
      'invalid-url',
      spanOf(baseUrl.scalar),
      'The deployment baseUrl is not a valid URL. Check the host and port, e.g. "https://agents.example.com".',
    );
    return;
  }
  if (parsed.search || parsed.hash) {
    sink.add(
      'invalid-url',
      spanOf(baseUrl.scalar),
      'The deployment baseUrl must not have a query or fragment; requests add /api/{account}/agent/... to it.',
    );
  }
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
    sink.add(
      'insecure-base-url',
      spanOf(baseUrl.scalar),
      `The API key would travel in clear text to ${parsed.hostname} over http://. Use https://, or a loopback address (127.0.0.1, localhost) for a local server.`,
      { data: { replacement: baseUrl.value.replace(/^http:/i, 'https:') } },
    );
  }
}

/** What the checks of an agent file know of the environments file (agent-workflows.yaml) that applies to it. */
export interface EnvironmentChecks {
  /** The environments it declares: an override for another name is warned about. */
  readonly names: readonly string[];
  /** Its protected environments whose baseUrl and account agent files may not set (no allowAgentOverride). */
  readonly locked: readonly string[];
}

/**
 * An override for an environment that the workspace's environments file does not declare is never
 * used: a warning. An override of the baseUrl or account of a locked environment (protected, and
 * not opened to agent files) is an error: it would send that environment's runs, and its API key,
 * to a service the environments file does not name; runs refuse it too (environmentDeployment).
 */
export function checkEnvironmentOverrides(model: AgentModel, environments: EnvironmentChecks, sink: ProblemSink): void {
  const { names, locked } = environments;
  for (const [name, override] of model.deployment?.environments ?? []) {
    if (sink.full) return;
    if (locked.includes(name)) {
      const fields = [
        ...(override.baseUrl ? [{ field: 'baseUrl', span: spanOf(override.baseUrl.scalar) }] : []),
        ...(override.account !== undefined
          ? [
              {
                field: 'account',
                span: override.accountScalar
                  ? spanOf(override.accountScalar)
                  : { start: override.offset, end: override.offset + name.length },
              },
            ]
          : []),
      ];
      for (const { field, span } of fields) {
        sink.add(
          'protected-environment-override',
          span,
          `Environment "${name}" is protected in agent-workflows.yaml: an agent file cannot change its ${field}, so that its runs and API key go only to the service and account that file names. Remove ${field} here, or add "allowAgentOverride: true" to ${name} in agent-workflows.yaml.`,
        );
      }
    }
    if (names.includes(name)) continue;
    const suggestion = closestMatch(name, names);
    sink.add(
      'unknown-environment',
      { start: override.offset, end: override.offset + name.length },
      `The workspace's agent-workflows.yaml declares no environment "${name}", so this override is never used.${suggestion ? ` Did you mean "${suggestion}"?` : names.length ? ` Its environments: ${listWords([...names], 'and')}.` : ' It declares no environments.'}`,
      suggestion ? { data: { replacement: suggestion } } : {},
    );
  }
}

function describe(value: unknown): string {
  return typeof value === 'string' ? `the text ${JSON.stringify(value)}` : `${typeof value} ${JSON.stringify(value)}`;
}

function hint(type: string, value: unknown): string {
  if (type === 'number' && typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return '; remove the quotes';
  if (type === 'boolean' && (value === 'true' || value === 'false')) return '; remove the quotes';
  if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return `; quote it: "${String(value)}"`;
  return '';
}
