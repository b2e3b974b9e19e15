// Reads and checks the workspace's environments file (agent-workflows.yaml): named deployments, each
// with a base URL and an account, an optional status path and a protected flag, and an optional
// default. The YAML is read with the limits agent files have (one document, no alias bombs, no
// duplicate keys), checked against schemas/agent-workflows.schema.json, then each URL and the
// default. Pure and synchronous: the same problems in the editor and on the command line.
import { isMap, isScalar } from 'yaml';
import type { YAMLMap } from 'yaml';
import { parseAgentFile, tooLargeMessage } from '../document/parse';
import { ProblemSink } from '../document/problemSink';
import type { Problem } from '../document/problems';
import { closestMatch, listWords } from '../document/suggest';
import { entries, getStringScalar, getValue, spanOf } from '../document/yamlAst';
import type { PathSegment } from '../document/yamlAst';
import { isLoopbackHost } from '../http/hosts';
import { MAX_ENVIRONMENTS_FILE_BYTES } from '../limits';
import { checkBaseUrl, statusUrl } from '../service/target';
import { errorMessage } from '../errors';
import { checkSchema } from '../validation/schemaCheck';
import type { SchemaRules } from '../validation/schemaCheck';
import type { EnvironmentChecks } from '../validation/declarationsCheck';
import validateEnvironmentsSchema from './environmentsSchemaValidator.generated';

export { displayOrigin, ENVIRONMENTS_FILE_NAME } from './environmentsFileName';

/** What an environment name looks like (the schema's environmentName says the same). */
export const ENVIRONMENT_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export interface EnvironmentDeclaration {
  readonly name: string;
  readonly baseUrl: string;
  readonly account: string;
  /** Template of the status URL, when the environment's service has its own. */
  readonly statusPath?: string;
  /** Runs against it need a confirmation that names it. */
  readonly protected: boolean;
  /** allowAgentOverride: agent files may set their own baseUrl and account for it even when it is protected. */
  readonly allowAgentOverride: boolean;
  /** Where its name starts in the file. */
  readonly offset: number;
}

export interface EnvironmentsFile {
  /** The environment used when none is chosen; always one of `environments`. */
  readonly defaultName?: string;
  /** In the file's order. */
  readonly environments: ReadonlyMap<string, EnvironmentDeclaration>;
}

export interface EnvironmentsFileResult {
  /** Undefined when any problem is an error: a file with errors is never used. */
  readonly file?: EnvironmentsFile;
  readonly problems: Problem[];
}

const ENVIRONMENTS_SCHEMA: SchemaRules = { validate: validateEnvironmentsSchema, describePath: describeEnvironmentsPath };

export function parseEnvironmentsFile(text: string): EnvironmentsFileResult {
  if (text.length > MAX_ENVIRONMENTS_FILE_BYTES) {
    const sink = new ProblemSink(text);
    sink.add(
      'file-too-large',
      { start: 0, end: Math.max(0, Math.min(text.indexOf('\n') === -1 ? 200 : text.indexOf('\n'), text.length)) },
      tooLargeMessage(text.length, 'environments', MAX_ENVIRONMENTS_FILE_BYTES),
    );
    return { problems: sink.result() };
  }
  const parsed = parseAgentFile(text, 'environments');
  const { sink, root } = parsed;
  if (parsed.syntaxBroken || !root) return { problems: sink.result() };
  checkSchema(root, parsed.value, sink, ENVIRONMENTS_SCHEMA);

  const environments = new Map<string, EnvironmentDeclaration>();
  const environmentsMap = getValue(root, 'environments');
  if (isMap(environmentsMap)) {
    for (const { key, keyNode, value } of entries(environmentsMap)) {
      if (environments.has(key) || !ENVIRONMENT_NAME.test(key) || !isMap(value)) continue;
      const declaration = readEnvironment(key, keyNode.range?.[0] ?? 0, value, sink);
      if (declaration) environments.set(key, declaration);
    }
  }

  const defaultNode = getStringScalar(root, 'default');
  const defaultName = defaultNode?.value;
  // Against every name declared, read or not: a default naming a broken environment is not a second problem.
  const declared = isMap(environmentsMap) ? [...entries(environmentsMap)].map((entry) => entry.key) : [];
  if (defaultNode && defaultName !== undefined && isMap(environmentsMap) && !declared.includes(defaultName)) {
    const suggestion = closestMatch(defaultName, declared);
    sink.add(
      'unknown-default-environment',
      spanOf(defaultNode),
      `default names environment "${defaultName}", which this file does not declare.${suggestion ? ` Did you mean "${suggestion}"?` : declared.length ? ` It declares ${listWords(declared, 'and')}.` : ''}`,
      suggestion ? { data: { replacement: suggestion } } : {},
    );
  }

  const problems = sink.result();
  if (problems.some((problem) => problem.severity === 'error')) return { problems };
  return { file: { ...(defaultName !== undefined ? { defaultName } : {}), environments }, problems };
}

/** What the checks of an agent file under this environments file need to know of it. */
export function environmentChecks(file: EnvironmentsFile): EnvironmentChecks {
  const declarations = [...file.environments.values()];
  return {
    names: declarations.map((declaration) => declaration.name),
    locked: declarations.filter((declaration) => !agentsMayOverride(declaration)).map((declaration) => declaration.name),
  };
}

/** Whether agent files may set their own baseUrl and account for an environment: not a protected one, unless its file allows it. */
export function agentsMayOverride(declaration: EnvironmentDeclaration): boolean {
  return !declaration.protected || declaration.allowAgentOverride;
}

/** One environment's fields, with its URL and status path checked; undefined when a field the schema requires is missing. */
function readEnvironment(name: string, offset: number, map: YAMLMap, sink: ProblemSink): EnvironmentDeclaration | undefined {
  const baseUrlNode = getStringScalar(map, 'baseUrl');
  const account = getStringScalar(map, 'account')?.value;
  const statusPathNode = getStringScalar(map, 'statusPath');
  const protectedNode = getValue(map, 'protected');
  const allowOverrideNode = getValue(map, 'allowAgentOverride');
  if (!baseUrlNode || account === undefined) return undefined;
  const baseUrl = baseUrlNode.value.trim();
  // Only URLs the schema's pattern accepts (http:// or https://) are checked further: one problem per mistake.
  if (/^https?:\/\//i.test(baseUrl) && !URL.canParse(baseUrl)) {
    // Not quoted back: a URL that does not parse may still hold a user name and password.
    sink.add(
      'invalid-url',
      spanOf(baseUrlNode),
      `Environment "${name}": the baseUrl is not a valid URL. Check the host and port, e.g. "https://agents.example.com".`,
    );
  } else if (/^https?:\/\//i.test(baseUrl)) {
    try {
      // Plain http to another machine is allowed here and warned about below: the file may describe
      // a trusted network, and runs still refuse it unless insecure http is allowed explicitly.
      const url = checkBaseUrl(baseUrl, true);
      if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
        sink.add(
          'insecure-base-url',
          spanOf(baseUrlNode),
          `Environment "${name}": the API key would travel in clear text to ${url.hostname} over http://. Use https://, or a loopback address (127.0.0.1, localhost) for a local server.`,
          { data: { replacement: baseUrl.replace(/^http:/i, 'https:') } },
        );
      }
      if (statusPathNode) {
        // The template must give a URL on the base URL's origin: checked by building one.
        statusUrl(
          {
            baseUrl,
            account: account || 'account',
            agent: 'agent',
            apiKey: '',
            statusPathTemplate: statusPathNode.value,
            allowInsecureHttp: true,
          },
          'execution-id',
        );
      }
    } catch (error) {
      const onStatusPath = statusPathNode !== undefined && /status path/.test(errorMessage(error));
      sink.add(
        onStatusPath ? 'invalid-value' : 'invalid-url',
        spanOf(onStatusPath ? statusPathNode : baseUrlNode),
        `Environment "${name}": ${errorMessage(error)}`,
      );
    }
  }
  return {
    name,
    baseUrl,
    account,
    ...(statusPathNode ? { statusPath: statusPathNode.value } : {}),
    protected: isScalar(protectedNode) && protectedNode.value === true,
    allowAgentOverride: isScalar(allowOverrideNode) && allowOverrideNode.value === true,
    offset,
  };
}

/** A place in the environments file in words, for the schema's messages. */
export function describeEnvironmentsPath(path: readonly PathSegment[]): string {
  if (path.length === 0) return 'the environments file';
  const [section, name, field, ...rest] = path;
  if (section !== 'environments') return `"${[section, name, field, ...rest].filter((part) => part !== undefined).join('.')}"`;
  if (name === undefined) return 'the environments';
  const owner = `environment "${String(name)}"`;
  if (field === undefined) return owner;
  return `the ${[field, ...rest].join('.')} of ${owner}`;
}
